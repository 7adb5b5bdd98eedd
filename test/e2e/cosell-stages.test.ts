// Stages both ways under the declared policy, through the real co-sell workflow: a change on either side
// reaches the other in one run; a change made by the sync does not come back as an echo; conflicting
// changes resolve by the policy (latest, commerce, crm: one test each); a change the commerce side refuses
// for now (409 while the partner reviews) waits, is not resent in a loop, and lands once it may.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createStageSyncStore } from '../../store/stage-sync.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

let stack: CosellStack;
let sandboxes: CosellStack['sandboxes'];
let run: CosellStack['run'];
let database: CosellStack['database'];
let connectionId: string;
let accounts: { Id: string }[];

beforeAll(async () => {
  stack = await startCosellStack({ name: 'stages', entitlements: 30, seed: 73 });
  ({ sandboxes, run, database, connectionId } = stack);
  accounts = (await salesforceDump(sandboxes.salesforce, 'Account')).filter((account) => account.Commerce_Buyer_Id__c);
});
afterAll(() => stack?.stop());

const commerce = () => createCommerceClient({ baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, clientSecret: sandboxes.commerce.clientSecret });
const referralOf = async (opportunityId: string) => (await commerceDump(sandboxes.commerce, 'referrals')).find((referral) => referral.crmAOpportunityId === opportunityId)!;
const opportunity = async (id: string) => (await salesforceDump(sandboxes.salesforce, 'Opportunity')).find((row) => row.Id === id)!;
const setCrmStage = async (id: string, stage: string) => (await clientCredentialsConnection(sandboxes.salesforce)).conn.sobject('Opportunity').update({ Id: id, StageName: stage });
const setCommerceStage = (referralId: string, stage: string) => commerce().referrals.update(sandboxes.commerce.organizationId, referralId, { stage });
const setOwner = async (stage: 'commerce' | 'crm' | 'latest') => {
  const connections = createConnectionStore(database.pool, TEST_SECRET_BOX);
  const current = (await connections.get(connectionId))!;
  const settings = current.settings as { cosell?: Record<string, unknown> };
  await connections.update(connectionId, { settings: { ...settings, cosell: { ...settings.cosell, owners: { stage } } } });
};
const referralPatches = async () => {
  const { operations } = (await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> };
  return operations['PATCH /org/{orgId}/cosell/referral/{referralId}'] ?? 0;
};

/** A shared Opportunity and its referral, in step. */
async function pair(name: string): Promise<{ opportunityId: string; referralId: string }> {
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const made = (await conn.sobject('Opportunity').create({ Name: name, AccountId: accounts[0]!.Id, StageName: 'Prospecting', CloseDate: '2027-05-31', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace D' })) as { id: string };
  await run(WORKFLOW_TYPES.cosell);
  const referral = await referralOf(made.id);
  expect(referral.stage).toBe('Prospect');
  return { opportunityId: made.id, referralId: referral.id };
}

describe('stages both ways (real Temporal, both sandboxes)', () => {
  it('a stage change on either side reaches the other in one run, and does not come back as an echo', async () => {
    await setOwner('latest');
    const { opportunityId, referralId } = await pair('Both ways');
    await setCrmStage(opportunityId, 'Qualification');
    await run(WORKFLOW_TYPES.cosell);
    expect((await referralOf(opportunityId)).stage).toBe('Qualified');

    await setCommerceStage(referralId, 'Committed');
    await run(WORKFLOW_TYPES.cosell);
    expect(await opportunity(opportunityId)).toMatchObject({ StageName: 'Negotiation/Review', Cosell_Stage__c: 'Committed' });

    // The changes the sync made, read back on both sides, are no news: nothing is written either way.
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/calls/reset`);
    const again = await run(WORKFLOW_TYPES.cosell);
    expect(again.stages).toMatchObject({ toCrm: 0, toCommerce: 0 });
    expect(await referralPatches()).toBe(0);
    expect((await referralOf(opportunityId)).stage).toBe('Committed');
  }, 180_000);

  it('latest: when both sides changed, the later change wins, by each side\'s own clock', async () => {
    await setOwner('latest');
    const first = await pair('CRM later');
    await setCommerceStage(first.referralId, 'Business Validation');
    await sleep(2100);
    await setCrmStage(first.opportunityId, 'Closed Lost');
    const second = await pair('Commerce later');
    await setCrmStage(second.opportunityId, 'Qualification');
    await sleep(2100);
    await setCommerceStage(second.referralId, 'Technical Validation');
    await run(WORKFLOW_TYPES.cosell);
    expect((await referralOf(first.opportunityId)).stage).toBe('Closed Lost');
    expect((await opportunity(first.opportunityId)).StageName).toBe('Closed Lost');
    expect((await referralOf(second.opportunityId)).stage).toBe('Technical Validation');
    expect((await opportunity(second.opportunityId)).StageName).toBe('Needs Analysis');
  }, 180_000);

  it('commerce owns the stage: a CRM change is put back to the commerce side\'s', async () => {
    await setOwner('latest');
    const { opportunityId, referralId } = await pair('Commerce owns');
    await setOwner('commerce');
    await setCommerceStage(referralId, 'Qualified');
    await setCrmStage(opportunityId, 'Closed Won');
    await run(WORKFLOW_TYPES.cosell);
    expect((await opportunity(opportunityId)).StageName).toBe('Qualification');
    expect((await referralOf(opportunityId)).stage).toBe('Qualified');
  }, 180_000);

  it('crm owns the stage: a commerce change is put back to the CRM\'s', async () => {
    await setOwner('latest');
    const { opportunityId, referralId } = await pair('CRM owns');
    await setOwner('crm');
    await setCrmStage(opportunityId, 'Needs Analysis');
    await setCommerceStage(referralId, 'Launched');
    await run(WORKFLOW_TYPES.cosell);
    expect((await referralOf(opportunityId)).stage).toBe('Technical Validation');
    expect((await opportunity(opportunityId)).StageName).toBe('Needs Analysis');
  }, 180_000);

  it('a change the commerce side refuses for now waits with its reason, is not resent in a loop, and lands later', async () => {
    await setOwner('latest');
    const { opportunityId, referralId } = await pair('Under review');
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: 'PATCH /org/{orgId}/cosell/referral/{referralId}', status: 409, ids: [referralId], body: { code: 'FAILED_PRECONDITION', message: `referral ${referralId} is under partner review` } });
    await setCrmStage(opportunityId, 'Proposal/Price Quote');
    const refused = await run(WORKFLOW_TYPES.cosell);
    expect(refused.stages.queued).toBe(1);
    const [waiting] = (await createStageSyncStore(database.pool).pending(connectionId)).filter((row) => row.referralId === referralId);
    expect(waiting).toMatchObject({ pendingSide: 'commerce', pendingStage: 'Business Validation', pendingAttempts: 1 });
    expect(waiting!.pendingReason).toMatch(/under partner review/);
    expect((await referralOf(opportunityId)).stage).toBe('Prospect');

    // The next run, before its time: not sent again.
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/calls/reset`);
    await run(WORKFLOW_TYPES.cosell);
    expect(await referralPatches()).toBe(0);

    // The review is over and its time has come: it lands, once.
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
    await database.pool.query(`UPDATE stage_sync SET next_try_at = now() - interval '1 second' WHERE connection_id = $1 AND referral_id = $2`, [connectionId, referralId]);
    await run(WORKFLOW_TYPES.cosell);
    expect((await referralOf(opportunityId)).stage).toBe('Business Validation');
    expect((await createStageSyncStore(database.pool).pending(connectionId)).filter((row) => row.referralId === referralId)).toEqual([]);
  }, 180_000);
});
