// An in-memory CRM behind the CrmConnector interface, for activity tests that are about the sync's own
// logic (cursors, hashes, dead letters), not about a CRM's wire. It stands for the same org as the
// Salesforce sandbox: its describe is the fixed schema of salesforce-org-schema.ts (a mapping field the
// org lacks fails the mapping check, as against the real org), and a write is refused per record the
// way Salesforce refuses it: a parent named by external id that is not there, a text too long, a
// required field missing, an update by an Id it does not have. It counts its write calls.
import { CrmError, type CrmConnector, type CrmRecord, type CrmRecordError, type UpsertItem, type UpsertResult } from '../../crm/connector.ts';
import { describeOrgObject, orgObject, type OrgField } from './salesforce-org-schema.ts';

/** `_formerMappings` is not read any more: the schema is the org's, not the mappings'. */
export function createMemoryCrm(_formerMappings?: unknown) {
  const objects = new Map<string, Map<string, CrmRecord>>();
  let nextId = 1;
  const stats = { writeCalls: 0, written: 0 };
  const table = (object: string) => {
    if (!objects.has(object)) objects.set(object, new Map());
    return objects.get(object)!;
  };
  const findByKey = (object: string, field: string, value: unknown) => [...table(object).values()].find((row) => row[field] === value);

  /** Salesforce's per-record answer to `item`, or the row to store. */
  function save(object: string, item: UpsertItem): { error: CrmRecordError } | { row: CrmRecord; created: boolean } {
    const { keyPrefix, fields } = orgObject(object);
    const existing = item.crmId ? table(object).get(item.crmId) : findByKey(object, item.externalIdField, item.externalId);
    if (item.crmId && !existing) {
      return item.crmId.startsWith(keyPrefix) && item.crmId.length === 18
        ? { error: { code: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id' } }
        : { error: { code: 'MALFORMED_ID', message: `Record ID: id value of incorrect type: ${item.crmId}`, fields: ['Id'] } };
    }
    const changes: CrmRecord = { [item.externalIdField]: item.externalId };
    for (const [name, value] of Object.entries(item.fields)) {
      const reference = fields.find((field) => field.relationshipName === name);
      if (!reference) {
        changes[name] = value;
        continue;
      }
      // `Account__r: {Commerce_Buyer_Id__c: 'b-1'}`: Salesforce looks the parent up by that external id.
      if (value === null) {
        changes[reference.name] = null;
        continue;
      }
      const [[keyField, keyValue]] = Object.entries(value as Record<string, unknown>) as [[string, unknown]];
      const parent = findByKey(reference.referenceTo!, keyField, keyValue);
      if (!parent) return { error: { code: 'INVALID_FIELD', message: `Foreign key external ID: ${String(keyValue)} not found for field ${keyField} in entity ${reference.referenceTo}`, fields: [] } };
      changes[reference.name] = parent.Id;
      changes[name] = value; // what a query of the relationship would show
    }
    const problem = fieldProblem(fields, changes, !existing);
    if (problem) return { error: problem };
    const id = (existing?.Id as string | undefined) ?? `${keyPrefix}MEM${String(nextId++).padStart(12, '0')}`;
    return { row: { ...existing, ...changes, Id: id }, created: !existing };
  }

  const connector: CrmConnector = {
    kind: 'salesforce',
    idField: 'Id',
    stampField: 'SystemModstamp',
    preferredBatch: 0, // one commerce page at a time: the activity tests count pages
    async verify() {
      return { organizationId: '00Dmemory' };
    },
    async describe(object) {
      return describeOrgObject(object);
    },
    async upsert(object, items: UpsertItem[]): Promise<UpsertResult[]> {
      stats.writeCalls += 1;
      const { fields } = orgObject(object);
      // Salesforce refuses the whole call when a field does not exist.
      for (const item of items) {
        for (const name of Object.keys(item.fields)) {
          if (!fields.some((field) => field.name === name || field.relationshipName === name)) {
            throw new CrmError(`No such column '${name}' on sobject of type ${object}`, { code: 'INVALID_FIELD', retryable: false });
          }
        }
      }
      return items.map((item) => {
        const saved = save(object, item);
        if ('error' in saved) return { sourceId: item.sourceId, ok: false, error: saved.error };
        table(object).set(saved.row.Id as string, saved.row);
        stats.written += 1;
        return { sourceId: item.sourceId, ok: true, crmId: saved.row.Id as string, created: saved.created };
      });
    },
    async update(object, items) {
      stats.writeCalls += 1;
      return items.map((item) => {
        const row = table(object).get(item.crmId);
        if (!row) return { sourceId: item.sourceId, ok: false, error: { code: 'ENTITY_IS_DELETED', message: 'entity is deleted' } };
        table(object).set(item.crmId, { ...row, ...item.fields });
        return { sourceId: item.sourceId, ok: true, crmId: item.crmId, created: false };
      });
    },
    async *changedSince() {},
    async getById(object, id) {
      return table(object).get(id);
    },
    async findWhereIn(object, field, values) {
      return [...table(object).values()].filter((row) => values.includes(String(row[field])));
    },
    async insert(object, items) {
      stats.writeCalls += 1;
      return items.map((item) => {
        const id = `mem${String(table(object).size + 1).padStart(12, '0')}${object.length}`;
        table(object).set(id, { ...item.fields, Id: id });
        return { sourceId: item.sourceId, ok: true, crmId: id, created: true };
      });
    },
    async findByExternalIds(object, field, values) {
      return new Map([...table(object).values()].filter((row) => values.includes(String(row[field]))).map((row) => [String(row[field]), row]));
    },
    budget() {
      return { reserved: 0 };
    },
    async recordUrl(id) {
      return `https://memory.example/${id}`;
    },
  };
  return { connector, objects: (object: string) => [...table(object).values()], stats };
}

/** Salesforce's per-record checks, with its codes and texts (fields named by label). */
function fieldProblem(fields: OrgField[], changes: CrmRecord, creating: boolean): CrmRecordError | undefined {
  const blank = (value: unknown) => value === undefined || value === null || value === '';
  const missing = fields.filter((field) => field.required && (creating ? blank(changes[field.name]) : field.name in changes && blank(changes[field.name])));
  if (missing.length > 0) return { code: 'REQUIRED_FIELD_MISSING', message: `Required fields are missing: [${missing.map((field) => field.name).join(', ')}]`, fields: missing.map((field) => field.name) };
  for (const field of fields) {
    const value = changes[field.name];
    if (typeof value !== 'string' || field.type === 'reference') continue;
    if (field.length && value.length > field.length) return { code: 'STRING_TOO_LONG', message: `${field.label}: data value too large: ${value} (max length=${field.length})`, fields: [field.name] };
    if (field.restrictedPicklist && !field.picklistValues!.includes(value)) return { code: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: `${field.label}: bad value for restricted picklist field: ${value}`, fields: [field.name] };
  }
  return undefined;
}

/**
 * A stored connection from a commerce sandbox to an in-memory CRM, and the runtime the activities use.
 * The look-back is production's default (600 s) unless a test about cursor positions asks for another.
 */
export async function memoryConnection(
  pool: import('pg').Pool,
  commerce: import('../../sandbox/commerce/index.ts').CommerceSandbox,
  options: { name: string; pageSize?: number; crm: ReturnType<typeof createMemoryCrm>['connector']; minRetryDelayMs?: number; lookbackSeconds?: number },
) {
  const { connectionSettingsSchema } = await import('../../sync/connection-settings.ts');
  const { createConnectionStore } = await import('../../store/connections.ts');
  const { SecretBox } = await import('../../store/secret-box.ts');
  const { createCommerceClient } = await import('../../commerce/index.ts');
  const { SALESFORCE_MAPPINGS } = await import('../../mappings/salesforce/index.ts');
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
    crm: { loginUrl: 'https://memory.example', clientId: 'memory' },
    schedule: { pageSize: options.pageSize ?? 1000, ...(options.lookbackSeconds === undefined ? {} : { lookbackSeconds: options.lookbackSeconds }) },
  });
  const { id } = await createConnectionStore(pool, new SecretBox(Buffer.alloc(32, 4))).create({
    name: options.name,
    crmKind: 'salesforce',
    settings,
    secrets: { commerceClientSecret: commerce.clientSecret, crmClientSecret: 'unused' },
  });
  const runtime = {
    id, name: options.name, settings, mappings: SALESFORCE_MAPPINGS, crm: options.crm,
    commerce: createCommerceClient({ baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, clientSecret: commerce.clientSecret, minRetryDelayMs: options.minRetryDelayMs, maxRetryDelayMs: options.minRetryDelayMs ? 50 : undefined }),
  };
  return { connectionId: id, settings, runtime };
}

/** One full pass of an entity through the page activity, as the workflow runs it; the totals. */
export async function fullPass(activities: ReturnType<typeof import('../../activities/sync.ts').createSyncActivities>, connectionId: string, entity: import('../../mappings/types.ts').Entity) {
  const started = await activities.startSync({ connectionId, entities: [entity] });
  let cursor = started.starts[entity]!;
  const totals = { pages: 0, records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0 };
  for (;;) {
    const outcome = await activities.syncEntityPage({ connectionId, entity, cursor, until: started.until, pageSize: started.pageSize, advanceStoredCursor: true });
    totals.pages += 1;
    for (const key of ['records', 'created', 'updated', 'unchanged', 'failed', 'writeBacks'] as const) totals[key] += outcome[key];
    if (outcome.done) return totals;
    cursor = outcome.nextCursor;
  }
}
