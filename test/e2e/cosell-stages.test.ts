// Stages both ways under the declared policy, through the real co-sell workflow, for each CRM: a change
// on either side reaches the other in one run; a change made by the sync does not come back as an echo;
// conflicting changes resolve by the policy (latest, commerce, crm: one test each); a change the commerce
// side refuses for now (409 while the partner reviews) waits, is not resent in a loop, and lands once it may.
// The three CRMs run at the same time (each its own sandboxes, database, worker and task queue); each CRM's
// cases run in order. A 2 s look-back (production: 10 minutes): a run reads what changed since the run
// before, not again every pair the earlier cases made.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createStageSyncStore } from '../../store/stage-sync.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { commerceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

/** The CRM stages the tests move to, by what they mean (Salesforce's standard stages, HubSpot's default ones, Dynamics' Sales Process phases). */
const STAGES = {
  salesforce: { prospect: 'Prospecting', qualified: 'Qualification', technical: 'Needs Analysis', business: 'Proposal/Price Quote', committed: 'Negotiation/Review', won: 'Closed Won', lost: 'Closed Lost' },
  dynamics: { prospect: '0-Prospect', qualified: '1-Qualify', technical: '2-Develop', business: '3-Propose', committed: '4-Close', won: 'Won', lost: 'Lost' },
  hubspot: { prospect: 'Appointment Scheduled', qualified: 'Qualified To Buy', technical: 'Presentation Scheduled', business: 'Decision Maker Bought-In', committed: 'Contract Sent', won: 'Closed Won', lost: 'Closed Lost' },
};

describe.each(CRMS_UNDER_TEST)('stages both ways with %s (real Temporal, both sandboxes)', { concurrent: true }, (kind) => {
  let stack: CosellStack;
  let sandboxes: CosellStack['sandboxes'];
  let run: CosellStack['run'];
  let database: CosellStack['database'];
  let connectionId: string;
  let accounts: { id: string }[];
  const stage = STAGES[kind];

  beforeAll(async () => {
    stack = await startCosellStack({ name: `stages-${kind}`, entitlements: 30, seed: 73, crm: kind, lookbackSeconds: 2 });
    ({ sandboxes, run, database, connectionId } = stack);
    accounts = await sandboxes.crm.accounts();
  });
  afterAll(() => stack?.stop());

  const commerce = () => createCommerceClient({ baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, clientSecret: sandboxes.commerce.clientSecret });
  const referralOf = async (opportunityId: string) => (await commerceDump(sandboxes.commerce, 'referrals')).find((referral) => referral[sandboxes.crm.opportunityIdField] === opportunityId)!;
  const opportunity = async (id: string) => (await sandboxes.crm.opportunities()).find((row) => row.id === id)!;
  const setCrmStage = (id: string, to: string) => sandboxes.crm.updateOpportunity(id, { stage: to });
  const setCommerceStage = (referralId: string, to: string) => commerce().referrals.update(sandboxes.commerce.organizationId, referralId, { stage: to });
  const setOwner = async (owner: 'commerce' | 'crm' | 'latest') => {
    const connections = createConnectionStore(database.pool, TEST_SECRET_BOX);
    const current = (await connections.get(connectionId))!;
    const settings = current.settings as { cosell?: Record<string, unknown> };
    await connections.update(connectionId, { settings: { ...settings, cosell: { ...settings.cosell, owners: { stage: owner } } } });
  };
  const referralPatches = async () => {
    const { operations } = (await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> };
    return operations['PATCH /org/{orgId}/cosell/referral/{referralId}'] ?? 0;
  };

  /** A shared opportunity and its referral, in step. */
  async function pair(name: string): Promise<{ opportunityId: string; referralId: string }> {
    const [made] = await sandboxes.crm.createOpportunities([{ name, accountId: accounts[0]!.id, stage: stage.prospect, closeDate: '2027-05-31', share: true, partner: 'Marketplace D' }]);
    await run(WORKFLOW_TYPES.cosell);
    const referral = await referralOf(made!);
    expect(referral.stage).toBe('Prospect');
    return { opportunityId: made!, referralId: referral.id };
  }

  describe('in order', { concurrent: false }, () => {
    it('a stage change on either side reaches the other in one run, and does not come back as an echo', async () => {
      await setOwner('latest');
      const { opportunityId, referralId } = await pair('Both ways');
      await setCrmStage(opportunityId, stage.qualified);
      await run(WORKFLOW_TYPES.cosell);
      expect((await referralOf(opportunityId)).stage).toBe('Qualified');

      await setCommerceStage(referralId, 'Committed');
      await run(WORKFLOW_TYPES.cosell);
      expect(await opportunity(opportunityId)).toMatchObject({ stage: stage.committed, cosellStage: 'Committed' });

      // The changes the sync made, read back on both sides, are no news: nothing is written either way.
      await post(`${sandboxes.commerce.apiUrl}/_sandbox/calls/reset`);
      const again = await run(WORKFLOW_TYPES.cosell);
      expect(again.stages).toMatchObject({ toCrm: 0, toCommerce: 0 });
      expect(await referralPatches()).toBe(0);
      expect((await referralOf(opportunityId)).stage).toBe('Committed');
    }, 180_000);

    it("latest: when both sides changed, the later change wins, by each side's own clock", async () => {
      await setOwner('latest');
      const first = await pair('CRM later');
      const second = await pair('Commerce later');
      // Each pair's one side now, its other side a little over 2 s later (a stamp may keep whole seconds only).
      await setCommerceStage(first.referralId, 'Business Validation');
      await setCrmStage(second.opportunityId, stage.qualified);
      await sleep(2100);
      await setCrmStage(first.opportunityId, stage.lost);
      await setCommerceStage(second.referralId, 'Technical Validation');
      await run(WORKFLOW_TYPES.cosell);
      expect((await referralOf(first.opportunityId)).stage).toBe('Closed Lost');
      expect((await opportunity(first.opportunityId)).stage).toBe(stage.lost);
      expect((await referralOf(second.opportunityId)).stage).toBe('Technical Validation');
      expect((await opportunity(second.opportunityId)).stage).toBe(stage.technical);
    }, 180_000);

    it("commerce owns the stage: a CRM change is put back to the commerce side's", async () => {
      await setOwner('latest');
      const { opportunityId, referralId } = await pair('Commerce owns');
      await setOwner('commerce');
      await setCommerceStage(referralId, 'Qualified');
      await setCrmStage(opportunityId, stage.won);
      await run(WORKFLOW_TYPES.cosell);
      expect((await opportunity(opportunityId)).stage).toBe(stage.qualified);
      expect((await referralOf(opportunityId)).stage).toBe('Qualified');
    }, 180_000);

    it("crm owns the stage: a commerce change is put back to the CRM's", async () => {
      await setOwner('latest');
      const { opportunityId, referralId } = await pair('CRM owns');
      await setOwner('crm');
      await setCrmStage(opportunityId, stage.technical);
      await setCommerceStage(referralId, 'Launched');
      await run(WORKFLOW_TYPES.cosell);
      expect((await referralOf(opportunityId)).stage).toBe('Technical Validation');
      expect((await opportunity(opportunityId)).stage).toBe(stage.technical);
    }, 180_000);

    it('a change the commerce side refuses for now waits with its reason, is not resent in a loop, and lands later', async () => {
      await setOwner('latest');
      const { opportunityId, referralId } = await pair('Under review');
      await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: 'PATCH /org/{orgId}/cosell/referral/{referralId}', status: 409, ids: [referralId], body: { code: 'FAILED_PRECONDITION', message: `referral ${referralId} is under partner review` } });
      await setCrmStage(opportunityId, stage.business);
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
});
