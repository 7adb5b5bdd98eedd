// Co-sell creates against a commerce service that commits late (issue #24 item 6), for each CRM: the
// batch create's connection drops at once and the service creates the referrals 3 seconds later. The
// activity's retry (a second later) used to look, find nothing yet, and create every referral again.
// Now the retry waits until the lost create is surely visible (the client's request timeout after the
// failure), looks, and adopts: one referral per Opportunity. Real Temporal, real PostgreSQL, the sandboxes.
// The three CRMs run at the same time (each its own sandboxes, database, worker and task queue; most of
// each case is the lost create being waited out).
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundIntentStore } from '../../store/outbound-intents.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { waitFor } from '../support/start-process.ts';
import { commerceDump } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

describe.each(CRMS_UNDER_TEST)('co-sell from %s against late commits', { concurrent: true }, (kind) => {
  let stack: CosellStack;

  beforeAll(async () => {
    // A 5 s commerce timeout (the late commits land 3 s after the failure, within it): a lost create is waited out 10 s, not 35 s.
    stack = await startCosellStack({ name: `cosell-late-${kind}`, entitlements: 30, seed: 61, crm: kind, commerceRequestTimeoutMs: 5000 });
  });
  afterAll(() => stack?.stop());

  it('a batch create answered by a dropped connection and committed 3 s later makes each referral once', async () => {
    const { sandboxes, connectionId } = stack;
    const accounts = await sandboxes.crm.accounts();
    const ids = await sandboxes.crm.createOpportunities(
      Array.from({ length: 12 }, (_, index) => ({ name: `late ${index}`, accountId: accounts[index % accounts.length]!.id, stage: sandboxes.crm.openStage, closeDate: '2027-04-30', amount: 500 + index, share: true, partner: 'Marketplace C' })),
    );
    const field = sandboxes.crm.opportunityIdField;
    const referralsOf = async () => (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.includes(referral[field]));

    await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { operation: 'POST /org/{orgId}/cosell/referral/batchCreate', lateCommitRate: 1, lateCommitMs: 3000 });
    const client = new Client({ connection: stack.worker.connection });
    const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue: stack.taskQueue, workflowId: `cosell-late-${kind}-${Date.now()}`, args: [{ connectionId }] });
    // The first create's answer is lost and its referrals land 3 s later; then the service answers again.
    await waitFor('the late-committed referrals', async () => (await referralsOf()).length > 0, 60_000, 100);
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
    const totals = await handle.result();
    // Every create the service took late has landed before anything is counted (a duplicate may land last).
    await waitFor('no late commit pending', async () => ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/late-commits`)).json()) as { pending: number }).pending === 0, 60_000, 100);

    const referrals = await referralsOf();
    expect(referrals.map((referral) => referral[field]).sort()).toEqual([...ids].sort());
    expect(totals.adopted).toBe(12);
    expect(totals.created).toBe(0);
    const opportunities = new Map((await sandboxes.crm.opportunities()).map((row) => [row.id, row]));
    for (const referral of referrals) expect(opportunities.get(referral[field])?.referralId).toBe(referral.id);
    expect(await createOutboundIntentStore(stack.database.pool).count(connectionId, 'opportunity-referral', 'pending')).toBe(0);
  }, 240_000);
});
