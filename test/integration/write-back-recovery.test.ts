// Write-back survives a failure after the links are recorded: Temporal retries the page activity with
// the same input, the retry finds every record unchanged, and still writes the missing CRM ids back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMemorySync, type MemorySync } from '../support/memory-sync.ts';

let setup: MemorySync;
beforeAll(async () => {
  setup = await startMemorySync({ name: 'write-back', entitlements: 30, seed: 41, pageSize: 1000, minRetryDelayMs: 5 });
});
afterAll(() => setup?.stop());

const faults = (body: unknown) => fetch(`${setup.commerce.apiUrl}/_sandbox/faults`, { method: body ? 'POST' : 'DELETE', headers: { 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
const offers = async () => (await (await fetch(`${setup.commerce.apiUrl}/_sandbox/records/offers`)).json()) as { id: string; metaInfo?: { crmAOpportunityId?: string } }[];

it('a write-back lost after the links were recorded is made when the activity is retried', async () => {
  const { crm, activities, connectionId } = setup;
  const started = await activities.startSync({ connectionId, entities: ['offer'] });
  const input = { connectionId, entity: 'offer' as const, cursor: started.starts.offer!, until: started.until, pageSize: 1000, advanceStoredCursor: true };
  await faults({ operation: 'PATCH /org/{orgId}/offer/{offerId}/metaInfo', rate500: 1 });
  await expect(activities.syncEntityPage(input)).rejects.toThrow();
  expect(crm.objects('Opportunity')).toHaveLength((await offers()).length); // written and linked...
  const ours = new Set(crm.objects('Opportunity').map((row) => row.Id));
  expect((await offers()).some((offer) => ours.has(offer.metaInfo?.crmAOpportunityId))).toBe(false); // ...but no id went back

  await faults(undefined);
  const retried = await activities.syncEntityPage(input); // what Temporal does next: the same input again
  expect(retried.created + retried.updated).toBe(0);
  expect(retried.writeBacks).toBeGreaterThan(0);
  const opportunityIdByOffer = new Map(crm.objects('Opportunity').map((row) => [row.Commerce_Offer_Id__c, row.Id]));
  for (const offer of await offers()) expect(offer.metaInfo?.crmAOpportunityId).toBe(opportunityIdByOffer.get(offer.id));

  // Once in place, nothing more is sent.
  expect((await activities.syncEntityPage(input)).writeBacks).toBe(0);
});
