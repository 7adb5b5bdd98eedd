// The Salesforce connector on jsforce 3. Writes: sObject Collections in chunks of 200 (allOrNone
// false, one result per record) or, for large batches, one Bulk API 2.0 ingest job; records already
// linked are updated by Id. Reads: SystemModstamp windows with an inclusive start and a look-back,
// paged with queryMore. Budget: Sforce-Limit-Info is tracked and a share of the daily limit reserved.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from 'jsforce';
import pRetry, { AbortError } from 'p-retry';
import { CrmBudgetExhaustedError, CrmError, type ApiBudget, type ChangedSinceOptions, type CrmConnector, type CrmRecord, type FieldSchema, type ObjectSchema, type UpsertItem, type UpsertResult } from '../connector.ts';
import { bulkRecordError, callError, recordError } from './errors.ts';
import { openSalesforceSession, type SalesforceSecrets, type SalesforceSettings } from './session.ts';
import { soqlDateTime, soqlIdentifier, soqlIn } from './soql.ts';

type SaveResult = { id?: string; success: boolean; created?: boolean; errors?: { statusCode?: string; message?: string; fields?: string[] }[] };

export type SalesforceConnector = CrmConnector & {
  /** How many records went through Bulk API 2.0 and how many jobs: for reports and tests. */
  readonly stats: { collectionRecords: number; bulkJobs: number; bulkRecords: number };
};

export function createSalesforceConnector(settings: SalesforceSettings, secrets: SalesforceSecrets, clock: () => Date = () => new Date()): SalesforceConnector {
  const bulkThreshold = settings.bulkThreshold ?? 2000;
  const reservedShare = settings.reservedShare ?? 0.2;
  const lookbackMs = (settings.lookbackSeconds ?? 600) * 1000;
  const parkSeconds = settings.parkSeconds ?? 3600;
  let session: ReturnType<typeof openSalesforceSession> | undefined;
  let parkedUntil: Date | undefined;
  const schemas = new Map<string, Promise<ObjectSchema>>();
  const stats = { collectionRecords: 0, bulkJobs: 0, bulkRecords: 0 };

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
    const now = clock();
    if (parkedUntil && parkedUntil > now) {
      throw new CrmBudgetExhaustedError(`This Salesforce connection is parked until ${parkedUntil.toISOString()}: the daily API limit ran out`, parkedUntil);
    }
    try {
      const connection = await connect();
      const usage = connection.limitInfo?.apiUsage;
      if (usage && usage.limit > 0 && usage.used >= usage.limit * (1 - reservedShare)) {
        parkedUntil = new Date(now.getTime() + parkSeconds * 1000);
        throw new CrmBudgetExhaustedError(
          `Salesforce API usage is ${usage.used} of ${usage.limit}; the last ${Math.round(reservedShare * 100)}% is reserved for the org's other work, so syncing waits until ${parkedUntil.toISOString()}`,
          parkedUntil,
        );
      }
      return await work(connection);
    } catch (error) {
      if (error instanceof CrmBudgetExhaustedError || error instanceof CrmError) throw error;
      const translated = callError(error, parkSeconds, clock());
      if (translated instanceof CrmBudgetExhaustedError) parkedUntil = translated.resetsAt;
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
          });
        }
        return { name: described.name, fields };
      });
      schemas.set(object, schema);
      schema.catch(() => schemas.delete(object));
    }
    return schema;
  }

  async function upsertByExternalId(object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
    if (items.length === 0) return [];
    const externalIdField = items[0]!.externalIdField;
    if (items.length >= bulkThreshold) return bulkUpsert(object, externalIdField, items);
    const records = items.map((item) => ({ ...item.fields, [externalIdField]: item.externalId }));
    const results = (await guarded((connection) =>
      connection.sobject(object).upsert(records as never, externalIdField, { allOrNone: false, allowRecursive: true }),
    )) as unknown as SaveResult[];
    stats.collectionRecords += items.length;
    return items.map((item, index) => toResult(item, results[index]));
  }

  async function updateById(object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
    if (items.length === 0) return [];
    const records = items.map((item) => ({ ...item.fields, [item.externalIdField]: item.externalId, Id: item.crmId }));
    const results = (await guarded((connection) => connection.sobject(object).update(records as never, { allOrNone: false, allowRecursive: true }))) as unknown as SaveResult[];
    stats.collectionRecords += items.length;
    return items.map((item, index) => toResult(item, results[index], false));
  }

  async function bulkUpsert(object: string, externalIdField: string, items: UpsertItem[]): Promise<UpsertResult[]> {
    const rows = bulkRows(items.map((item) => flattenForCsv({ ...item.fields, [externalIdField]: item.externalId })));
    const results = await guarded((connection) =>
      connection.bulk2.loadAndWaitForResults({
        object,
        operation: 'upsert',
        externalIdFieldName: externalIdField,
        input: rows as never,
        pollInterval: settings.bulkPollIntervalMs ?? 1000,
        pollTimeout: settings.bulkPollTimeoutMs ?? 10 * 60_000,
      }),
    );
    stats.bulkJobs += 1;
    stats.bulkRecords += items.length;
    const byExternalId = new Map<string, UpsertResult>();
    for (const row of results.successfulResults as unknown as Record<string, string>[]) {
      const externalId = row[externalIdField]!;
      byExternalId.set(externalId, { sourceId: '', ok: true, crmId: row.sf__Id!, created: row.sf__Created === 'true' });
    }
    for (const row of results.failedResults as unknown as Record<string, string>[]) {
      byExternalId.set(row[externalIdField]!, { sourceId: '', ok: false, error: bulkRecordError(row.sf__Error ?? '') });
    }
    return items.map((item) => {
      const result = byExternalId.get(item.externalId);
      if (!result) return { sourceId: item.sourceId, ok: false, error: { code: 'UNPROCESSED', message: 'Bulk API 2.0 did not process this record; it will be retried' } };
      return { ...result, sourceId: item.sourceId };
    });
  }

  return {
    kind: 'salesforce',
    stats,

    async verify() {
      const connection = await connect();
      const { userInfo } = await session!;
      await guarded((conn) => conn.limits());
      return { organizationId: userInfo.organizationId, userId: userInfo.id, instanceUrl: connection.instanceUrl };
    },

    describe,

    // Enough for a Bulk API 2.0 job when most of a batch is new (an initial sync, a backfill).
    preferredBatch: Math.max(5000, bulkThreshold),

    async upsert(object, items) {
      soqlIdentifier(object);
      // Linked records are updated by Id; the rest are upserted by their external id. Results keep input order.
      const linked = items.filter((item) => item.crmId);
      const unlinked = items.filter((item) => !item.crmId);
      const [byId, byExternal] = await Promise.all([updateById(object, linked), upsertByExternalId(object, unlinked)]);
      const bySource = new Map([...byId, ...byExternal].map((result) => [result.sourceId, result]));
      return items.map((item) => bySource.get(item.sourceId)!);
    },

    async *changedSince(object: string, options: ChangedSinceOptions) {
      const fields = [...new Set(['Id', 'SystemModstamp', ...options.fields])].map(soqlIdentifier).join(', ');
      const since = new Date(options.since.getTime() - lookbackMs);
      const soql = `SELECT ${fields} FROM ${soqlIdentifier(object)} WHERE SystemModstamp >= ${soqlDateTime(since)} ORDER BY SystemModstamp ASC, Id ASC`;
      type Page = { records: CrmRecord[]; done: boolean; nextRecordsUrl?: string };
      const batchSize = { headers: { 'Sforce-Query-Options': `batchSize=${options.pageSize ?? 2000}` } };
      // One page per request: the query is not auto-fetched; queryMore follows the locator.
      let page: Page = await guarded(async (connection) => (await connection.query<CrmRecord>(soql, { autoFetch: false, ...batchSize })) as unknown as Page);
      for (;;) {
        if (page.records.length > 0) yield page.records.map(stripAttributes);
        if (page.done || !page.nextRecordsUrl) return;
        const locator = page.nextRecordsUrl;
        page = await guarded(async (connection) => (await connection.queryMore<CrmRecord>(locator, { autoFetch: false, ...batchSize } as never)) as unknown as Page);
      }
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
      // SOQL statements are limited in length: look up in slices.
      for (let start = 0; start < values.length; start += 200) {
        const slice = values.slice(start, start + 200);
        const columns = [...new Set(['Id', externalIdField, ...fields])].map(soqlIdentifier).join(', ');
        const soql = `SELECT ${columns} FROM ${soqlIdentifier(object)} WHERE ${soqlIdentifier(externalIdField)} IN ${soqlIn(slice)}`;
        const result = await guarded(async (connection) => await connection.query<CrmRecord>(soql, { autoFetch: true, maxFetch: slice.length }));
        for (const record of result.records) found.set(String(record[externalIdField]), stripAttributes(record));
      }
      return found;
    },

    async recordUrl(crmId: string) {
      const connection = await connect();
      return `${connection.instanceUrl.replace(/\/$/, '')}/${encodeURIComponent(crmId)}`;
    },

    budget(): ApiBudget {
      const usage = established?.limitInfo?.apiUsage;
      return { used: usage?.used, limit: usage?.limit, reserved: reservedShare, parkedUntil: parkedUntil && parkedUntil > clock() ? parkedUntil : undefined };
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
 * One column set for every row of a job: jsforce writes the CSV header from the first row, so a field
 * the first record lacks would be dropped for all. A missing value is an empty cell, which Bulk API 2.0
 * leaves unchanged (#N/A is what clears a field).
 */
export function bulkRows(rows: Record<string, string | number | boolean>[]): Record<string, string | number | boolean>[] {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? ''])));
}

/** Bulk API 2.0 CSV columns: a relationship reference {Account: {Ext__c: 'x'}} becomes Account.Ext__c; null is #N/A. */
export function flattenForCsv(fields: CrmRecord): Record<string, string | number | boolean> {
  const row: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value === null) row[name] = '#N/A';
    else if (typeof value === 'object' && !(value instanceof Date)) {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) row[`${name}.${key}`] = String(inner);
    } else row[name] = value instanceof Date ? value.toISOString() : (value as string | number | boolean);
  }
  return row;
}
