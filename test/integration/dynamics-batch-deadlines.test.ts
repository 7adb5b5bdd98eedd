// Dataverse runs a $batch's operations one after another and keeps running them when the client stops
// waiting (issue #22 item 7). The connector against the Dataverse sandbox with server time per operation:
// a $batch of creates slower than the client's deadline, or whose answer is lost, or stopped by the
// server's time limit, never leaves a row twice; batch sizes start small and follow the measured time
// per operation.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';

let dynamics: DynamicsSandbox;
const settings = (extra: Record<string, unknown> = {}) => ({ orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, apiVersion: '9.2', concurrency: 8, ...extra });
const connect = (extra: Record<string, unknown> = {}, overrides: Parameters<typeof createDynamicsConnector>[3] = {}) =>
  createDynamicsConnector(settings(extra) as Parameters<typeof createDynamicsConnector>[0], { crmClientSecret: dynamics.clientSecret }, {}, { wait: async () => {}, ...overrides });
const accounts = async (prefix: string): Promise<any[]> => ((await control(dynamics, 'GET', '/records/accounts')) as any[]).filter((row) => String(row.name).startsWith(prefix));
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Until the sandbox has no request of this app in flight: a $batch its client gave up on has finished too. */
async function serverIdle() {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const users = (await control(dynamics, 'GET', '/limits')).users as Record<string, { inFlight: number }>;
    if (Object.values(users).every((user) => user.inFlight === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the sandbox still runs a request after 30 s');
}

beforeAll(async () => {
  dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, operationMs: 0 });
  const report = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: { authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` } });
  expect(report.problems).toEqual([]);
});
afterAll(() => dynamics?.stop());
beforeEach(async () => {
  await control(dynamics, 'DELETE', '/faults');
  await control(dynamics, 'POST', '/limits', { operationMs: 0, requestTimeoutMs: 120_000 });
});

describe('creates whose outcome the client does not know', () => {
  it('a $batch of creates slower than the old 1 s deadline: each row once (the deadline follows the batch)', async () => {
    const crm = connect({ requestTimeoutMs: 1000 });
    await crm.describe('account');
    // Two creates at 600 ms each: the server needs 1.2 s.
    await control(dynamics, 'POST', '/limits', { operationMs: 600 });
    const results = await crm.insert('account', [0, 1].map((i) => ({ sourceId: `slow-${i}`, fields: { name: `Slow create ${i}` } })));
    await serverIdle();
    const stored = await accounts('Slow create');
    expect(stored.map((row) => row.name).sort()).toEqual(['Slow create 0', 'Slow create 1']);
    expect(results.map((result) => result.ok && result.crmId).sort()).toEqual(stored.map((row) => row.accountid).sort());
  });

  it('a $batch of creates whose answer is lost: what was written is read, nothing is written twice', async () => {
    const crm = connect({ requestTimeoutMs: 1000 });
    await crm.describe('account');
    await control(dynamics, 'POST', '/faults', { endpoint: '$batch', truncatedRate: 1, times: 1 });
    const results = await crm.insert('account', [0, 1, 2].map((i) => ({ sourceId: `lost-${i}`, fields: { name: `Lost create ${i}` } })));
    expect((await control(dynamics, 'GET', '/faults')).injected.truncated).toBe(1);
    await serverIdle();
    const stored = await accounts('Lost create');
    expect(stored.map((row) => row.name).sort()).toEqual(['Lost create 0', 'Lost create 1', 'Lost create 2']);
    expect(results.every((result) => result.ok && GUID.test(result.crmId))).toBe(true);
    expect(results.map((result) => result.ok && result.crmId).sort()).toEqual(stored.map((row) => row.accountid).sort());
  });

  it('a $batch still running on the server when the client gives up: what it reads and sends again makes no second row', async () => {
    // 1.5 s a request: three creates take the server 4.5 s, far past the client's deadline for them, so
    // it reads (finding what has landed so far) and sends the rest again while the server is still at it.
    const crm = connect({ requestTimeoutMs: 1000 });
    await crm.describe('account');
    await control(dynamics, 'POST', '/limits', { operationMs: 1500 });
    const results = await crm.insert('account', [0, 1, 2].map((i) => ({ sourceId: `running-${i}`, fields: { name: `Still running ${i}` } })));
    await serverIdle();
    const stored = await accounts('Still running');
    expect(stored.map((row) => row.name).sort()).toEqual(['Still running 0', 'Still running 1', 'Still running 2']);
    expect(results.map((result) => result.ok && result.crmId).sort()).toEqual(stored.map((row) => row.accountid).sort());
    expect(crm.figures().unanswered).toBeGreaterThan(0);
  });

  it("a $batch stopped by the server's time limit: the rest is sent again in smaller batches, each record once", async () => {
    const crm = connect();
    await crm.describe('account');
    // The server stops a request after 1 s here; 150 ms an operation leaves room for 6 of the first 10.
    await control(dynamics, 'POST', '/limits', { operationMs: 150, requestTimeoutMs: 1000 });
    const creates = [0, 1, 2, 3, 4, 5, 6].map((i) => ({ sourceId: `limit-c-${i}`, fields: { name: `Limit create ${i}` } }));
    const created = await crm.insert('account', creates);
    const upserts = [0, 1, 2, 3, 4].map((i) => ({ sourceId: `limit-u-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `limit-u-${i}`, fields: { name: `Limit upsert ${i}` } }));
    const upserted = await crm.upsert('account', upserts);
    await serverIdle();
    expect((await accounts('Limit create')).map((row) => row.name).sort()).toEqual(creates.map((item) => item.fields.name).sort());
    expect((await accounts('Limit upsert')).map((row) => row.name).sort()).toEqual(upserts.map((item) => item.fields.name).sort());
    expect([...created, ...upserted].filter((result) => !result.ok)).toEqual([]);
  });
});

describe('batch sizes under server time', () => {
  it('stay within what fits the target at the measured pace, never all at once', async () => {
    // 20 ms an operation and a 400 ms target (40 s in production): about 20 operations a $batch.
    const crm = connect({}, { batchTargetMs: 400 });
    await crm.describe('account');
    await control(dynamics, 'POST', '/limits', { operationMs: 20 });
    await control(dynamics, 'DELETE', '/calls');
    const items = Array.from({ length: 130 }, (_, i) => ({ sourceId: `paced-${i}`, externalIdField: 'ccs_commercebuyerid', externalId: `paced-${i}`, fields: { name: `Paced ${i}` } }));
    const results = await crm.upsert('account', items);
    expect(results.filter((result) => !result.ok)).toEqual([]);
    const figures = crm.figures();
    // The measured pace includes the server's 20 ms an operation, and more on a busy machine: so it is at
    // least 20, and the size is what fits 400 ms at the pace measured (at most 20; lower when the machine
    // is slow, which is right). How the size grows from given measures: test/unit/dynamics-batch-pace.
    expect(figures.perOperationMs).toBeGreaterThanOrEqual(20);
    expect(figures.nextBatchSize).toBeGreaterThanOrEqual(1);
    expect(figures.nextBatchSize).toBeLessThanOrEqual(20);
    expect(figures.nextBatchSize * (figures.perOperationMs - 0.05)).toBeLessThanOrEqual(400); // perOperationMs is rounded to 0.1
    // 10 first, then batches of at most 20 for the other 120: at least 7 $batch calls, and never 1,000 at once.
    const calls = await control(dynamics, 'GET', '/calls');
    expect(calls['POST $batch']).toBeGreaterThanOrEqual(7);
    expect(calls['$batch operations']).toBe(130);
    expect(await accounts('Paced')).toHaveLength(130);
  });
});
