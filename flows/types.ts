// A flow is a declaration: one direction of one kind of record, saying what is read and from which
// side, what a mapping needs besides the record, which flows are its parents, the mapping per CRM kind
// (the key it writes by is the mapping's external id field) and what goes back to the source side.
// The workflows and activities run declarations; they do not name entities.
import type { CommerceClient, Filter, Page } from '../commerce/index.ts';
import type { CrmConnector, CrmKind } from '../crm/connector.ts';
import type { EntityMapping } from '../mappings/types.ts';
import type { ConnectionSettings } from '../sync/connection-settings.ts';

export type ReadOptions = { signal?: AbortSignal; onProgress?: (detail: Record<string, unknown>) => void; concurrency?: number };

/** The connection a record is read by id for: its settings and its CRM. */
export type ByIdContext = { settings: ConnectionSettings; crm?: CrmConnector };

/**
 * Thrown by a read by id when the row a dead letter was filed under reads again but is not itself one of
 * the flow's records (a catalogue product the read refused, whose records are its dimensions): the letter
 * closes, and the flow's next run writes the records it makes.
 */
export class ReadsAgainAsOtherRecords extends Error {}

/** Commerce-side reads of one kind of record. */
export type CommerceReader = {
  /** One page of a window query (q, s as §2.9; 1-based start page). */
  window(commerce: CommerceClient, orgId: string, query: { q: string; s: string; pageSize: number; startPage: number }): AsyncGenerator<Page<any>>;
  /** `context`: the connection a read by id is for (a dead letter's retry): a source whose records carry its settings (the catalogue's setup ids) reads them as a run does. */
  byId(commerce: CommerceClient, orgId: string, id: string, context?: ByIdContext): Promise<any>;
  /** Where CRM ids go back onto the record (§2.6), when the record takes them. */
  updateMetaInfo?(commerce: CommerceClient, orgId: string, id: string, patch: Record<string, string>): Promise<unknown>;
  /** Where the record holds the CRM ids written back (default: its metaInfo). */
  current?(record: any): Record<string, unknown> | undefined;
  /** Only some records of the source belong to this flow: a q filter for window reads, and the same test for reads by id. */
  filter?: { q: Filter; accepts(record: any): boolean };
};

/** What a flow's mapping needs besides its records, read for a whole batch. */
export type RelatedRead = {
  /** By record id: what the mapping receives as its second argument. */
  byRecord: Map<string, unknown>;
  /** Records whose related rows could not be read, with the reasons: they wait as dead letters. */
  unreadable: Map<string, string[]>;
  /** By record id: the newest time among the related rows (a related row can change on its own). */
  latest: Map<string, Date>;
};

export type RelatedReader = (commerce: CommerceClient, orgId: string, records: any[], options: ReadOptions) => Promise<RelatedRead>;

/**
 * The CRM ids a written record sends back onto its commerce record, for one CRM kind (none: undefined).
 * `current` is what the commerce record holds (CommerceReader.current): a rule may leave some records alone.
 */
export type WriteBackRule = (written: { crmId: string; accountId?: string; current?: Record<string, unknown> }, recordUrl: (crmId: string) => Promise<string>) => Promise<Record<string, string> | undefined>;

/** What a flow may do after its records reached the CRM (link related records), with what it needs. */
export type AfterWriteContext = {
  commerce: CommerceClient;
  crm: CrmConnector;
  orgId: string;
  /** The records of the batch, as read. */
  records: any[];
  /** The records the CRM now holds, by source id and CRM id (written now or linked before). */
  linked: { sourceId: string; crmId: string }[];
  /**
   * Of `linked`, the source ids whose CRM record may not be as the flow wants it: written in this batch,
   * or unchanged but with an open dead letter from an earlier attempt (an afterWrite that failed). The
   * others were settled by an earlier run, so a quiet run need not look at them. Absent: all of `linked`.
   */
  unsettled?: ReadonlySet<string>;
  /** What the flow's related reader read for a record (the renewal's renewing entitlement), by source id. */
  related?: (sourceId: string) => unknown;
  signal?: AbortSignal;
};

export type CommerceToCrmFlow<Name extends string = string> = {
  name: Name;
  direction: 'commerce-to-crm';
  source: CommerceReader;
  /** Feed entity types (§6) that name this flow's records. */
  events: string[];
  /** Flows whose records this one's point at: they run first, and a child waits for their links. */
  parents: Name[];
  related?: RelatedReader;
  /** The mapping per CRM kind; a kind without one does not run this flow. */
  mappings: Partial<Record<CrmKind, EntityMapping<any, any>>>;
  writeBack?: Partial<Record<CrmKind, WriteBackRule>>;
  /** Soft deletes on the commerce side change the CRM record's status; nothing is ever deleted. */
  deletes: 'reflect-status';
  /**
   * The CRM-to-commerce flow (flows/crm-to-commerce.ts) that made some of this flow's records from a
   * seller's own CRM record: on that record the mapping's `sellerKeeps` fields stay the seller's.
   */
  sellersRecordsFrom?: string;
  /**
   * The parent records each record names, by parent flow, that must be in the CRM before it (a parent
   * never synced is made first, by id). Flows that run apart from their parents' pass declare it.
   */
  parentIds?(record: any): Partial<Record<Name, string[]>>;
  /**
   * Records whose CRM record changes with the clock, not only with their own changes (a renewal falling
   * due): read whole on every run in place of a change window, no cursor kept (flows/renewal.ts).
   * `linked`: which of some source ids are already in the CRM; `since`: when the last run of this flow
   * read (less the connection's look-back), absent on its first run.
   */
  due?(
    commerce: CommerceClient,
    orgId: string,
    context: {
      now: Date;
      since?: Date;
      settings: ConnectionSettings;
      linked(ids: string[]): Promise<Set<string>>;
      pageSize: number;
      signal?: AbortSignal;
      /** The connection's CRM and its mappings by flow: a flow whose records land on other flows' records finds them (the timeline). */
      crm?: CrmConnector;
      mappings?: Partial<Record<Name, EntityMapping<any, any>>>;
      /** The CRM ids another flow's records are linked to (record_links), by source id; unlinked ones absent. */
      crmIdsOf?(entity: Name, ids: string[]): Promise<Map<string, string>>;
    },
  ): Promise<{ records: any[]; rejected: Page<any>['rejected'] }>;
  /** Runs after the batch's links are recorded; safe to run twice. What it could not do becomes dead letters. */
  afterWrite?(context: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]>;
};
