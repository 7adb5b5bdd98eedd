// Co-sell from Salesforce: Opportunities marked for co-sell become referrals on the marketplace, exactly
// once, each carrying its Opportunity's Id, with the referral's id written back onto the Opportunity.
// Exactly once also when the commerce side processed a create and the answer was lost (a 500 after the
// work, a connection cut mid-answer). An Opportunity the partner's rules refuse shows why on the record,
// and once fixed it is shared once. Real Temporal, real PostgreSQL, both sandboxes, the production worker.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createOutboundIntentStore } from '../../store/outbound-intents.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

let stack: CosellStack;
let sandboxes: CosellStack['sandboxes'];
let database: CosellStack['database'];
let connectionId: string;
let accounts: { Id: string; Commerce_Buyer_Id__c: string }[];

beforeAll(async () => {
  stack = await startCosellStack({ name: 'cosell', entitlements: 40, seed: 59 });
  ({ sandboxes, database, connectionId } = stack);
  accounts = (await salesforceDump(sandboxes.salesforce, 'Account')).filter((account) => account.Commerce_Buyer_Id__c);
});
afterAll(() => stack?.stop());

const cosell = () => stack.run(WORKFLOW_TYPES.cosell);

/** Opportunities marked for co-sell on the synced Accounts, made as a seller would (jsforce, collections). */
async function markOpportunities(count: number, tag: string, partner = 'Marketplace B'): Promise<string[]> {
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const records = Array.from({ length: count }, (_, index) => ({
    Name: `${tag} deal ${index}`,
    AccountId: accounts[index % accounts.length]!.Id,
    StageName: 'Prospecting',
    CloseDate: '2027-03-31',
    Amount: 1000 + index,
    Cosell_Share__c: true,
    Cosell_Partner__c: partner,
  }));
  const results = (await conn.sobject('Opportunity').create(records, { allOrNone: true, allowRecursive: true })) as { id: string; success: boolean }[];
  expect(results.every((result) => result.success)).toBe(true);
  return results.map((result) => result.id);
}

async function referralsOf(opportunityIds: string[]) {
  const wanted = new Set(opportunityIds);
  return (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => wanted.has(referral.crmAOpportunityId));
}

async function expectSharedOnce(opportunityIds: string[]) {
  const referrals = await referralsOf(opportunityIds);
  expect(referrals).toHaveLength(opportunityIds.length);
  expect(new Set(referrals.map((referral) => referral.crmAOpportunityId)).size).toBe(opportunityIds.length);
  const referralOf = new Map(referrals.map((referral) => [referral.crmAOpportunityId, referral]));
  const opportunities = new Map((await salesforceDump(sandboxes.salesforce, 'Opportunity')).map((row) => [row.Id, row]));
  for (const id of opportunityIds) {
    const referral = referralOf.get(id)!;
    expect(referral).toMatchObject({ direction: 'OUTBOUND', partner: 'cloudB' });
    expect(opportunities.get(id)).toMatchObject({ Commerce_Referral_Id__c: referral.id, Cosell_Status__c: referral.status, Cosell_Errors__c: null });
  }
}

it('300 Opportunities marked for co-sell become exactly 300 referrals, each carrying its Opportunity Id, written back on each', async () => {
  const ids = await markOpportunities(300, 'plain');
  const totals = await cosell();
  expect(totals).toMatchObject({ created: 300, refused: 0 });
  await expectSharedOnce(ids);
  const referral = (await referralsOf(ids.slice(0, 1)))[0]!;
  const opportunity = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Id === ids[0])!;
  expect(referral).toMatchObject({ name: 'plain deal 0', dealValue: 1000, currency: 'USD', expectedCloseDate: '2027-03-31', buyerID: accounts[0]!.Commerce_Buyer_Id__c });
  expect(opportunity.Commerce_Referral_Id__c).toBe(referral.id);

  // Our own write-back, read back, is no news: the next run creates nothing and writes nothing.
  const again = await cosell();
  expect(again).toMatchObject({ created: 0, adopted: 0, writeBacks: 0 });
  await expectSharedOnce(ids);
}, 180_000);

it.each([
  ['a 500 after the commerce side did the work', { rate500After: 1 }],
  ['a connection cut in the middle of the answer', { truncatedRate: 1 }],
])('exactly once when %s: the lost create is found and adopted, never repeated', async (_name, fault) => {
  const ids = await markOpportunities(60, `lost-${Object.keys(fault)[0]}`);
  await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: 'POST /org/{orgId}/cosell/referral/batchCreate', ...fault });
  const client = new Client({ connection: stack.worker.connection });
  const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue: stack.taskQueue, workflowId: `cosell-lost-${Date.now()}`, args: [{ connectionId }] });
  // Let the first attempt's create happen and its answer be lost, then let the service answer again.
  for (let tries = 0; (await createdFor(ids)) === 0; tries += 1) {
    expect(tries).toBeLessThan(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
  const totals = await handle.result();
  expect(totals.created + totals.adopted).toBe(60);
  expect(totals.adopted).toBeGreaterThan(0);
  await expectSharedOnce(ids);
  expect(await createOutboundIntentStore(database.pool).count(connectionId, 'opportunity-referral', 'pending')).toBe(0);
}, 180_000);

it('an Opportunity the rules refuse shows why on the record; fixed, it is shared once and the errors are cleared', async () => {
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const orphanAccount = (await conn.sobject('Account').create({ Name: 'Not on any marketplace' })) as { id: string };
  const made = (await conn.sobject('Opportunity').create({ Name: 'Needs a buyer', AccountId: orphanAccount.id, StageName: 'Prospecting', CloseDate: '2027-01-31', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B' })) as { id: string };
  await cosell();
  const refused = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Id === made.id)!;
  expect(refused.Cosell_Errors__c).toMatch(/^buyerID: the account is not linked to a marketplace buyer/);
  expect(refused.Commerce_Referral_Id__c ?? null).toBeNull();
  expect(await referralsOf([made.id])).toHaveLength(0);
  // Unchanged, it is not tried again (the errors written back are our own echo).
  expect(await cosell()).toMatchObject({ refused: 0, created: 0 });

  // The salesperson moves it onto an Account that is a marketplace buyer.
  await conn.sobject('Opportunity').update({ Id: made.id, AccountId: accounts[1]!.Id });
  expect(await cosell()).toMatchObject({ created: 1 });
  expect(await cosell()).toMatchObject({ created: 0 });
  const fixed = (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Id === made.id)!;
  const [referral] = await referralsOf([made.id]);
  expect(fixed).toMatchObject({ Commerce_Referral_Id__c: referral!.id, Cosell_Errors__c: null });
}, 180_000);

async function createdFor(ids: string[]): Promise<number> {
  return (await referralsOf(ids)).length;
}
