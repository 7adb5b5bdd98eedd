// The notification path can name a child before its parent reached the CRM (the full pass has not
// come to it yet). The child waits: it is neither written with a dangling reference nor dead-lettered,
// and the full pass, parents first, writes it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMemorySync, type MemorySync } from '../support/memory-sync.ts';
import type { Entity } from '../../mappings/types.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { fullPass } from '../support/memory-crm.ts';

let setup: MemorySync;
beforeAll(async () => {
  setup = await startMemorySync({ name: 'parents', entitlements: 60, seed: 31, pageSize: 50 });
});
afterAll(() => setup?.stop());

const pass = (entity: Entity) => fullPass(setup.activities, setup.connectionId, entity);
const idsOf = (object: string, field: string) => new Set(setup.crm.objects(object).map((row) => String(row[field])));

it('holds back children whose parents are not in the CRM yet; the full pass writes them', async () => {
  const { database, commerce, crm, activities, connectionId } = setup;
  // Only the buyers have been synced when the feed names offers and entitlements.
  await pass('buyer');
  await activities.syncFromNotifications({ connectionId }); // the feed starts at its current end
  const { changes } = (await (await fetch(`${commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 40 }) })).json()) as { changes: { entityType: string; id: string }[] };
  const named = changes.map((change) => ({ entityType: change.entityType, entityID: change.id }));
  const namedEntitlements = new Set(named.filter((event) => event.entityType === 'ENTITLEMENT').map((event) => event.entityID));
  expect(namedEntitlements.size).toBeGreaterThan(0);

  const feed = await activities.syncFromNotifications({ connectionId });
  expect(feed.events).toBeGreaterThan(0);
  // Every entitlement written points at an Opportunity that is there; the others wait.
  const opportunities = idsOf('Opportunity', 'Commerce_Offer_Id__c');
  const written = crm.objects('Marketplace_Entitlement__c');
  for (const row of written) expect(opportunities.has((row.Opportunity__r as { Commerce_Offer_Id__c: string }).Commerce_Offer_Id__c)).toBe(true);
  expect(written.length).toBeLessThan(namedEntitlements.size);
  expect(await createDeadLetterStore(database.pool).listOpen(connectionId, 'entitlement')).toEqual([]);
  // What the feed wrote got its CRM id written back, as the full pass does.
  const offers = new Map(((await (await fetch(`${commerce.apiUrl}/_sandbox/records/offers`)).json()) as { id: string; metaInfo?: { crmAOpportunityId?: string } }[]).map((offer) => [offer.id, offer]));
  expect(crm.objects('Opportunity').length).toBeGreaterThan(0);
  for (const row of crm.objects('Opportunity')) expect(offers.get(String(row.Commerce_Offer_Id__c))?.metaInfo?.crmAOpportunityId).toBe(row.Id);

  await pass('offer');
  await pass('entitlement');
  const entitlements = (await (await fetch(`${commerce.apiUrl}/_sandbox/records/entitlements`)).json()) as { id: string }[];
  expect(idsOf('Marketplace_Entitlement__c', 'Commerce_Entitlement_Id__c')).toEqual(new Set(entitlements.map((entitlement) => entitlement.id)));
});
