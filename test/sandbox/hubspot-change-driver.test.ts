// The HubSpot sandbox's change driver for deals: salespeople's edits, checked like any write, moving
// hs_lastmodifieddate so a read by modification time finds exactly the changed deals.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let now = new Date('2026-03-01T10:00:00Z');
beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ now: () => now });
});
afterAll(() => sandbox?.stop());

const api = (path: string, body: unknown) =>
  fetch(`${sandbox.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

it('changes the named deals (or the oldest ones) and moves their modification time', async () => {
  const made = await api('/crm/v3/objects/deals/batch/create', { inputs: ['a', 'b', 'c'].map((name) => ({ properties: { dealname: name } })) });
  const [a, b, c] = made.results.map((deal: { id: string }) => deal.id).sort((x: string, y: string) => Number(x) - Number(y));
  now = new Date('2026-03-01T11:00:00Z');
  const changed = await control(sandbox, 'POST', '/deals/change', { ids: [b], properties: { dealstage: 'closedwon', amount: '5000' } });
  expect(changed.changed).toEqual([{ id: b, properties: expect.objectContaining({ dealname: 'b', dealstage: 'closedwon', amount: '5000', hs_lastmodifieddate: '2026-03-01T11:00:00.000Z' }) }]);
  const oldest = await control(sandbox, 'POST', '/deals/change', { count: 1, properties: { dealname: 'renamed' } });
  expect(oldest.changed.map((deal: { id: string }) => deal.id)).toEqual([a]);

  const search = await api('/crm/v3/objects/deals/search', { filterGroups: [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(Date.parse('2026-03-01T10:30:00Z')) }] }], properties: ['dealname'], limit: 10 });
  expect(search.results.map((deal: { id: string }) => deal.id).sort()).toEqual([a, b].sort());
  expect(search.results.map((deal: { id: string }) => deal.id)).not.toContain(c);
});

it('refuses what HubSpot would refuse, naming it', async () => {
  await expect(control(sandbox, 'POST', '/deals/change', { count: 1, properties: { amount: 'lots' } })).rejects.toThrow(/amount/);
  await expect(control(sandbox, 'POST', '/deals/change', { ids: ['999999'], properties: { dealname: 'x' } })).rejects.toThrow(/No deal with id 999999/);
  await expect(control(sandbox, 'POST', '/deals/change', { count: 1 })).rejects.toThrow(/properties must name/);
});
