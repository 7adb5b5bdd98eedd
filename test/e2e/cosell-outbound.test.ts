// Co-sell from the CRM, for each CRM (Salesforce Opportunities, HubSpot deals): those marked for co-sell
// become referrals on the marketplace, exactly once, each carrying its CRM id, with the referral's id
// written back onto the record. Exactly once also when the commerce side processed a create and the
// answer was lost (a 500 after the work, a connection cut mid-answer). A record the partner's rules refuse
// shows why on the record, and once fixed it is shared once. Real Temporal, real PostgreSQL, the
// sandboxes, the production worker. The three CRMs run at the same time (each its own sandboxes, database,
// worker and task queue; much of each is a lost create being waited out); each CRM's cases run in order.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundIntentStore } from '../../store/outbound-intents.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { commerceDump } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

describe.each(CRMS_UNDER_TEST)('co-sell from %s', { concurrent: true }, (kind) => {
  let stack: CosellStack;
  let sandboxes: CosellStack['sandboxes'];
  let database: CosellStack['database'];
  let connectionId: string;
  let accounts: { id: string; buyerId: string }[];

  beforeAll(async () => {
    // A 5 s commerce timeout: a lost create is waited out 10 s (timeout + margin) instead of 35 s. A 2 s
    // look-back (production: 10 minutes): a run reads what changed since the run before (our own write-backs
    // included), not again the 300 of the first case.
    stack = await startCosellStack({ name: `cosell-${kind}`, entitlements: 40, seed: 59, crm: kind, commerceRequestTimeoutMs: 5000, lookbackSeconds: 2 });
    ({ sandboxes, database, connectionId } = stack);
    accounts = await sandboxes.crm.accounts();
  });
  afterAll(() => stack?.stop());

  const cosell = () => stack.run(WORKFLOW_TYPES.cosell);
  const crmIdOf = (referral: any) => referral[sandboxes.crm.opportunityIdField];

  /** Opportunities (deals) marked for co-sell on the synced accounts, made as a seller would (the CRM's own client). */
  async function markOpportunities(count: number, tag: string, partner = 'Marketplace B'): Promise<string[]> {
    return sandboxes.crm.createOpportunities(
      Array.from({ length: count }, (_, index) => ({
        name: `${tag} deal ${index}`,
        accountId: accounts[index % accounts.length]!.id,
        stage: sandboxes.crm.openStage,
        closeDate: '2027-03-31',
        amount: 1000 + index,
        share: true,
        partner,
      })),
    );
  }

  async function referralsOf(opportunityIds: string[]) {
    const wanted = new Set(opportunityIds);
    return (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => wanted.has(crmIdOf(referral)));
  }

  const opportunity = async (id: string) => (await sandboxes.crm.opportunities()).find((row) => row.id === id)!;

  async function expectSharedOnce(opportunityIds: string[]) {
    const referrals = await referralsOf(opportunityIds);
    expect(referrals).toHaveLength(opportunityIds.length);
    expect(new Set(referrals.map(crmIdOf)).size).toBe(opportunityIds.length);
    const referralOf = new Map(referrals.map((referral) => [crmIdOf(referral), referral]));
    const opportunities = new Map((await sandboxes.crm.opportunities()).map((row) => [row.id, row]));
    for (const id of opportunityIds) {
      const referral = referralOf.get(id)!;
      expect(referral).toMatchObject({ direction: 'OUTBOUND', partner: 'cloudB' });
      expect(opportunities.get(id)).toMatchObject({ referralId: referral.id, cosellStatus: referral.status, cosellErrors: undefined });
    }
  }

  describe('in order', { concurrent: false }, () => {
    it('300 opportunities marked for co-sell become exactly 300 referrals, each carrying its CRM id, written back on each', async () => {
      const ids = await markOpportunities(300, 'plain');
      const totals = await cosell();
      expect(totals).toMatchObject({ created: 300, refused: 0 });
      await expectSharedOnce(ids);
      const referral = (await referralsOf(ids.slice(0, 1)))[0]!;
      expect(referral).toMatchObject({ name: 'plain deal 0', dealValue: 1000, currency: 'USD', expectedCloseDate: '2027-03-31', buyerID: accounts[0]!.buyerId });
      expect((await opportunity(ids[0]!)).referralId).toBe(referral.id);

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
      const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue: stack.taskQueue, workflowId: `cosell-lost-${kind}-${Date.now()}`, args: [{ connectionId }] });
      // Let every create of the first attempt happen and its answer be lost (the 60 go out as two calls,
      // 50 and 10, at once: clearing the fault after the first landed let the other succeed), then let the
      // service answer again. The attempt fails once every chunk it sent has settled: its retry (waiting the
      // lost creates out before it looks) is the sign. A second page of the run (records the previous case
      // wrote back share the window) then creates without the fault, instead of losing its answers too.
      for (let tries = 0; !((await handle.describe()).raw.pendingActivities ?? []).some((activity) => (activity.attempt ?? 1) > 1); tries += 1) {
        expect(tries, 'the first attempt did not fail').toBeLessThan(600);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await createdFor(ids)).toBeGreaterThan(0);
      await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
      const totals = await handle.result();
      expect(totals.created + totals.adopted).toBe(60);
      expect(totals.adopted).toBeGreaterThan(0);
      await expectSharedOnce(ids);
      expect(await createOutboundIntentStore(database.pool).count(connectionId, 'opportunity-referral', 'pending')).toBe(0);
    }, 180_000);

    it('an opportunity the rules refuse shows why on the record; fixed, it is shared once and the errors are cleared', async () => {
      const orphanAccount = await sandboxes.crm.createAccount('Not on any marketplace');
      const [made] = await sandboxes.crm.createOpportunities([{ name: 'Needs a buyer', accountId: orphanAccount, stage: sandboxes.crm.openStage, closeDate: '2027-01-31', share: true, partner: 'Marketplace B' }]);
      await cosell();
      const refused = await opportunity(made!);
      expect(refused.cosellErrors).toMatch(/^buyerID: the (account|deal|opportunity's Account) is not (linked|associated) to a/);
      expect(refused.referralId).toBeUndefined();
      expect(await referralsOf([made!])).toHaveLength(0);
      // Unchanged, it is not tried again (the errors written back are our own echo).
      expect(await cosell()).toMatchObject({ refused: 0, created: 0 });

      // The salesperson moves it onto an account that is a marketplace buyer.
      await sandboxes.crm.updateOpportunity(made!, { accountId: accounts[1]!.id });
      expect(await cosell()).toMatchObject({ created: 1 });
      expect(await cosell()).toMatchObject({ created: 0 });
      const fixed = await opportunity(made!);
      const [referral] = await referralsOf([made!]);
      expect(fixed).toMatchObject({ referralId: referral!.id, cosellErrors: undefined });
    }, 180_000);
  });

  async function createdFor(ids: string[]): Promise<number> {
    return (await referralsOf(ids)).length;
  }
});
