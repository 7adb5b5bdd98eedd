// An in-memory CRM behind the CrmConnector interface, for activity tests that are about the sync's own
// logic (cursors, hashes, dead letters), not about a CRM's wire. It upserts by external id or Id,
// rejects a Name longer than its limit the way Salesforce does, and counts its write calls.
import type { CrmConnector, CrmRecord, FieldSchema, ObjectSchema, UpsertItem, UpsertResult } from '../../crm/connector.ts';
import type { EntityMapping } from '../../mappings/types.ts';

export function createMemoryCrm(mappings: Record<string, EntityMapping<any, any>>, options: { nameLimit?: number } = {}) {
  const objects = new Map<string, Map<string, CrmRecord>>();
  let nextId = 1;
  const stats = { writeCalls: 0, written: 0 };
  const table = (object: string) => {
    if (!objects.has(object)) objects.set(object, new Map());
    return objects.get(object)!;
  };

  const connector: CrmConnector = {
    kind: 'salesforce',
    preferredBatch: 0, // one commerce page at a time: the activity tests count pages
    async verify() {
      return { organizationId: '00Dmemory' };
    },
    async describe(object) {
      const mapping = Object.values(mappings).find((m) => m.object === object)!;
      const field = (name: string, extra: Partial<FieldSchema> = {}): [string, FieldSchema] => [name, { name, type: 'string', required: false, createable: true, updateable: true, externalId: false, ...extra }];
      const fields = new Map<string, FieldSchema>([
        field(mapping.externalIdField, { externalId: true }),
        ...Object.keys(mapping.describe).map((name) => (name === 'Account' || name.endsWith('__r') ? field(`${name}Id`, { relationshipName: name }) : field(name))),
      ]);
      return { name: object, fields } satisfies ObjectSchema;
    },
    async upsert(object, items: UpsertItem[]): Promise<UpsertResult[]> {
      stats.writeCalls += 1;
      return items.map((item) => {
        const name = item.fields.Name ?? item.fields.LastName;
        if (typeof name === 'string' && name.length > (options.nameLimit ?? 120)) {
          return { sourceId: item.sourceId, ok: false, error: { code: 'STRING_TOO_LONG', message: `Name: data value too large: ${name.slice(0, 20)}... (max length=${options.nameLimit ?? 120})`, fields: ['Name'] } };
        }
        const rows = table(object);
        const existing = item.crmId ? rows.get(item.crmId) : [...rows.values()].find((row) => row[item.externalIdField] === item.externalId);
        const id = (existing?.Id as string) ?? `mem${String(nextId++).padStart(12, '0')}`;
        rows.set(id, { ...existing, ...item.fields, [item.externalIdField]: item.externalId, Id: id });
        stats.written += 1;
        return { sourceId: item.sourceId, ok: true, crmId: id, created: !existing };
      });
    },
    async *changedSince() {},
    async getById(object, id) {
      return table(object).get(id);
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

/** A stored connection from a commerce sandbox to an in-memory CRM, and the runtime the activities use. */
export async function memoryConnection(
  pool: import('pg').Pool,
  commerce: import('../../sandbox/commerce/index.ts').CommerceSandbox,
  options: { name: string; pageSize?: number; crm: ReturnType<typeof createMemoryCrm>['connector']; minRetryDelayMs?: number },
) {
  const { connectionSettingsSchema } = await import('../../sync/connection-settings.ts');
  const { createConnectionStore } = await import('../../store/connections.ts');
  const { SecretBox } = await import('../../store/secret-box.ts');
  const { createCommerceClient } = await import('../../commerce/index.ts');
  const { SALESFORCE_MAPPINGS } = await import('../../mappings/salesforce/index.ts');
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
    crm: { loginUrl: 'https://memory.example', clientId: 'memory' },
    schedule: { pageSize: options.pageSize ?? 1000, lookbackSeconds: 0 },
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
