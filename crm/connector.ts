// The one interface every CRM connector offers (Salesforce first; HubSpot and Dynamics 365 follow):
// exactly what the sync needs and no more.

export const CRM_KINDS = ['salesforce', 'hubspot', 'dynamics'] as const;
export type CrmKind = (typeof CRM_KINDS)[number];

/** How a person names each CRM (crmA, crmB and crmC in the contract). */
export const CRM_NAMES: Record<CrmKind, string> = { salesforce: 'Salesforce', hubspot: 'HubSpot', dynamics: 'Dynamics 365' };

/** One thing the connection's CRM user may not do on, or see of, an object (CrmConnector.checkAccess). */
export type AccessProblem = {
  object: string;
  field?: string;
  /** not-granted: it exists but the user is not given it; missing: the CRM has no such thing; privilege: the user's role lacks one. */
  kind: 'not-granted' | 'missing' | 'privilege';
  /** The sentence for a person, in the CRM's own terms. */
  message: string;
};

/**
 * Where a connection's renewable secret lives between renewals (a rotating Salesforce refresh token,
 * crm/salesforce/refresh-tokens.ts). `exclusive` runs `work` alone among the renewals of the connection;
 * `read` gives the secret as stored now (undefined: none stored); `save(used, next)` stores `next` in place
 * of `used`, only if the stored one is still `used` (one saved meanwhile by a person, e.g. `crm-sync edit`, wins).
 */
export type SecretsVault = {
  exclusive<T>(work: (tokens: { read(): Promise<string | undefined>; save(used: string, next: string): Promise<void> }) => Promise<T>): Promise<T>;
};

/** A CRM record as field API name -> value. */
export type CrmRecord = Record<string, unknown>;

export type FieldSchema = {
  name: string;
  type: string;
  length?: number;
  required: boolean;
  createable: boolean;
  updateable: boolean;
  externalId: boolean;
  picklistValues?: string[];
  restrictedPicklist?: boolean;
  referenceTo?: string[];
  relationshipName?: string;
  /** The CRM enforces unique values in this field (an external id used as a key must be unique). */
  unique?: boolean;
};

export type ObjectSchema = { name: string; fields: ReadonlyMap<string, FieldSchema> };

/** One record to write: keyed by the external id field, or by the CRM id already linked to it. */
export type UpsertItem = {
  /** The commerce record's id: results and dead letters speak of it. */
  sourceId: string;
  externalIdField: string;
  externalId: string;
  /** When set, the record is updated by this CRM id instead of upserted by external id. */
  crmId?: string;
  /** Mapped fields, without the external id field. Parent links may be relationship references. */
  fields: CrmRecord;
  /**
   * CRM ids of the records the references in `fields` name, as the sync linked them:
   * `${idField}=${commerceId}` -> CRM id (HubSpot may have merged two commerce contacts into one).
   */
  references?: Record<string, string>;
};

export type CrmRecordError = { code: string; message: string; fields?: string[] };

export type UpsertResult =
  | { sourceId: string; ok: true; crmId: string; created: boolean }
  | { sourceId: string; ok: false; error: CrmRecordError };

export type ApiBudget = {
  used?: number;
  limit?: number;
  /** Share of the limit kept free for the org's other integrations and people. */
  reserved: number;
  /** Set while the connection is parked because the budget ran out. */
  parkedUntil?: Date;
};

/**
 * How one upsert call may be steered by the activity that makes it:
 * - `signal`: the activity was cancelled (or timed out): stop before the next CRM call.
 * - `bulkJob`: Bulk API 2.0 (or any CRM's asynchronous job) resumption. `resumeId` is a job this batch
 *   already created in an earlier attempt (kept in the activity's heartbeat details): poll it and read its
 *   results instead of uploading again. `onCreated` is called with a new job's id as soon as it exists.
 * - `onProgress`: called while a long call runs (polls of a job), so the activity can heartbeat.
 */
export type UpsertOptions = {
  signal?: AbortSignal;
  bulkJob?: { resumeId?: string; onCreated?: (jobId: string) => void };
  onProgress?: (detail: Record<string, unknown>) => void;
};

/**
 * A window of changed records. Without `afterId` the start is inclusive and the connector's look-back
 * applies (a run's first page); with it, the window starts strictly after (since, afterId), the
 * position of the last record read, so many records with one stamp are neither skipped nor re-read.
 * `until` fixes the window's end at the run's start.
 */
export type ChangedSinceOptions = {
  since: Date;
  afterId?: string;
  until?: Date;
  fields: string[];
  pageSize?: number;
  /** Only records passing this filter are wanted (a CRM that cannot filter by it reads them all). */
  narrow?: RecordFilter;
  /**
   * Where an earlier read of this same window stopped, as the CRM handed it (Salesforce: the query
   * locator of nextRecordsUrl): the read goes on from there instead of querying again. When the CRM no
   * longer knows it (expired, released), the read starts afresh from (since, afterId).
   */
  locator?: string;
  /** Told, before each page is handed out, where the read would go on after it (undefined: nowhere). */
  onLocator?: (locator: string | undefined) => void;
};

/**
 * Which records of a window a flow can use, declared as data (never a query string): a field equal to a
 * value, holding one of some values, holding any value at all, or any of several such filters (one read
 * serving several passes, issue #24 item 9). Salesforce turns it into escaped SOQL, HubSpot into search
 * filter groups, Dynamics 365 into an OData $filter; a CRM that cannot express one reads the whole
 * window (the flow still decides record by record).
 */
export type RecordFilter = { field: string; equals: boolean | string } | { field: string; oneOf: string[] } | { field: string; present: true } | { anyOf: RecordFilter[] };

export interface CrmConnector {
  readonly kind: CrmKind;
  /** The field holding a record's CRM id in the records this connector returns (Salesforce `Id`, HubSpot `hs_object_id`). */
  readonly idField: string;
  /** The field holding a record's last modification stamp (Salesforce `SystemModstamp`, HubSpot `hs_lastmodifieddate`). */
  readonly stampField: string;
  /** Authenticates and proves the credentials work; returns who we are in the CRM. */
  verify(): Promise<{ organizationId?: string; userId?: string; instanceUrl?: string }>;
  describe(object: string): Promise<ObjectSchema>;
  /**
   * What the connection's CRM user may not do on, or see of, these objects, each with a sentence saying
   * what to grant; empty when nothing is missing. Optional: Dataverse (privileges of the security
   * role) and Salesforce (field-level security: a field not granted told from a missing one) check it.
   */
  checkAccess?(objects: string[]): Promise<AccessProblem[]>;
  /** What doctor tells a person to do about one of checkAccess's problems, for the connection `name`. */
  accessFix?(name: string, problem: AccessProblem): string;
  /**
   * One result per item, in input order; a rejected record never fails the others. The connector cuts
   * the items into the CRM's own batches (Salesforce: collections of 200, or one Bulk API 2.0 job).
   */
  upsert(object: string, items: UpsertItem[], options?: UpsertOptions): Promise<UpsertResult[]>;
  /** Sets fields on records by their CRM ids (the CRM-to-commerce flows' write-back); one result per item. */
  update(object: string, items: { sourceId: string; crmId: string; fields: CrmRecord }[], options?: Pick<UpsertOptions, 'signal'>): Promise<UpsertResult[]>;
  /** How many records a sync activity gathers before writing: enough for the CRM's best batch. */
  readonly preferredBatch: number;
  /**
   * Updates by CRM id and upserts by external id can share one call (a Dataverse $batch): the sync
   * then hands them over together instead of in two calls.
   */
  readonly mixedWrites?: boolean;
  /**
   * Which of these CRM ids name records of this org. Offered where one call answers thousands of ids
   * (Dataverse: a $batch of GET parts), so the sync checks the ids commerce records carry before their
   * first write instead of spending a write on each that names nothing here.
   */
  existingIds?(object: string, ids: string[], signal?: AbortSignal): Promise<Set<string>>;
  /** Records modified in the window, oldest first by (modification stamp, id), page by page. */
  changedSince(object: string, options: ChangedSinceOptions): AsyncIterable<CrmRecord[]>;
  getById(object: string, id: string, fields?: string[]): Promise<CrmRecord | undefined>;
  /** Records whose external id field holds one of `values`, by that value (looks before creating). */
  findByExternalIds(object: string, externalIdField: string, values: string[], fields?: string[]): Promise<Map<string, CrmRecord>>;
  /** Every record whose `field` holds one of `values` (several may share one value). */
  findWhereIn(object: string, field: string, values: string[], fields?: string[]): Promise<CrmRecord[]>;
  /** Creates records of an object without an external id (links such as contact roles); one result per item. */
  insert(object: string, items: { sourceId: string; fields: CrmRecord }[], options?: Pick<UpsertOptions, 'signal'>): Promise<UpsertResult[]>;
  /**
   * CRMs that link records by associations (HubSpot): the ids of `toObject` records associated to each
   * of `ids`. Absent where links are fields of the record (Salesforce lookups).
   */
  associated?(object: string, ids: string[], toObject: string): Promise<Map<string, string[]>>;
  /**
   * CRMs that link records by associations: adds to records known by id the associations their
   * reference fields name (`references`: CRM ids already known, by `idProperty=value`), writing nothing
   * else, so no record is written again only to be linked. One result per item.
   */
  associate?(object: string, items: { sourceId: string; crmId: string; fields: CrmRecord; references?: Record<string, string> }[], options?: Pick<UpsertOptions, 'signal'>): Promise<UpsertResult[]>;
  /**
   * The currency the CRM keeps an amount in when its record names none: the org's default currency
   * (Salesforce Organization.DefaultCurrencyIsoCode, HubSpot's company currency, Dataverse's base
   * currency; docs/crm-wire-behaviour.md), as an ISO code. Read once for the connector's life; never
   * rejects: when it cannot be read it is USD, said once in a warning log (crm/default-currency.ts).
   * Optional: a CRM without it (an in-memory test CRM) is taken as USD.
   */
  defaultCurrency?(): Promise<string>;
  budget(): ApiBudget;
  /**
   * A link a person can open to see the record in the CRM. `object`: the record's object as the mappings
   * name it (record_links.crm_object); HubSpot and Dynamics put it in the address, and without it the link
   * is to an opportunity (deal), the record the worker links people to most.
   */
  recordUrl(crmId: string, object?: string): Promise<string>;
}

/** The CRM said no to the whole call (not to one record): credentials, budget, outage. */
export class CrmError extends Error {
  override name = 'CrmError';
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  constructor(message: string, details: { code: string; retryable: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(message, { cause: details.cause });
    this.code = details.code;
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/**
 * The CRM refused the connection's credentials themselves (revoked secret, inactive user, unknown
 * client): only new secrets help, so the connection is marked for re-authorisation. `code` keeps the
 * CRM's own word (invalid_grant, inactive_user, ...).
 */
export class CrmCredentialsRefusedError extends CrmError {
  override name = 'CrmCredentialsRefusedError';
  constructor(message: string, code: string, cause?: unknown) {
    super(message, { code, retryable: false, cause });
  }
}

/** The daily API budget is spent: the connection waits until `resetsAt` rather than looping. */
export class CrmBudgetExhaustedError extends CrmError {
  override name = 'CrmBudgetExhaustedError';
  readonly resetsAt: Date;
  constructor(message: string, resetsAt: Date, cause?: unknown) {
    super(message, { code: 'REQUEST_LIMIT_EXCEEDED', retryable: false, cause });
    this.resetsAt = resetsAt;
  }
}

/** A record's CRM id, whichever CRM returned it. */
export function recordId(crm: Pick<CrmConnector, 'idField'>, record: CrmRecord): string {
  return String(record[crm.idField]);
}

/** A record's last modification time (Salesforce writes `+0000` for UTC), or undefined when absent or unreadable. */
export function recordStamp(crm: Pick<CrmConnector, 'stampField'>, record: CrmRecord): Date | undefined {
  const raw = record[crm.stampField];
  if (raw === null || raw === undefined || raw === '') return undefined;
  const date = typeof raw === 'number' ? new Date(raw) : new Date(String(raw).replace(/\+0000$/, 'Z'));
  return Number.isNaN(date.getTime()) ? undefined : date;
}
