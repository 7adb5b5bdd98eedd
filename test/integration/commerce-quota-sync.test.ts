// A sync run over an organization whose quota is smaller than the run's calls (issue #29, A20): the run's
// activities (real PostgreSQL, the commerce sandbox enforcing the quota, an in-memory CRM) finish later,
// with the same records in the CRM as the same run on a roomy organization, no call refused and no
// record failed. The quota is half the calls the roomy run made, so the run must cross a window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaView } from '../../commerce/index.ts';
import type { Entity } from '../../mappings/types.ts';
import { probeSandbox } from '../../sandbox/commerce/testing.ts';
import { fullPass } from '../support/memory-crm.ts';
import { startMemorySync, type MemorySync } from '../support/memory-sync.ts';

const ENTITIES: Entity[] = ['buyer', 'offer', 'entitlement'];
const options = { entitlements: 12, seed: 29, pageSize: 5, accountsFirst: false } as const;

let roomy: MemorySync;
let tight: MemorySync;

beforeAll(async () => {
  [roomy, tight] = await Promise.all([startMemorySync({ name: 'roomy', ...options }), startMemorySync({ name: 'tight', ...options })]);
});
afterAll(async () => {
  await Promise.all([roomy?.stop(), tight?.stop()]);
});

/** Calls counted against the organization's quota: its paths, the snapshot read left out. */
async function organizationCalls(setup: MemorySync): Promise<number> {
  const { operations } = (await probeSandbox(setup.commerce).control('GET', '/calls')).json as { operations: Record<string, number> };
  return Object.entries(operations).filter(([key]) => key.includes('/org/{orgId}/') && !key.endsWith('/services-and-quotas')).reduce((sum, [, count]) => sum + count, 0);
}

async function syncAll(setup: MemorySync) {
  const totals = { records: 0, created: 0, failed: 0 };
  for (const entity of ENTITIES) {
    const pass = await fullPass(setup.activities, setup.connectionId, entity);
    totals.records += pass.records;
    totals.created += pass.created;
    totals.failed += pass.failed;
  }
  return totals;
}

const crmState = (setup: MemorySync) =>
  Object.fromEntries(['Account', 'Opportunity', 'Commerce_Entitlement__c'].map((object) => [object, setup.crm.objects(object).length]));

describe('a sync run over a commerce quota smaller than its calls', () => {
  it('finishes with every record in the CRM and no call refused', { timeout: 240_000 }, async () => {
    const expected = await syncAll(roomy);
    const calls = await organizationCalls(roomy);
    expect(expected.failed).toBe(0);
    expect(expected.records).toBeGreaterThan(0);

    const quota = Math.ceil(calls / 2);
    expect((await probeSandbox(tight.commerce).control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: quota, period: 'MINUTE' }] })).status).toBe(200);
    // Begin with time left in the minute, so the run surely reaches the quota before its window ends.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const paced = await syncAll(tight);

    expect(paced).toEqual(expected);
    expect(crmState(tight)).toEqual(crmState(roomy));
    const { refused } = (await probeSandbox(tight.commerce).control('GET', '/quotas')).json['org-1'];
    expect(refused).toBe(0);
    expect(quotaView(tight.commerce.apiUrl, 'org-1')!.waits).toBeGreaterThan(0);
    console.log(JSON.stringify({ commerceCalls: calls, quotaPerMinute: quota, records: paced.records }));
  });
});
