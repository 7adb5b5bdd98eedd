// Write-back without fights. Two Salesforce orgs (UAT and production) on one commerce organization:
// only the owner writes its ids back, so the ids stay put and no PATCH ever wakes the other side. And a
// seller who relinks an offer to another Opportunity on the commerce side wins: the link moves there,
// the worker never sets the old id back, and the old Opportunity gives up the offer's external id.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createRecordLinkStore } from '../../store/record-links.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump, createSandboxConnection, startProductionWorker, startSandboxes, TEST_SECRET_BOX } from '../support/sync-harness.ts';

let database: TestDatabase;
let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
let uat: SalesforceSandbox;
let worker: Awaited<ReturnType<typeof startProductionWorker>>;
let production: string;
let staging: string;
const taskQueue = `fights-${Date.now()}`;
const ENTITIES = ['buyer', 'contact', 'offer', 'entitlement'] as const;

beforeAll(async () => {
  database = await createTestDatabase();
  sandboxes = await startSandboxes({ entitlements: 40, seed: 37 });
  uat = await startSalesforceSandbox();
  production = (await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { entities: [...ENTITIES] })).id;
  const second = await createSandboxConnection(database, sandboxes.commerce, uat, { entities: [...ENTITIES] });
  // What `crm-sync connect` decides for a second connection of the same commerce organization and CRM kind.
  await createConnectionStore(database.pool, TEST_SECRET_BOX).update(second.id, { settings: { ...second.settings, writeBack: false } });
  staging = second.id;
  worker = await startProductionWorker(database, { taskQueue });
});
afterAll(async () => {
  await worker?.stop();
  await uat?.stop();
  await sandboxes?.stop();
  await database?.drop();
});

const sync = (connectionId: string) =>
  new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `fights-${connectionId}-${Date.now()}`, args: [{ connectionId }] });
const metaInfoPatches = async () => {
  const { operations } = (await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> };
  return Object.entries(operations).filter(([key]) => /^PATCH .*metaInfo/.test(key)).reduce((sum, [, count]) => sum + count, 0);
};
const resetCalls = () => fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });

it('only the owner writes ids back; the other org keys its records by external id; a second round sends no PATCH at all', async () => {
  await sync(production);
  const opportunityOf = new Map((await salesforceDump(sandboxes.salesforce, 'Opportunity')).map((row) => [row.Commerce_Offer_Id__c, row.Id]));
  const offers = await commerceDump(sandboxes.commerce, 'offers');
  for (const offer of offers) expect(offer.metaInfo?.crmAOpportunityId, offer.id).toBe(opportunityOf.get(offer.id));

  await resetCalls();
  await sync(staging);
  expect(await metaInfoPatches()).toBe(0);
  // The UAT org holds one Opportunity per offer, each with its own offer's data: production's ids (which
  // may well name some other record in UAT) were not followed.
  const uatOpportunities = await salesforceDump(uat, 'Opportunity');
  expect(uatOpportunities.map((row) => row.Commerce_Offer_Id__c).sort()).toEqual(offers.map((offer) => offer.id).sort());
  const nameOf = new Map(offers.map((offer) => [offer.id, offer.name]));
  for (const row of uatOpportunities) expect(row.Name, row.Commerce_Offer_Id__c).toBe(nameOf.get(row.Commerce_Offer_Id__c));
  // The commerce records still carry production's ids.
  for (const offer of await commerceDump(sandboxes.commerce, 'offers')) expect(offer.metaInfo?.crmAOpportunityId).toBe(opportunityOf.get(offer.id));

  await resetCalls();
  await sync(production);
  await sync(staging);
  expect(await metaInfoPatches()).toBe(0);
}, 180_000);

it('a relink on the commerce side wins: the link moves to the Opportunity the seller named, and no id is set back', async () => {
  const offers = await commerceDump(sandboxes.commerce, 'offers');
  const offer = offers.find((candidate) => candidate.metaInfo?.crmAOpportunityId)!;
  const before = offer.metaInfo.crmAOpportunityId as string;
  // The seller made another Opportunity by hand and points the offer at it on the commerce side.
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const made = (await conn.sobject('Opportunity').create({ Name: 'Hand-made deal', StageName: 'Prospecting', CloseDate: '2026-12-31' })) as { id: string };
  const commerce = createCommerceClient({ baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, clientSecret: sandboxes.commerce.clientSecret });
  await commerce.offers.updateMetaInfo(sandboxes.commerce.organizationId, offer.id, { crmAOpportunityId: made.id });

  await sync(production);
  const link = (await createRecordLinkStore(database.pool).get(production, 'offer', [offer.id])).get(offer.id)!;
  expect(link.crmId).toBe(made.id);
  const after = (await commerceDump(sandboxes.commerce, 'offers')).find((candidate) => candidate.id === offer.id)!;
  expect(after.metaInfo.crmAOpportunityId).toBe(made.id);
  const rows = await salesforceDump(sandboxes.salesforce, 'Opportunity');
  const relinked = rows.find((row) => row.Id === made.id)!;
  expect(relinked.Commerce_Offer_Id__c).toBe(offer.id);
  expect(relinked.Name).toBe(offer.name);
  // The Opportunity it left is still there (nothing is deleted) but no longer claims the offer.
  const left = rows.find((row) => row.Id === before)!;
  expect(left).toBeDefined();
  expect(left.Commerce_Offer_Id__c ?? null).toBeNull();
  expect(rows.filter((row) => row.Commerce_Offer_Id__c === offer.id)).toHaveLength(1);

  // Stable: the next run neither moves it back nor writes anything back.
  await resetCalls();
  await sync(production);
  expect(await metaInfoPatches()).toBe(0);
  expect((await createRecordLinkStore(database.pool).get(production, 'offer', [offer.id])).get(offer.id)!.crmId).toBe(made.id);
}, 180_000);

it('co-sell runs only for the connection that writes back: an Opportunity shared in the UAT org makes no referral', async () => {
  const { conn } = await clientCredentialsConnection(uat);
  const account = (await salesforceDump(uat, 'Account')).find((row) => row.Commerce_Buyer_Id__c)!;
  const made = (await conn.sobject('Opportunity').create({ Name: 'Shared in UAT', AccountId: account.Id, StageName: 'Prospecting', CloseDate: '2027-01-31', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace A' })) as { id: string };
  const totals = await new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.cosell, { taskQueue, workflowId: `fights-cosell-${Date.now()}`, args: [{ connectionId: staging }] });
  expect(totals).toMatchObject({ created: 0, adopted: 0 });
  expect((await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.crmAOpportunityId === made.id)).toEqual([]);
}, 120_000);
