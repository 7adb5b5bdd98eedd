// Inbound co-sell: a referral a cloud partner sends (direction INBOUND, no CRM opportunity yet) becomes one
// Opportunity on its buyer's Account; the Opportunity's Id goes back onto the referral, the referral's
// Cosell_Referral__c record links to it, and running again makes nothing new. A write-back refused
// while the partner reviews the referral (409) waits and is made after the review, never lost.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const STAGE: Record<string, string> = { Prospect: 'Prospecting', Qualified: 'Qualification', 'Technical Validation': 'Needs Analysis', 'Business Validation': 'Proposal/Price Quote', Committed: 'Negotiation/Review', Launched: 'Closed Won', 'Closed Lost': 'Closed Lost' };

let stack: CosellStack;
let sandboxes: CosellStack['sandboxes'];
let run: CosellStack['run'];
let database: CosellStack['database'];
let connectionId: string;

beforeAll(async () => {
  stack = await startCosellStack({ name: 'inbound', entitlements: 60, seed: 71, entities: ['buyer', 'contact', 'offer', 'referral'] });
  ({ sandboxes, run, database, connectionId } = stack);
});
afterAll(() => stack?.stop());

it('each inbound referral becomes one Opportunity on its buyer Account, linked both ways, once across repeated runs', async () => {
  await post(`${sandboxes.commerce.apiUrl}/_sandbox/cosell/review`, { seconds: 0 });
  await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 6, kinds: ['inboundReferral'] });
  const inbound = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.direction === 'INBOUND' && !referral.crmAOpportunityId);
  expect(inbound.length).toBeGreaterThanOrEqual(6);

  await run(WORKFLOW_TYPES.cosell);
  const accountOf = new Map((await salesforceDump(sandboxes.salesforce, 'Account')).map((account) => [account.Commerce_Buyer_Id__c, account.Id]));
  const opportunities = await salesforceDump(sandboxes.salesforce, 'Opportunity');
  const referralsAfter = new Map((await commerceDump(sandboxes.commerce, 'referrals')).map((referral) => [referral.id, referral]));
  for (const referral of inbound) {
    const made = opportunities.filter((row) => row.Commerce_Referral_Id__c === referral.id);
    expect(made, referral.id).toHaveLength(1);
    expect(made[0]).toMatchObject({ Name: referral.name, AccountId: accountOf.get(referral.buyerID), StageName: STAGE[referral.stage], Cosell_Status__c: referral.status });
    expect(referralsAfter.get(referral.id)!.crmAOpportunityId).toBe(made[0]!.Id);
  }

  // The referral's contacts are attached to its Opportunity, each once, matched to the Contacts the
  // contact sync made (by email): no Contact is duplicated.
  const contactsBefore = await salesforceDump(sandboxes.salesforce, 'Contact');
  const contactByCommerceId = new Map(contactsBefore.map((row) => [row.Commerce_Contact_Id__c, row.Id]));
  const expectedRoles = () => inbound.flatMap((referral) => (referral.contactIds ?? []).map((contactId: string) => `${referralsAfter.get(referral.id)!.crmAOpportunityId}:${contactByCommerceId.get(contactId)}`)).sort();
  const roles = async () => (await salesforceDump(sandboxes.salesforce, 'OpportunityContactRole')).map((role) => `${role.OpportunityId}:${role.ContactId}`).sort();
  expect(expectedRoles().length).toBeGreaterThan(0);
  expect(await roles()).toEqual(expectedRoles());

  // Again: nothing new is made, no contact attached twice.
  const before = opportunities.length;
  const again = await run(WORKFLOW_TYPES.cosell);
  expect(again.inbound.created).toBe(0);
  expect((await salesforceDump(sandboxes.salesforce, 'Opportunity')).length).toBe(before);
  expect(await roles()).toEqual(expectedRoles());
  expect((await salesforceDump(sandboxes.salesforce, 'Contact')).length).toBe(contactsBefore.length);

  // The referral's own record in Salesforce links to the Opportunity made for it.
  await run(WORKFLOW_TYPES.incrementalSync);
  const records = new Map((await salesforceDump(sandboxes.salesforce, 'Cosell_Referral__c')).map((row) => [row.Commerce_Referral_Id__c, row]));
  for (const referral of inbound) expect(records.get(referral.id)?.Opportunity__c, referral.id).toBe(referralsAfter.get(referral.id)!.crmAOpportunityId);
}, 180_000);

it('a write-back refused while the partner reviews the referral waits as a dead letter and is made after the review', async () => {
  const [change] = ((await (await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 1, kinds: ['inboundReferral'] })).json()) as { changes: { id: string }[] }).changes;
  const referralId = change!.id;
  // The commerce side refuses the seller's PATCH of this referral with a 409 while its partner reviews it.
  const review = { operation: 'PATCH /org/{orgId}/cosell/referral/{referralId}', status: 409, ids: [referralId], body: { code: 'FAILED_PRECONDITION', message: `referral ${referralId} is under partner review; updates are accepted again after that` } };
  expect((await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, review)).status).toBe(200);
  await run(WORKFLOW_TYPES.cosell);
  const made = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).filter((row) => row.Commerce_Referral_Id__c === referralId);
  expect(made).toHaveLength(1);
  const letters = await createDeadLetterStore(database.pool).listOpen(connectionId, 'inbound-referral');
  expect(letters.map((letter) => letter.sourceId)).toEqual([referralId]);
  expect(letters[0]!.reason).toMatch(/under partner review/);

  // The review is over: the next retry of the letter writes the id back.
  await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
  await createDeadLetterStore(database.pool).makeDue(connectionId);
  await run(WORKFLOW_TYPES.cosell);
  expect((await commerceDump(sandboxes.commerce, 'referrals')).find((referral) => referral.id === referralId).crmAOpportunityId).toBe(made[0]!.Id);
  expect(await createDeadLetterStore(database.pool).listOpen(connectionId, 'inbound-referral')).toEqual([]);
  expect((await salesforceDump(sandboxes.salesforce, 'Opportunity')).filter((row) => row.Commerce_Referral_Id__c === referralId)).toHaveLength(1);
}, 180_000);

it('an inbound referral on a buyer never synced gets the Account made first, then its Opportunity on it', async () => {
  const now = new Date().toISOString();
  await post(`${sandboxes.commerce.apiUrl}/_sandbox/records/buyers`, { records: [{ id: 'buyer-new-inbound', organizationID: sandboxes.commerce.organizationId, name: 'Northwind Newcomer', partner: 'cloudB', status: 'ACTIVE', country: 'DE', creationTime: now, lastUpdateTime: now }] });
  await post(`${sandboxes.commerce.apiUrl}/_sandbox/records/referrals`, { records: [{ id: 'ref-new-inbound', organizationID: sandboxes.commerce.organizationId, name: 'Partner lead for Northwind', partner: 'cloudB', direction: 'INBOUND', status: 'SUBMITTED', stage: 'Qualified', buyerID: 'buyer-new-inbound', currency: 'USD', dealValue: 25000, expectedCloseDate: '2027-04-30', creationTime: now, lastUpdateTime: now }] });
  expect((await salesforceDump(sandboxes.salesforce, 'Account')).some((account) => account.Commerce_Buyer_Id__c === 'buyer-new-inbound')).toBe(false);

  await run(WORKFLOW_TYPES.cosell);
  const account = (await salesforceDump(sandboxes.salesforce, 'Account')).find((row) => row.Commerce_Buyer_Id__c === 'buyer-new-inbound');
  expect(account).toMatchObject({ Name: 'Northwind Newcomer' });
  const made = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).filter((row) => row.Commerce_Referral_Id__c === 'ref-new-inbound');
  expect(made).toHaveLength(1);
  expect(made[0]).toMatchObject({ AccountId: account!.Id, StageName: 'Qualification', Amount: 25000, CloseDate: '2027-04-30' });
}, 120_000);
