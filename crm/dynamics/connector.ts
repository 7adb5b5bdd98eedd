// The Dynamics 365 connector (crmC): dynamics-web-api 2, unmodified, against one Dataverse environment.
// Records go out as Dataverse JSON (lookups as @odata.bind, binds.ts) in $batch requests of up to 1,000
// operations (writes.ts), upserted by the commerce id's alternate key or updated by GUID; reads are typed
// OData queries (reads.ts). Contacts are one per email, as Dynamics users keep them: a commerce contact
// whose email a contact already has becomes that contact (the first buyer's account stays its parent).
import type { CrmSettings, ConnectionSecrets } from '../../sync/connection-settings.ts';
import { CrmError, type CrmConnector, type CrmRecord, type UpsertItem, type UpsertResult } from '../connector.ts';
import { defaultCurrencyOnce } from '../default-currency.ts';
import type { DynamicsCredentials } from './auth.ts';
import { toBody } from './binds.ts';
import { createMetadata, keyProblem, refusedForInactiveKey, type TableInfo } from './metadata.ts';
import { asGuid, keySegment, ODataValueError } from './odata.ts';
import { missingPrivileges } from './privileges.ts';
import { createReader, ID, STAMP } from './reads.ts';
import { createClosedActivities } from './closed-activities.ts';
import { createStateTransitions } from './state-transitions.ts';
import { createDynamicsTransport, type TransportOptions } from './transport.ts';
import { BATCH_LIMIT, createBatchWriter, type WireOperation } from './writes.ts';

export type DynamicsSettings = Extract<CrmSettings, { kind: 'dynamics' }>;

/** Tables whose records are one per value of a column: a second commerce record with that value joins the first. */
const ONE_PER: Record<string, string> = { contact: 'emailaddress1' };

export function dynamicsCredentials(settings: Pick<DynamicsSettings, 'orgUrl' | 'authority' | 'tenantId' | 'clientId' | 'scope'>, secrets: Partial<ConnectionSecrets>): DynamicsCredentials {
  if (!secrets.crmClientSecret) throw new Error("This Dynamics connection lacks its app registration's client secret: save it again with crm-sync connect (DYNAMICS_CLIENT_SECRET)");
  return { authority: settings.authority, tenantId: settings.tenantId, clientId: settings.clientId, clientSecret: secrets.crmClientSecret, scope: settings.scope ?? `${new URL(settings.orgUrl).origin}/.default` };
}

type Pending = { item: { sourceId: string; fields: CrmRecord; crmId?: string; key?: { column: string; value: string }; references?: Record<string, string> }; mode: WireOperation['mode'] };

export function createDynamicsConnector(
  settings: Omit<DynamicsSettings, 'kind'>,
  secrets: Partial<ConnectionSecrets>,
  tuning: { lookbackSeconds?: number } = {},
  overrides: Pick<TransportOptions, 'clock' | 'wait' | 'batchTargetMs' | 'executionLimitMs'> = {},
): CrmConnector & { figures(): ReturnType<ReturnType<typeof createDynamicsTransport>['figures']> } {
  const transport = createDynamicsTransport({ orgUrl: settings.orgUrl, apiVersion: settings.apiVersion, credentials: dynamicsCredentials(settings, secrets), concurrency: settings.concurrency, timeoutMs: settings.requestTimeoutMs, ...overrides });
  const metadata = createMetadata(transport);
  const reader = createReader(transport, metadata);
  // A create whose $batch got no answer is looked for by the GUID it was sent with (writes.ts).
  const writer = createBatchWriter(transport, async (table, guids, signal) => new Set((await reader.whereIn(table.name, ID, guids, [], signal)).map((row) => String(row[ID]))));
  // Won / Lost are reached through Dataverse's close actions, never a PATCH of statecode.
  const states = createStateTransitions(transport, reader);
  // Completed and canceled tasks are read-only in Dataverse: a write that meets one leaves it as it is.
  const closedActivities = createClosedActivities(reader);
  const lookbackMs = (tuning.lookbackSeconds ?? 0) * 1000;

  /** Writes what can be written; a record whose body or key Dataverse could not take fails alone. */
  async function writeAll(table: TableInfo, pending: Pending[], signal?: AbortSignal): Promise<Map<string, UpsertResult>> {
    const results = new Map<string, UpsertResult>();
    const operations: WireOperation[] = [];
    for (const { item, mode } of pending) {
      const fail = (code: string, message: string) => results.set(item.sourceId, { sourceId: item.sourceId, ok: false, error: { code, message } });
      const body = await toBody(metadata, table, item.fields, item.references);
      if ('problem' in body) {
        fail(body.problem.code, body.problem.message);
        continue;
      }
      if (mode === 'create') {
        operations.push({ sourceId: item.sourceId, mode, data: body.data });
        continue;
      }
      if (item.crmId) {
        const guid = asGuid(item.crmId);
        if (!guid) fail('NOT_FOUND', `${JSON.stringify(item.crmId)} is not the GUID of a ${table.name} record`);
        else operations.push({ sourceId: item.sourceId, mode: 'update', segment: guid, guid, data: body.data });
        continue;
      }
      if (!item.key) {
        fail('NO_KEY', `a ${table.name} record needs a GUID or an alternate key to be written`);
        continue;
      }
      if (!table.keyColumns.has(item.key.column)) {
        const problem = keyProblem(table, item.key.column);
        fail(problem.code, problem.message);
        continue;
      }
      try {
        operations.push({ sourceId: item.sourceId, mode: 'upsert', segment: keySegment(item.key), data: body.data });
      } catch (error) {
        if (!(error instanceof ODataValueError)) throw error;
        fail('KEY_UNUSABLE', error.message);
      }
    }
    for (const result of await writer.write(table, operations, signal)) results.set(result.sourceId, result);
    // A key Dataverse no longer takes as Active: its definition is read again before the next write.
    if ([...results.values()].some((result) => !result.ok && refusedForInactiveKey(result.error.message))) metadata.forget(table.name);
    await readMissingIds(table, pending, results, signal);
    return results;
  }

  /** Upserted records whose GUID the batch answer did not carry: read by their keys, a query per 40. */
  async function readMissingIds(table: TableInfo, pending: Pending[], results: Map<string, UpsertResult>, signal?: AbortSignal) {
    const unread = pending.filter(({ item, mode }) => mode === 'upsert' && item.key && (results.get(item.sourceId) as { crmId?: string } | undefined)?.crmId === '');
    if (unread.length === 0) return;
    const column = unread[0]!.item.key!.column;
    const found = new Map((await reader.whereIn(table.name, column, unread.map(({ item }) => item.key!.value), [column], signal)).map((row) => [String(row[column]), String(row[ID])]));
    for (const { item } of unread) {
      const crmId = found.get(item.key!.value);
      results.set(item.sourceId, crmId ? { ...(results.get(item.sourceId) as UpsertResult & { ok: true }), crmId } : { sourceId: item.sourceId, ok: false, error: { code: 'NO_ANSWER', message: `Dataverse took the record but its id could not be read back by ${column}` } });
    }
  }

  /**
   * One record per value of the table's ONE_PER column (contacts: email). Each record's row, by what the
   * environment holds with its value:
   * - its own row (keyed by its commerce id, or the GUID it is linked to and that row is keyed by it): written as it is;
   * - a row another commerce record made: it joins that row (the row keeps its key and its lookups, so
   *   the contact stays on the first buyer's account; later writes by the link keep them too);
   * - only rows a person made: the first is adopted (takes the commerce key);
   * - none: made, and a later record of this call with the same value joins it.
   */
  async function upsertOnePer(table: TableInfo, column: string, items: UpsertItem[], signal?: AbortSignal): Promise<UpsertResult[]> {
    const valueOf = (item: UpsertItem) => (typeof item.fields[column] === 'string' && item.fields[column] ? (item.fields[column] as string).toLowerCase() : undefined);
    const keyColumn = items[0]!.externalIdField;
    const values = [...new Set(items.map(valueOf).filter((value): value is string => Boolean(value)))];
    const rowsOf = new Map<string, CrmRecord[]>();
    for (const row of values.length ? await reader.whereIn(table.name, column, values, [column, keyColumn], signal) : []) {
      const value = String(row[column] ?? '').toLowerCase();
      rowsOf.set(value, [...(rowsOf.get(value) ?? []), row]);
    }
    const withoutLookups = (fields: CrmRecord) => Object.fromEntries(Object.entries(fields).filter(([name]) => !table.navigation.has(name)));
    const byKey = (item: UpsertItem): Pending => ({ item: { ...item, key: { column: item.externalIdField, value: item.externalId } }, mode: 'upsert' });
    const first: Pending[] = [];
    const later: UpsertItem[] = [];
    const made = new Set<string>();
    for (const item of items) {
      const value = valueOf(item);
      const rows = value ? (rowsOf.get(value) ?? []) : [];
      if (item.crmId) {
        // Linked: a row keyed by another commerce record is that record's; this one leaves its lookups alone.
        const linked = rows.find((row) => row[ID] === item.crmId);
        const othersRow = linked && linked[keyColumn] && linked[keyColumn] !== item.externalId;
        first.push({ item: othersRow ? { ...item, fields: withoutLookups(item.fields) } : item, mode: 'update' });
      } else if (!value || rows.some((row) => row[keyColumn] === item.externalId)) {
        first.push(byKey(item));
      } else if (made.has(value)) {
        later.push(item);
      } else if (rows.some((row) => row[keyColumn])) {
        const owner = rows.find((row) => row[keyColumn])!;
        first.push({ item: { ...item, crmId: String(owner[ID]), fields: withoutLookups(item.fields) }, mode: 'update' });
      } else if (rows.length) {
        made.add(value);
        first.push({ item: { ...item, crmId: String(rows[0]![ID]), fields: { ...item.fields, [keyColumn]: item.externalId } }, mode: 'update' });
      } else {
        made.add(value);
        first.push(byKey(item));
      }
    }
    const results = await writeAll(table, first, signal);
    if (later.length) {
      // The same value twice in one call: the later records join the row the first one made or adopted.
      const rowFor = new Map<string, string>();
      for (const pending of first) {
        const value = valueOf(pending.item as UpsertItem);
        const result = results.get(pending.item.sourceId);
        if (value && made.has(value) && result?.ok && !rowFor.has(value)) rowFor.set(value, result.crmId);
      }
      const joining: Pending[] = [];
      for (const item of later) {
        const crmId = rowFor.get(valueOf(item)!);
        if (crmId) joining.push({ item: { ...item, crmId, fields: withoutLookups(item.fields) }, mode: 'update' });
        else results.set(item.sourceId, { sourceId: item.sourceId, ok: false, error: { code: 'DUPLICATE_PENDING', message: `another record with ${column} ${String(item.fields[column])} was not written; this one waits for it` } });
      }
      for (const [sourceId, result] of await writeAll(table, joining, signal)) results.set(sourceId, { ...result, ...(result.ok && { created: false }) });
    }
    return items.map((item) => results.get(item.sourceId)!);
  }

  return {
    kind: 'dynamics',
    idField: ID,
    stampField: STAMP,
    // Five $batches' worth per gather: the retries of stale ids and the second pass for one-per
    // records (contacts by email) cost a part-filled $batch per gather; with one $batch a gather a
    // backfill spent 1.62 times the fewest $batch calls its volume allows (issue #14's target is 1.05).
    preferredBatch: 5 * BATCH_LIMIT,
    // Updates by GUID and upserts by key share a $batch.
    mixedWrites: true,
    figures: () => transport.figures(),

    async verify() {
      const whoAmI = (await transport.call('asking who the app is (WhoAmI)', (client) => client.callFunction({ name: 'WhoAmI' }))) as { UserId?: string; OrganizationId?: string };
      return { organizationId: whoAmI.OrganizationId ? asGuid(whoAmI.OrganizationId) : undefined, userId: whoAmI.UserId ? asGuid(whoAmI.UserId) : undefined, instanceUrl: transport.orgUrl };
    },
    describe: (object) => metadata.table(object),
    checkAccess: (objects) => missingPrivileges(transport, objects),
    accessFix: (name) => `give the application user the security role named, then crm-sync doctor again (crm-sync setup ${name} checks it too)`,

    async upsert(object, items, options = {}) {
      if (items.length === 0) return [];
      // Records without a link are written by their key: the table is read again if that key was not Active.
      const unlinked = items.find((item) => !item.crmId);
      const table = unlinked ? await metadata.tableForKey(object, unlinked.externalIdField) : await metadata.table(object);
      const column = ONE_PER[object];
      if (column && table.fields.has(column)) return upsertOnePer(table, column, items, options.signal);
      const { writable, left, states: known } = await closedActivities.split(table.name, items, options.signal);
      const plan = await states.prepare(table, writable, options.signal, known);
      const results = await writeAll(table, plan.items.map((item) => ({ item: { ...item, key: { column: item.externalIdField, value: item.externalId } }, mode: item.crmId ? 'update' : 'upsert' })), options.signal);
      await states.finish(table, plan, results, options.signal);
      for (const result of left) results.set(result.sourceId, result);
      return items.map((item) => results.get(item.sourceId)!);
    },
    async update(object, items, options = {}) {
      if (items.length === 0) return [];
      const table = await metadata.table(object);
      const { writable, left, states: known } = await closedActivities.split(table.name, items, options.signal);
      const plan = await states.prepare(table, writable, options.signal, known);
      const results = await writeAll(table, plan.items.map((item) => ({ item, mode: 'update' })), options.signal);
      await states.finish(table, plan, results, options.signal);
      for (const result of left) results.set(result.sourceId, result);
      return items.map((item) => results.get(item.sourceId)!);
    },
    async insert(object, items, options = {}) {
      if (items.length === 0) return [];
      const table = await metadata.table(object);
      const results = await writeAll(table, items.map((item) => ({ item, mode: 'create' })), options.signal);
      return items.map((item) => results.get(item.sourceId)!);
    },

    changedSince(object, options) {
      const start = options.afterId === undefined ? new Date(options.since.getTime() - lookbackMs) : options.since;
      return reader.changedSince(object, { start, afterId: options.afterId, until: options.until, fields: options.fields, pageSize: options.pageSize, narrow: options.narrow });
    },
    getById: (object, id, fields = []) => reader.byId(object, id, fields),
    async existingIds(object, ids, signal) {
      const guids = ids.map(asGuid);
      const found = new Set((await reader.whereIn(object, ID, guids.filter((guid): guid is string => Boolean(guid)), [], signal)).map((row) => String(row[ID])));
      return new Set(ids.filter((_, index) => guids[index] && found.has(guids[index])));
    },
    async findByExternalIds(object, externalIdField, values, fields = []) {
      const found = new Map<string, CrmRecord>();
      for (const record of await reader.whereIn(object, externalIdField, values, fields)) found.set(String(record[externalIdField]), record);
      return found;
    },
    findWhereIn: (object, field, values, fields = []) => (values.length ? reader.whereIn(object, field, values, fields) : Promise.resolve([])),
    budget: () => ({ reserved: 0 }),
    // An opportunity without a transaction currency is in the organization's base currency: the
    // organization row's basecurrencyid names a transactioncurrency row, whose isocurrencycode it is
    // (docs/crm-wire-behaviour.md). Two small reads, once for the connector's life.
    defaultCurrency: defaultCurrencyOnce('Dynamics 365 organization', async () => {
      const organizations = (await transport.call("reading the organization's base currency", (client) => client.retrieveMultiple({ collection: 'organizations', select: ['_basecurrencyid_value'] }))) as { value?: { _basecurrencyid_value?: string | null }[] };
      const currencyId = organizations.value?.[0]?._basecurrencyid_value;
      if (!currencyId) return undefined;
      const currency = (await transport.call("reading the organization's base currency", (client) => client.retrieve({ collection: 'transactioncurrencies', key: currencyId, select: ['isocurrencycode'] }))) as { isocurrencycode?: string | null };
      return currency.isocurrencycode ?? undefined;
    }),

    async recordUrl(crmId, object = 'opportunity') {
      // The address names the table's logical name (etn): an entitlement's link opens the entitlement, not an opportunity.
      const guid = asGuid(crmId);
      if (!guid) throw new CrmError(`${JSON.stringify(crmId)} is not a Dataverse record id`, { code: 'NOT_FOUND', retryable: false });
      return `${transport.orgUrl}main.aspx?pagetype=entityrecord&etn=${encodeURIComponent(object)}&id=${guid}`;
    },
  };
}
