// The Salesforce connector on jsforce 3. Writes: sObject Collections in chunks of 200 (allOrNone
// false, one result per record) or, for large batches, one Bulk API 2.0 ingest job (bulk.ts); records
// already linked are updated by Id. Reads: SystemModstamp windows with an inclusive start and a
// look-back, paged with queryMore. Budget: Sforce-Limit-Info is tracked, a share of the daily limit
// reserved, and a park ends on the org's real usage (budget.ts). Every request is time-limited.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from 'jsforce';
import pRetry, { AbortError } from 'p-retry';
import { CrmBudgetExhaustedError, CrmError, type ApiBudget, type ChangedSinceOptions, type CrmConnector, type CrmRecord, type FieldSchema, type ObjectSchema, type UpsertItem, type UpsertOptions, type UpsertResult } from '../connector.ts';
import { defaultCurrencyOnce } from '../default-currency.ts';
import { createBudgetGuard } from './budget.ts';
import { orderByParent, parentReferences, runBulkUpsert, type BulkKey } from './bulk.ts';
import { bulkCsv, type BulkRow } from './bulk-csv.ts';
import { callError, cancelledError, recordError } from './errors.ts';
import { lockedJobRows, lockRetryDelay, retryLockedRows, DEFAULT_LOCK_RETRY, type LockRetrySettings } from './lock-retry.ts';
import { openSalesforceSession, type SalesforceSecrets, type SalesforceSettings } from './session.ts';
import { soqlIdentifier, soqlIn } from './soql.ts';
import { fieldAccessFix, fieldAccessProblems } from './field-access.ts';
import { SALESFORCE_CUSTOM_FIELDS } from '../../mappings/salesforce/schema.ts';
import { readWindow } from './window-read.ts';
import { inSlices } from './in-slices.ts';
import { resendWithoutCreateOnly } from './create-only-retry.ts';

/** sObject Collections take at most 200 records a call. */
const COLLECTION_SIZE = 200;

type SaveResult = { id?: string; success: boolean; created?: boolean; errors?: { statusCode?: string; message?: string; fields?: string[] }[] };

export type SalesforceConnector = CrmConnector & {
  /** How many records went through Bulk API 2.0 and how many jobs: for reports and tests. */
  readonly stats: { collectionRecords: number; bulkJobs: number; bulkRecords: number; lockRetriedRecords: number };
};

/** How rows Salesforce refused with UNABLE_TO_LOCK_ROW are sent again (lock-retry.ts); tests shorten the waits. */
export type SalesforceLockRetryOptions = { lockRetry?: Partial<LockRetrySettings> };

export function createSalesforceConnector(settings: SalesforceSettings & SalesforceLockRetryOptions, secrets: SalesforceSecrets, clock: () => Date = () => new Date()): SalesforceConnector {
  const bulkThreshold = settings.bulkThreshold ?? 2000;
  const reservedShare = settings.reservedShare ?? 0.2;
  const lookbackMs = (settings.lookbackSeconds ?? 600) * 1000;
  const parkSeconds = settings.parkSeconds ?? 3600;
  let session: ReturnType<typeof openSalesforceSession> | undefined;
  const budget = createBudgetGuard({ reservedShare, parkSeconds, clock });
  const schemas = new Map<string, Promise<ObjectSchema>>();
  const stats = { collectionRecords: 0, bulkJobs: 0, bulkRecords: 0, lockRetriedRecords: 0 };
  const lockRetry = { ...DEFAULT_LOCK_RETRY, ...settings.lockRetry };
  /** Locked rows of one call sent again through `resend`, promptly, before any is given up to a dead letter. */
  const retryLocked = (items: UpsertItem[], results: UpsertResult[], resend: (items: UpsertItem[]) => Promise<UpsertResult[]>, signal: AbortSignal | undefined) =>
    retryLockedRows(items, results, resend, { ...lockRetry, signal, onResent: (count) => (stats.lockRetriedRecords += count) });

  let established: Connection | undefined;
  const connect = async (): Promise<Connection> => {
    session ??= openSalesforceSession(settings, secrets).catch((error) => {
      session = undefined;
      throw error;
    });
    established = (await session).connection;
    return established;
  };

  /**
   * Every call: refuse while parked or inside the reserve, translate failures, park on the daily limit.
   * Every call the connector makes is idempotent (upserts by external id, updates by Id, reads), so a
   * transient failure (500, 503, a concurrency 429, a dropped socket) is retried here, briefly and at
   * least as late as Salesforce asked, rather than failing the whole page back to Temporal.
   */
  async function guarded<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return pRetry(
      async () => {
        try {
          return await guardedOnce(work);
        } catch (error) {
          if (!(error instanceof CrmError) || !error.retryable) throw new AbortError(error as Error);
          throw error;
        }
      },
      {
        retries: settings.retries ?? 3,
        minTimeout: settings.minRetryDelayMs ?? 250,
        maxTimeout: 5_000,
        factor: 2,
        randomize: true,
        onFailedAttempt: async ({ error, retryDelay, retriesLeft }) => {
          const extra = Math.max(0, ((error as CrmError).retryAfterMs ?? 0) - retryDelay);
          if (retriesLeft > 0 && extra > 0) await sleep(extra);
        },
      },
    );
  }

  async function guardedOnce<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    try {
      const connection = await connect();
      await budget.admit(connection);
      return await work(connection);
    } catch (error) {
      if (error instanceof CrmError) {
        if (error instanceof CrmBudgetExhaustedError) budget.park(error.resetsAt);
        throw error;
      }
      const translated = callError(error, parkSeconds, clock(), secrets.clientId);
      if (translated instanceof CrmBudgetExhaustedError) budget.park(translated.resetsAt);
      throw translated;
    }
  }

  async function describe(object: string): Promise<ObjectSchema> {
    let schema = schemas.get(object);
    if (!schema) {
      schema = guarded(async (connection) => {
        const described = await connection.sobject(soqlIdentifier(object)).describe();
        const fields = new Map<string, FieldSchema>();
        for (const field of described.fields) {
          fields.set(field.name, {
            name: field.name,
            type: field.type,
            length: field.length || undefined,
            required: !field.nillable && field.createable && !field.defaultedOnCreate,
            createable: field.createable,
            updateable: field.updateable,
            externalId: Boolean(field.externalId),
            picklistValues: field.picklistValues?.length ? field.picklistValues.filter((value) => value.active).map((value) => value.value) : undefined,
            restrictedPicklist: Boolean(field.restrictedPicklist),
            referenceTo: field.referenceTo?.length ? field.referenceTo : undefined,
            relationshipName: field.relationshipName ?? undefined,
            unique: Boolean(field.unique),
          });
        }
        return { name: described.name, fields };
      });
      schemas.set(object, schema);
      schema.catch(() => schemas.delete(object));
    }
    return schema;
  }

  /**
   * sObject Collections, 200 records a call; the signal is looked at before each call. Rows of a call
   * that Salesforce could not lock are sent again (only they) before the next call.
   */
  async function collections(
    items: UpsertItem[],
    signal: AbortSignal | undefined,
    send: (connection: Connection, records: CrmRecord[]) => Promise<unknown>,
    createdDefault?: boolean,
    toRecord: (item: UpsertItem) => CrmRecord = (item) => ({ ...item.fields, [item.externalIdField]: item.externalId, ...(item.crmId ? { Id: item.crmId } : {}) }),
  ): Promise<UpsertResult[]> {
    const sendOnce = (part: UpsertItem[]) => collectionsOnce(part, signal, send, createdDefault, toRecord);
    const results: UpsertResult[] = [];
    for (let start = 0; start < items.length; start += COLLECTION_SIZE) {
      const chunk = items.slice(start, start + COLLECTION_SIZE);
      results.push(...(await retryLocked(chunk, await sendOnce(chunk), sendOnce, signal)));
      stats.collectionRecords += chunk.length;
    }
    return results;
  }

  /** One pass of sObject Collections calls over `items`, nothing retried per record. */
  async function collectionsOnce(
    items: UpsertItem[],
    signal: AbortSignal | undefined,
    send: (connection: Connection, records: CrmRecord[]) => Promise<unknown>,
    createdDefault: boolean | undefined,
    toRecord: (item: UpsertItem) => CrmRecord,
  ): Promise<UpsertResult[]> {
    const results: UpsertResult[] = [];
    for (let start = 0; start < items.length; start += COLLECTION_SIZE) {
      if (signal?.aborted) throw cancelledError();
      const chunk = items.slice(start, start + COLLECTION_SIZE);
      const records = chunk.map(toRecord);
      const saved = (await guarded((connection) => send(connection, records))) as SaveResult[];
      chunk.forEach((item, index) => results.push(toResult(item, saved[index], createdDefault)));
    }
    return results;
  }

  async function upsertByExternalId(object: string, items: UpsertItem[], options: UpsertOptions): Promise<UpsertResult[]> {
    if (items.length === 0) return [];
    const externalIdField = items[0]!.externalIdField;
    const results =
      items.length >= bulkThreshold || options.bulkJob?.resumeId
        ? await bulkWrite(object, { operation: 'upsert', field: externalIdField }, items, options)
        : await collections(items, options.signal, upsertSend(object, externalIdField));
    // A record Salesforce holds already, refused for its create-only fields (a lost link): once more without them (create-only-retry.ts).
    return resendWithoutCreateOnly(items, results, () => describe(object), (again) => collections(again, options.signal, upsertSend(object, externalIdField)));
  }

  const upsertSend = (object: string, externalIdField: string) => (connection: Connection, records: CrmRecord[]) =>
    connection.sobject(object).upsert(records as never, externalIdField, { allOrNone: false });
  const updateSend = (object: string) => (connection: Connection, records: CrmRecord[]) => connection.sobject(object).update(records as never, { allOrNone: false });

  async function updateById(object: string, items: UpsertItem[], options: UpsertOptions): Promise<UpsertResult[]> {
    if (items.length === 0) return [];
    // A large group of linked records (a backfill of records sellers linked to their Opportunities) is
    // one Bulk job, not a collection call per 200. Rows must name distinct records for their results
    // to be told apart: a group naming one record twice goes by collections.
    if ((items.length >= bulkThreshold || options.bulkJob?.resumeId) && new Set(items.map((item) => item.crmId)).size === items.length) {
      return bulkWrite(object, { operation: 'update', field: 'Id' }, items, options);
    }
    return collections(items, options.signal, updateSend(object), false);
  }

  /** One Bulk API 2.0 job for a large group: an upsert by external id, or an update by Id of linked records. */
  async function bulkWrite(object: string, key: BulkKey, items: UpsertItem[], options: UpsertOptions): Promise<UpsertResult[]> {
    // A parent's children side by side, so Salesforce's parallel batches do not contend for its lock
    // (results are matched to items by key, not by row).
    const rows = orderByParent(items, parentReferences(await describe(object))).map((item) => flattenForCsv({ ...item.fields, [item.externalIdField]: item.externalId, ...(key.operation === 'update' && { Id: item.crmId }) }));
    const csv = bulkCsv(bulkColumns(rows), rows);
    const outcome = await runBulkUpsert(
      {
        guarded,
        guardedOnce,
        pollIntervalMs: settings.bulkPollIntervalMs ?? 1000,
        pollTimeoutMs: settings.bulkPollTimeoutMs ?? 10 * 60_000,
        onJobCreated: () => {
          stats.bulkJobs += 1;
        },
      },
      object,
      key,
      items,
      csv,
      options,
    );
    stats.bulkRecords += items.length - outcome.notInJob.length;
    // Records of the batch the resumed job did not hold are written now, as any others would be.
    const rest = await (key.operation === 'update' ? updateById : upsertByExternalId)(object, outcome.notInJob, { ...options, bulkJob: { onCreated: options.bulkJob?.onCreated } });
    const restBySource = new Map(rest.map((result) => [result.sourceId, result]));
    const results = items.map((item, index) => outcome.results[index] ?? restBySource.get(item.sourceId)!);
    // Only the job's own rows: those written afterwards by collections were lock-retried there already.
    return resendLockedAfterJob(object, key, items, results, lockedJobRows(outcome.results, items.length), options.signal);
  }

  /**
   * A job's rows Salesforce could not lock (`locked`: their indexes) go again by sObject Collections (a
   * few, not a second job), after a backoff, and are retried there like any collection's locked rows.
   */
  async function resendLockedAfterJob(object: string, key: BulkKey, items: UpsertItem[], results: UpsertResult[], locked: number[], signal: AbortSignal | undefined): Promise<UpsertResult[]> {
    if (locked.length === 0) return results;
    try {
      await sleep(lockRetryDelay(lockRetry, 1), undefined, { signal });
    } catch (error) {
      if (signal?.aborted) throw cancelledError();
      throw error;
    }
    stats.lockRetriedRecords += locked.length;
    const again = locked.map((index) => items[index]!);
    const resent =
      key.operation === 'update'
        ? await collections(again, signal, updateSend(object), false)
        : await collections(again, signal, upsertSend(object, key.field));
    const settled = [...results];
    locked.forEach((index, k) => {
      settled[index] = resent[k]!;
    });
    return settled;
  }

  async function findWhereIn(object: string, field: string, values: string[], fields: string[] = []): Promise<CrmRecord[]> {
    const found: CrmRecord[] = [];
    const columns = [...new Set(['Id', field, ...fields])].map(soqlIdentifier).join(', ');
    const query = (slice: string[]) => `SELECT ${columns} FROM ${soqlIdentifier(object)} WHERE ${soqlIdentifier(field)} IN ${soqlIn(slice)}`;
    // The query travels in the URI, which Salesforce caps: slices by encoded length, at most 200 values (in-slices.ts); every value is escaped (soqlIn).
    for (const slice of inSlices(values, query, `${object}.${field}`)) {
      const soql = query(slice);
      const result = await guarded(async (connection) => await connection.query<CrmRecord>(soql, { autoFetch: true, maxFetch: 10_000 }));
      found.push(...result.records.map(stripAttributes));
    }
    return found;
  }

  return {
    kind: 'salesforce',
    idField: 'Id',
    stampField: 'SystemModstamp',
    stats,

    async verify() {
      const connection = await connect();
      const { userInfo } = await session!;
      await guarded((conn) => conn.limits());
      return { organizationId: userInfo.organizationId, userId: userInfo.id, instanceUrl: connection.instanceUrl };
    },

    describe,

    // Field-level security: the project's custom fields of these objects the integration user cannot see,
    // each named as not granted or as missing (field-access.ts).
    checkAccess: (objects) =>
      guarded((connection) => fieldAccessProblems(connection, objects.map((object) => ({ object, fields: SALESFORCE_CUSTOM_FIELDS.filter((field) => field.object === object).map((field) => field.name) })))),
    accessFix: fieldAccessFix,

    // Enough for a Bulk API 2.0 job when most of a batch is new (an initial sync, a backfill).
    preferredBatch: Math.max(5000, bulkThreshold),

    async upsert(object, items, options = {}) {
      soqlIdentifier(object);
      if (options.signal?.aborted) throw cancelledError();
      // Linked records are updated by Id; the rest are upserted by their external id. Results keep input order.
      const linked = items.filter((item) => item.crmId);
      const unlinked = items.filter((item) => !item.crmId);
      // One resumable job per call: when both groups are here, the upserts keep it (an update by Id
      // repeated by a retry writes the same values again; an upsert repeated could create twice).
      const byIdOptions = unlinked.length > 0 ? { ...options, bulkJob: undefined } : options;
      const [byId, byExternal] = await Promise.all([updateById(object, linked, byIdOptions), upsertByExternalId(object, unlinked, options)]);
      const bySource = new Map([...byId, ...byExternal].map((result) => [result.sourceId, result]));
      return items.map((item) => bySource.get(item.sourceId)!);
    },

    async update(object, items, options = {}) {
      soqlIdentifier(object);
      const asItems = items.map((item) => ({ sourceId: item.sourceId, crmId: item.crmId, externalIdField: 'Id', externalId: item.crmId, fields: item.fields }));
      return collections(asItems, options.signal, (connection, records) => connection.sobject(object).update(records as never, { allOrNone: false }), false, (item) => ({ ...item.fields, Id: item.crmId }));
    },

    async *changedSince(object: string, options: ChangedSinceOptions) {
      // One query per window, then its query locator (window-read.ts); each page is one request.
      const batch = (size: number) => ({ autoFetch: false, headers: { 'Sforce-Query-Options': `batchSize=${size}` } });
      type Page = { records: CrmRecord[]; done: boolean; nextRecordsUrl?: string };
      yield* readWindow(
        {
          query: (soql, size) => guarded(async (connection) => (await connection.query<CrmRecord>(soql, batch(size))) as unknown as Page),
          queryMore: (locator, size) => guarded(async (connection) => (await connection.queryMore<CrmRecord>(locator, batch(size) as never)) as unknown as Page),
        },
        object,
        options,
        lookbackMs,
      );
    },

    async getById(object, id, fields) {
      try {
        const record = await guarded((connection) => connection.sobject(soqlIdentifier(object)).retrieve(id, fields ? { fields } : {}));
        return stripAttributes(record as CrmRecord);
      } catch (error) {
        if ((error as { code?: string }).code === 'NOT_FOUND') return undefined;
        throw error;
      }
    },

    async findByExternalIds(object, externalIdField, values, fields = []) {
      const found = new Map<string, CrmRecord>();
      for (const record of await findWhereIn(object, externalIdField, values, fields)) found.set(String(record[externalIdField]), record);
      return found;
    },

    findWhereIn,

    async insert(object, items, options = {}) {
      soqlIdentifier(object);
      const asItems = items.map((item) => ({ sourceId: item.sourceId, externalIdField: 'Id', externalId: '', fields: item.fields }));
      return collections(asItems, options.signal, (connection, records) => connection.sobject(object).create(records as never, { allOrNone: false }), true, (item) => ({ ...item.fields }));
    },

    async recordUrl(crmId: string) {
      const connection = await connect();
      return `${connection.instanceUrl.replace(/\/$/, '')}/${encodeURIComponent(crmId)}`;
    },

    // A single-currency org keeps every amount in its one currency, Organization.DefaultCurrencyIsoCode
    // (a multi-currency org's Opportunities carry their own CurrencyIsoCode, so this is read only where
    // some record lacks one): docs/crm-wire-behaviour.md.
    defaultCurrency: defaultCurrencyOnce('Salesforce org', async () => {
      const result = await guarded(async (connection) => await connection.query<{ DefaultCurrencyIsoCode?: string | null }>('SELECT DefaultCurrencyIsoCode FROM Organization LIMIT 1'));
      return result.records[0]?.DefaultCurrencyIsoCode ?? undefined;
    }),

    budget(): ApiBudget {
      const usage = established?.limitInfo?.apiUsage;
      return { used: usage?.used, limit: usage?.limit, reserved: reservedShare, parkedUntil: budget.parkedUntil() };
    },
  };
}

function toResult(item: UpsertItem, result: SaveResult | undefined, createdDefault?: boolean): UpsertResult {
  if (result?.success && result.id) return { sourceId: item.sourceId, ok: true, crmId: result.id, created: result.created ?? createdDefault ?? false };
  return { sourceId: item.sourceId, ok: false, error: recordError(result?.errors) };
}

function stripAttributes(record: CrmRecord): CrmRecord {
  const { attributes: _attributes, ...rest } = record as CrmRecord & { attributes?: unknown };
  return rest;
}

/**
 * One column set for every row of a job (a field only some records have would otherwise be lost). A
 * missing value is an empty cell, which Bulk API 2.0 leaves unchanged (#N/A is what clears a field).
 */
export function bulkColumns(rows: BulkRow[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  return [...columns];
}

/** Bulk API 2.0 CSV columns: a relationship reference {Account: {Ext__c: 'x'}} becomes Account.Ext__c; null is #N/A. */
export function flattenForCsv(fields: CrmRecord): BulkRow {
  const row: BulkRow = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value === null) row[name] = '#N/A';
    else if (typeof value === 'object' && !(value instanceof Date)) {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) row[`${name}.${key}`] = String(inner);
    } else row[name] = value instanceof Date ? value.toISOString() : (value as string | number | boolean);
  }
  return row;
}
