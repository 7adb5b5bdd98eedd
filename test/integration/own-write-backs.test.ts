// The sync's own write-backs (issue #29: a no-op must cost nothing), on the page activity against real
// PostgreSQL and the commerce sandbox, with the in-memory CRM (Salesforce's mappings: entitlements take
// their record URL back). Writing CRM ids back moves each entitlement's lastUpdateTime; the next run
// must know those records unchanged without reading their terms again, and must still see any change
// another party made, even one that landed while our own write was under way (the race).
import { afterEach, describe, expect, it } from 'vitest';
import { createRecordLinkStore } from '../../store/record-links.ts';
import { fullPass } from '../support/memory-crm.ts';
import { startMemorySync, type MemorySync } from '../support/memory-sync.ts';

const TERMS = 'GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm';
const ENTITLEMENTS = 'Marketplace_Entitlement__c';

type Calls = { total: number; operations: Record<string, number> };
const calls = async (setup: MemorySync): Promise<Calls> => (await fetch(`${setup.commerce.apiUrl}/_sandbox/calls`)).json() as Promise<Calls>;
const resetCalls = (setup: MemorySync) => fetch(`${setup.commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });
/** Another party changes one entitlement's status (the sandbox's change driver): its id. */
async function changeOneEntitlement(setup: MemorySync): Promise<string> {
  const response = await fetch(`${setup.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: ['entitlementStatus'] }) });
  const body = (await response.json()) as { changes: { entityType: string; id: string }[] };
  expect(body.changes).toHaveLength(1);
  return body.changes[0]!.id;
}
const statusInCrm = (setup: MemorySync, id: string) => setup.crm.objects(ENTITLEMENTS).find((row) => row.Commerce_Entitlement_Id__c === id)?.Status__c;

describe('own write-backs are known on the next run (real PostgreSQL, commerce sandbox, in-memory CRM)', () => {
  let setup: MemorySync | undefined;
  afterEach(async () => {
    await setup?.stop();
    setup = undefined;
  });

  it('after the backfill and its write-backs, a run reads the window but no terms and writes nothing; a later change by another party is read and written alone', async () => {
    setup = await startMemorySync({ name: 'own-write-backs', entitlements: 80, seed: 29, pageSize: 500 });
    await fullPass(setup.activities, setup.connectionId, 'offer');
    const backfill = await fullPass(setup.activities, setup.connectionId, 'entitlement');
    expect(backfill.created).toBeGreaterThan(0);
    expect(backfill.writeBacks).toBe(backfill.created);

    await resetCalls(setup);
    const writesBefore = setup.crm.stats.writeCalls;
    const noop = await fullPass(setup.activities, setup.connectionId, 'entitlement');
    // Every entitlement written back is in the window again (its lastUpdateTime moved), and known.
    expect(noop.records).toBeGreaterThanOrEqual(backfill.writeBacks);
    expect(noop.unchanged).toBe(noop.records);
    expect(noop.created + noop.updated + noop.writeBacks).toBe(0);
    const quiet = await calls(setup);
    expect(quiet.operations[TERMS] ?? 0).toBe(0);
    expect(Object.keys(quiet.operations).filter((operation) => operation !== 'POST /oauth2/token').sort()).toEqual(['GET /org/{orgId}/entitlement/query']);
    expect(setup.crm.stats.writeCalls).toBe(writesBefore);

    const changed = await changeOneEntitlement(setup);
    const before = statusInCrm(setup, changed);
    await resetCalls(setup);
    const after = await fullPass(setup.activities, setup.connectionId, 'entitlement');
    expect(after.updated).toBe(1);
    expect((await calls(setup)).operations[TERMS]).toBe(1);
    expect(statusInCrm(setup, changed)).not.toBe(before);
    expect(setup.crm.stats.writeCalls).toBe(writesBefore + 1);
  });

  it('the near-real-time pass reads the events of our own write-backs by id, whole (terms too: an event names a change the answer may hide), and writes nothing', async () => {
    setup = await startMemorySync({ name: 'own-write-backs-feed', entitlements: 80, seed: 37, pageSize: 500 });
    // The feed's position is taken first, so the events of the backfill's write-backs come after it.
    await setup.activities.syncFromNotifications({ connectionId: setup.connectionId });
    await fullPass(setup.activities, setup.connectionId, 'offer');
    const backfill = await fullPass(setup.activities, setup.connectionId, 'entitlement');
    expect(backfill.writeBacks).toBeGreaterThan(0);

    await resetCalls(setup);
    const writesBefore = setup.crm.stats.writeCalls;
    const feed = { records: 0, created: 0, updated: 0, unchanged: 0, writeBacks: 0 };
    for (let done = false; !done; ) {
      const page = await setup.activities.syncFromNotifications({ connectionId: setup.connectionId });
      for (const key of Object.keys(feed) as (keyof typeof feed)[]) feed[key] += page[key];
      done = page.done;
    }
    // Every entitlement written back was named by its event and read by id again.
    expect(feed.records).toBeGreaterThanOrEqual(backfill.writeBacks);
    expect((await calls(setup)).operations['GET /org/{orgId}/entitlement/{entitlementId}']).toBeGreaterThanOrEqual(backfill.writeBacks);
    expect(feed.created + feed.updated + feed.writeBacks).toBe(0);
    expect((await calls(setup)).operations[TERMS] ?? 0).toBeGreaterThanOrEqual(backfill.writeBacks);
    expect(setup.crm.stats.writeCalls).toBe(writesBefore);
  });

  it("the race: another party's change landing while our write is under way is not taken for ours; the next run reads and writes that record", async () => {
    setup = await startMemorySync({ name: 'own-write-backs-race', entitlements: 80, seed: 31, pageSize: 500 });
    await fullPass(setup.activities, setup.connectionId, 'offer');
    // While the entitlements are being written to the CRM (read already, CRM ids not yet back), another
    // party changes one of them: our write-back's answer then carries their change.
    const upsert = setup.crm.connector.upsert.bind(setup.crm.connector);
    let raced: string | undefined;
    setup.crm.connector.upsert = async (object, items) => {
      if (object === ENTITLEMENTS && !raced) raced = await changeOneEntitlement(setup!);
      return upsert(object, items);
    };
    const backfill = await fullPass(setup.activities, setup.connectionId, 'entitlement');
    setup.crm.connector.upsert = upsert;
    expect(raced).toBeDefined();
    expect(backfill.writeBacks).toBe(backfill.created);
    const links = await createRecordLinkStore(setup.database.pool).get(setup.connectionId, 'entitlement', [raced!]);
    expect(links.get(raced!)?.crmId).toBeTruthy();
    expect(links.get(raced!)?.knownVersion ?? null).toBeNull();
    const before = statusInCrm(setup, raced!);

    await resetCalls(setup);
    const next = await fullPass(setup.activities, setup.connectionId, 'entitlement');
    expect(next.updated).toBe(1);
    expect((await calls(setup)).operations[TERMS]).toBe(1);
    expect(statusInCrm(setup, raced!)).not.toBe(before);
  });
});
