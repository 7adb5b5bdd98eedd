// Issue #22 item 2: HubSpot's search pages by an offset (`after`) into a result set it evaluates again
// at every request, so a record edited during a read leaves the window (or moves to its end) and every
// later offset shifts. The connector's read of changed records must still see every record of the
// window: 600 deals, 7 of them edited by a salesperson between two pages of the read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let now: Date;
let hubspot: HubSpotSandbox;
const ids: string[] = [];

beforeEach(async () => {
  now = new Date('2026-03-02T09:00:00.000Z');
  hubspot = await startHubSpotSandbox({ now: () => now, tenSecondlyLimit: 100_000, dailyLimit: 10_000_000, searchPerSecond: 100_000 });
  ids.length = 0;
  // 600 deals in 6 batches a second apart: 100 share each modified time (ties ordered by id).
  for (let batch = 0; batch < 6; batch += 1) {
    now = new Date(Date.UTC(2026, 2, 2, 9, 0, batch, 123));
    const response = await fetch(`${hubspot.baseUrl}/crm/v3/objects/deals/batch/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hubspot.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: Array.from({ length: 100 }, (_, i) => ({ properties: { dealname: `deal ${batch * 100 + i}` } })) }),
    });
    expect(response.status).toBe(201);
    ids.push(...((await response.json()) as { results: { id: string }[] }).results.map((r) => r.id));
  }
  now = new Date('2026-03-02T10:00:00.000Z');
});
afterEach(() => hubspot.stop());

const connect = () =>
  createHubSpotConnector({ baseUrl: hubspot.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: hubspot.accessToken }, {}, { wait: async () => {} });

/** Reads the window page by page; after the first page a salesperson edits 7 deals that page held. */
async function readWhileEditing(until: Date | undefined): Promise<{ reads: Map<string, number>; pages: number }> {
  const reads = new Map<string, number>();
  let pages = 0;
  for await (const page of connect().changedSince('deals', { since: new Date('2026-03-02T08:00:00.000Z'), until, fields: ['dealname'], pageSize: 200 })) {
    pages += 1;
    for (const record of page) reads.set(String(record.hs_object_id), (reads.get(String(record.hs_object_id)) ?? 0) + 1);
    if (pages === 1) {
      const edited = page.slice(10, 17).map((record) => String(record.hs_object_id));
      now = new Date('2026-03-02T10:05:00.000Z'); // the edits happen after the read began
      const answer = await control(hubspot, 'POST', '/deals/change', { ids: edited, properties: { dealstage: 'closedwon' } });
      expect(answer.changed).toHaveLength(7);
    }
  }
  return { reads, pages };
}

describe('HubSpot reads of changed records while records change', () => {
  it('a window closed before the edits: every one of the 600 deals is read once, though 7 left the window during the read', async () => {
    const { reads } = await readWhileEditing(new Date('2026-03-02T10:00:00.000Z'));
    expect([...ids].filter((id) => !reads.has(id))).toEqual([]);
    expect(reads.size).toBe(600);
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
  });

  it('an open window: every deal is read, and the 7 edited ones once more with their new modified time', async () => {
    const { reads } = await readWhileEditing(undefined);
    expect([...ids].filter((id) => !reads.has(id))).toEqual([]);
    expect([...reads.values()].filter((count) => count === 2)).toHaveLength(7);
    expect([...reads.values()].reduce((a, b) => a + b, 0)).toBe(607);
  });
});
