// A CRM-to-commerce flow is a declaration too: which CRM object it reads (per CRM kind, with the fields
// and the decision of what each record asks for, and what goes back onto the record), and which commerce
// create answers it (its rules, the create, and the look-up of records already carrying the CRM id, so a
// create whose answer was lost is adopted, never repeated). activities/crm-to-commerce.ts runs any of them.
import type { CommerceClient } from '../commerce/index.ts';
import type { CrmConnector, CrmKind, CrmRecord, RecordFilter } from '../crm/connector.ts';
import type { ConnectionSettings } from '../sync/connection-settings.ts';

/** What a CRM record asks of the commerce side: nothing, a request, or a refusal a person can act on. */
export type Ask<Request> = { asks: false } | { asks: true; request: Request } | { asks: true; refused: string };

/** A commerce record made for a CRM record (its id, and what the CRM shows of it). */
export type Made = { id: string; status?: string; stage?: string };

export type CrmSide<Request> = {
  object: string;
  /** Fields read from each record (relationship paths such as Account.Commerce_Buyer_Id__c allowed). */
  fields(settings: ConnectionSettings): string[];
  /** Fields that need not exist in the org: read, and written back, only where they do (flows/fit-write-back.ts). */
  optionalFields?: string[];
  /**
   * The write-back as an org without some of `optionalFields` takes it (`has` says which the org has),
   * before those it lacks are left out: an org set up before a field was added keeps working as it did.
   */
  fitWrite?(fields: CrmRecord, has: (field: string) => boolean): CrmRecord;
  /** What asking needs besides the record, read for a whole page (a draft's contacts, by their roles). */
  related?(crm: CrmConnector, records: CrmRecord[]): Promise<Map<string, unknown>>;
  ask(record: CrmRecord, settings: ConnectionSettings, related?: unknown): Ask<Request>;
  /**
   * Which records can ask at all, as data the connector turns into its own filter (Salesforce: SOQL), so
   * a read skips the rest. Only for flows where a record outside it needs nothing (one that stops being
   * shared is left as it is); leave it out otherwise.
   */
  narrow?(settings: ConnectionSettings): RecordFilter | undefined;
  /** The CRM record's field that holds the commerce id once made (a record already holding it asked before). */
  madeField: string;
  /** Written back onto the CRM record: once made, and when refused. */
  made(made: Made): CrmRecord;
  refused(message: string): CrmRecord;
  /**
   * Written back when the commerce side refused the next step for a record already made (a re-submit
   * of a rejected referral): the reasons only, so the record keeps showing what was made.
   */
  refusedAfterMade?(message: string): CrmRecord;
};

/** What the commerce side did with the next step of a record already made. */
export type Advanced = { made: Made } | { refused: string } | { unchanged: true } | { later: string };

export type CommerceCreate<Request> = {
  /** The commerce side's rules before any create: the problems in its own words (none: fine). */
  validate?(commerce: CommerceClient, orgId: string, request: Request): Promise<string[]>;
  /** How many requests one create call takes. */
  batch: number;
  /** One result per request, in order: what was made, or why it was refused. */
  create(commerce: CommerceClient, orgId: string, requests: Request[]): Promise<({ made: Made } | { refused: string })[]>;
  /** Commerce records already carrying these CRM ids (in the field of this CRM kind), by CRM id. */
  findByCrmIds(commerce: CommerceClient, orgId: string, crmIds: string[], kind: CrmKind): Promise<Map<string, Made>>;
  /**
   * A record already made whose request changed since it was last sent: the commerce record's next step
   * (a referral still a draft, or rejected by the partner, is sent again with the record's fields and
   * submitted). `unchanged`: nothing to do in the record's state. Not declared: a made record is left as it is.
   */
  advance?(commerce: CommerceClient, orgId: string, id: string, request: Request): Promise<Advanced>;
};

export type CrmToCommerceFlow<Request = unknown> = {
  name: string;
  direction: 'crm-to-commerce';
  /** Whether the connection runs this flow. */
  enabled(settings: ConnectionSettings): boolean;
  crm: Partial<Record<CrmKind, CrmSide<Request>>>;
  target: CommerceCreate<Request>;
};
