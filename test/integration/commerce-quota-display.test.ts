// The commerce organization's quota beside the CRM's budget (issue #29): `crm-sync connections` (table
// and JSON), the console's connection list and page, and /metrics, against a real PostgreSQL and a
// commerce sandbox whose organization has used 30 of its 600 calls a day. Reading the quota for display
// is not counted against it (A20), so the figure stays 30 until a client of the sync calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionPage, connectionsPage } from '../../admin/console/pages.ts';
import { createCommerceClient } from '../../commerce/index.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { liveCommerceQuotas } from '../../ops/commerce-quota.ts';
import { readConnectionHealth } from '../../ops/connection-health.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox } from '../../sandbox/commerce/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { cliEnv, cliOutcome } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const key = Buffer.alloc(32, 9);
let database: TestDatabase;
let sandbox: CommerceSandbox;
let connectionId: string;
const store = () => createConnectionStore(database.pool, new SecretBox(key));

beforeAll(async () => {
  database = await createTestDatabase();
  sandbox = await startCommerceSandbox({ organizationId: 'org-quota', entitlements: 10 });
  const probe = probeSandbox(sandbox);
  expect((await probe.control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: 600, period: 'DAY' }] })).status).toBe(200);
  for (let call = 0; call < 30; call++) expect((await probe.api('/org/org-quota/offer')).status).toBe(200);
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, organizationId: sandbox.organizationId },
    crm: { loginUrl: 'https://login.salesforce.invalid', clientId: 'sf-client' },
  });
  ({ id: connectionId } = await store().create({ name: 'quota-acme', crmKind: 'salesforce', settings, secrets: { commerceClientSecret: sandbox.clientSecret, crmClientSecret: 'sf-secret' } }));
});
afterAll(async () => {
  await sandbox?.stop();
  await database?.drop();
});

describe("the commerce quota beside the CRM's budget", () => {
  it("is in each connection's health and on the console's list and connection page", async () => {
    const connections = await store().list();
    const [health] = await readConnectionHealth(database.pool, connections, { commerceQuota: liveCommerceQuotas(store()) });
    expect(health!.commerceQuota).toEqual([{ name: 'apiRequests', used: 30, limit: 600, share: 0.05, period: 'DAY', resetsAt: expect.any(Date) }]);
    const list = connectionsPage({ csrf: 'c' }, [health!]);
    expect(list).toContain('<th scope="col">Commerce quota</th>');
    expect(list).toMatch(/<td>-<\/td>\s*<td>5% of 600\/day<\/td>/); // after the CRM budget (none reported yet)
    const page = connectionPage({ csrf: 'c' }, { health: health!, runs: [], letters: { total: 0, byEntity: {}, page: 1, limit: 50, first: 0, last: 0, pages: 0, letters: [] }, cosell: { waiting: [], refused: [], made: 0, queuedStages: [] }, entities: ['offer'], backfills: [] });
    expect(page).toMatch(/<dt>Commerce quota<\/dt><dd>apiRequests: 30 of 600 per day \(5%\), until \d{4}-\d\d-\d\d 00:00:00 UTC<\/dd>/);
  });

  it('says unknown when the commerce API cannot be asked, and the rest of the health still answers', async () => {
    const [unreadable] = await readConnectionHealth(database.pool, await store().list(), { commerceQuota: liveCommerceQuotas({ getWithSecrets: async () => undefined }) });
    expect(unreadable).toMatchObject({ name: 'quota-acme', commerceQuota: null, status: 'never run' });
    expect(connectionPage({ csrf: 'c' }, { health: unreadable!, runs: [], letters: { total: 0, byEntity: {}, page: 1, limit: 50, first: 0, last: 0, pages: 0, letters: [] }, cosell: { waiting: [], refused: [], made: 0, queuedStages: [] }, entities: ['offer'], backfills: [] })).toContain(
      '<dt>Commerce quota</dt><dd>unknown (the commerce API did not say)</dd>',
    );
  });

  it('is a column of `crm-sync connections` and a field of its JSON', async () => {
    const env = cliEnv({ databaseUrl: database.url, secretKey: key.toString('base64'), taskQueue: `quota-${Date.now()}`, commerceClientSecret: sandbox.clientSecret, salesforceClientSecret: 'sf-secret', output: 'human' });
    const table = await cliOutcome(env, ['connections']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/API BUDGET\s+COMMERCE QUOTA\s+WRITES BACK/);
    expect(table.stdout).toMatch(/quota-acme\s+Salesforce\s+.*-\s+5% of 600\/day\s+yes/);
    const json = await cliOutcome(env, ['connections'], { CRM_SYNC_OUTPUT: 'json' });
    expect(JSON.parse(json.stdout)[0].health.commerceQuota).toEqual([{ name: 'apiRequests', used: 30, limit: 600, share: 0.05, period: 'DAY', resetsAt: expect.stringMatching(/T00:00:00.000Z$/) }]);
    expect(json.stdout).not.toContain(sandbox.clientSecret);
  });

  it('is on /metrics as the worker paces it: used (the server figure plus its own calls) and limit per connection and quota', async () => {
    const metrics = createSyncMetrics({ pool: database.pool });
    const before = await metrics.registry.metrics();
    expect(before).not.toContain(`crm_sync_commerce_quota_used{connection="${connectionId}"`);
    const client = createCommerceClient({ baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
    await client.entitlements.get(sandbox.organizationId, 'ent-000001');
    const text = await metrics.registry.metrics();
    expect(text).toContain(`crm_sync_commerce_quota_used{connection="${connectionId}",quota="apiRequests"} 31`);
    expect(text).toContain(`crm_sync_commerce_quota_limit{connection="${connectionId}",quota="apiRequests"} 600`);
    metrics.stop();
  });
});
