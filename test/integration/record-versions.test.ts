// Several writers of one connection (the incremental pass, the notification path, a backfill, dead-letter
// retries) read the same record at different moments. Whatever order their writes arrive in, the CRM and
// the link end with the newest snapshot: an older one is never written over a newer one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBeat } from '../../activities/activity-context.ts';
import { syncRecordBatch } from '../../activities/record-sync.ts';
import { createRecordLinkStore } from '../../store/record-links.ts';
import type { ConnectionRuntime } from '../../sync/runtime.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createMemoryCrm, memoryConnection } from '../support/memory-crm.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { commerceDump } from '../support/expected-crm.ts';

let database: TestDatabase;
let commerce: CommerceSandbox;
let crm: ReturnType<typeof createMemoryCrm>;
let runtime: ConnectionRuntime;
let connectionId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  commerce = await startCommerceSandbox({ entitlements: 10, seed: 31 });
  crm = createMemoryCrm();
  const made = await memoryConnection(database.pool, commerce, { name: 'versions', crm: crm.connector });
  runtime = made.runtime as ConnectionRuntime;
  connectionId = made.connectionId;
});
afterAll(async () => {
  await commerce.stop();
  await database.drop();
});

const deps = () => ({ pool: database.pool, clock: () => new Date(), beat: createBeat() });
const write = (records: unknown[]) => syncRecordBatch(runtime, deps(), { connectionId, entity: 'buyer', records, letters: [] });

it('an older snapshot arriving after a newer one is not written, and the link keeps the newer version', async () => {
  const [buyer] = await commerceDump(commerce, 'buyers');
  const older = { ...buyer, name: 'Older Name Ltd', lastUpdateTime: '2026-04-01T00:00:00.000Z' };
  const newer = { ...buyer, name: 'Newer Name Ltd', lastUpdateTime: '2026-04-02T00:00:00.000Z' };
  expect((await write([newer])).created).toBe(1);
  const outcome = await write([older]);
  expect(outcome.created + outcome.updated).toBe(0);
  expect(crm.objects('Account').find((row) => row.Commerce_Buyer_Id__c === buyer.id)?.Name).toBe('Newer Name Ltd');
  const link = (await createRecordLinkStore(database.pool).get(connectionId, 'buyer', [buyer.id])).get(buyer.id)!;
  expect(link.sourceVersion).toEqual(new Date('2026-04-02T00:00:00.000Z'));
  // The same version again (a replayed activity) and a newer one are written as usual.
  expect((await write([{ ...newer, name: 'Newest Name Ltd', lastUpdateTime: '2026-04-03T00:00:00.000Z' }])).updated).toBe(1);
});

it('two writers racing over one record: the newest snapshot wins whichever write the CRM receives last', async () => {
  const [, buyer] = await commerceDump(commerce, 'buyers');
  const older = { ...buyer, name: 'Race Older', lastUpdateTime: '2026-05-01T00:00:00.000Z' };
  const newer = { ...buyer, name: 'Race Newer', lastUpdateTime: '2026-05-02T00:00:00.000Z' };
  // The older writer (a slow incremental page) is in flight when the newer one (the notification path)
  // arrives: without one writer at a time, the older write would land last and win.
  const upsert = crm.connector.upsert.bind(crm.connector);
  let slowOnce = true;
  crm.connector.upsert = async (object, items, options) => {
    if (slowOnce && items.some((item) => item.fields.Name === 'Race Older')) {
      slowOnce = false;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    return upsert(object, items, options);
  };
  try {
    const first = write([older]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all([first, write([newer])]);
  } finally {
    crm.connector.upsert = upsert;
  }
  expect(crm.objects('Account').find((row) => row.Commerce_Buyer_Id__c === buyer.id)?.Name).toBe('Race Newer');
  const link = (await createRecordLinkStore(database.pool).get(connectionId, 'buyer', [buyer.id])).get(buyer.id)!;
  expect(link.sourceVersion).toEqual(new Date('2026-05-02T00:00:00.000Z'));
});
