// Private-offer drafts from Salesforce: an Opportunity asking for a private offer on a product produces
// one draft offer carrying its Id, the offer id goes back onto it, and when that offer later syncs from
// the commerce side it updates the same Opportunity, never a second one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump } from '../support/sync-harness.ts';

let stack: CosellStack;
let sandboxes: CosellStack['sandboxes'];
let run: CosellStack['run'];

beforeAll(async () => {
  stack = await startCosellStack({ name: 'drafts', entitlements: 20, seed: 67, entities: ['buyer', 'contact', 'offer'] });
  ({ sandboxes, run } = stack);
});
afterAll(() => stack?.stop());

it('a draft request makes one offer, the offer id goes back, and the offer later updates that same Opportunity', async () => {
  const account = (await salesforceDump(sandboxes.salesforce, 'Account')).find((row) => row.Commerce_Buyer_Id__c)!;
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const made = (await conn.sobject('Opportunity').create({ Name: 'Private deal for the renewal', AccountId: account.Id, StageName: 'Negotiation/Review', CloseDate: '2027-02-28', Amount: 48000, Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-000002' })) as { id: string };
  // The salesperson named one of the buyer's contacts (synced from the commerce side) on the deal.
  const contact = (await salesforceDump(sandboxes.salesforce, 'Contact')).find((row) => row.AccountId === account.Id && row.Commerce_Contact_Id__c)!;
  await conn.sobject('OpportunityContactRole').create({ OpportunityId: made.id, ContactId: contact.Id, Role: 'Decision Maker' });

  const first = await run(WORKFLOW_TYPES.cosell);
  expect(first.flows['opportunity-draft-offer']).toMatchObject({ asking: 1, created: 1, refused: 0 });
  const drafts = (await commerceDump(sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.crmAOpportunityId === made.id);
  expect(drafts).toHaveLength(1);
  const [draft] = drafts;
  expect(draft).toMatchObject({ name: 'Private deal for the renewal', productID: 'prod-000002', buyerID: account.Commerce_Buyer_Id__c, offerType: 'PRIVATE', status: 'PENDING_CREATE', expireTime: '2027-02-28T23:59:59.000Z' });
  expect(draft.info?.commitAmount).toBe(48000);
  expect(draft.contactIds).toEqual([contact.Commerce_Contact_Id__c]);
  const opportunity = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Id === made.id)!;
  expect(opportunity.Commerce_Offer_Id__c).toBe(draft.id);

  // Asked again (our own write-back read back): no second draft.
  expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ created: 0, adopted: 0 });
  expect((await commerceDump(sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.crmAOpportunityId === made.id)).toHaveLength(1);

  // The draft offer syncs to Salesforce: the same Opportunity is updated, none is added.
  await run(WORKFLOW_TYPES.incrementalSync);
  const holding = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).filter((row) => row.Commerce_Offer_Id__c === draft.id);
  expect(holding.map((row) => row.Id)).toEqual([made.id]);
  expect(holding[0]).toMatchObject({ Name: 'Private deal for the renewal', Offer_Status__c: 'PENDING_CREATE' });
}, 180_000);

it('a request without a product is refused on the record, in words a salesperson can act on', async () => {
  const account = (await salesforceDump(sandboxes.salesforce, 'Account')).find((row) => row.Commerce_Buyer_Id__c)!;
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const made = (await conn.sobject('Opportunity').create({ Name: 'No product yet', AccountId: account.Id, StageName: 'Prospecting', CloseDate: '2027-02-28', Private_Offer_Requested__c: true })) as { id: string };
  await run(WORKFLOW_TYPES.cosell);
  const opportunity = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Id === made.id)!;
  expect(opportunity.Cosell_Errors__c).toBe('Private offer draft: productID: no marketplace product is named; fill Commerce Product Id with the product to offer');
  expect(opportunity.Commerce_Offer_Id__c ?? null).toBeNull();
  expect((await commerceDump(sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.crmAOpportunityId === made.id)).toHaveLength(0);
}, 180_000);
