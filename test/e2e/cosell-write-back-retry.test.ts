// A co-sell outcome the CRM refused to take onto the Opportunity (issue #24 item 7), for the CRMs whose
// sandbox can refuse a save when asked: the referral is made, its id cannot be written back, and the
// record becomes a dead letter under the flow's name. `crm-sync dead-letters --retry` (here its store
// step, then the co-sell run the command starts) must write the outcome again from the intent row, even
// when the Opportunity changed longer ago than the look-back (the flow reads it no more). Before, nothing
// retried these letters: the command said it did, and the Opportunity never learnt its referral.
// How each CRM refuses: Salesforce, a row lock its parent Account is held under (UNABLE_TO_LOCK_ROW, the
// sandbox's /row-locks control); Dynamics 365, a synchronous plug-in on Update of the opportunity
// (0x80040265). HubSpot's sandbox has no per-save refusal to ask for (a gap noted in the report).
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { control as salesforceControl } from '../../sandbox/salesforce/testing.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { waitFor } from '../support/start-process.ts';
import { commerceDump } from '../support/sync-harness.ts';

const REFUSING = CRMS_UNDER_TEST.filter((kind) => kind === 'salesforce' || kind === 'dynamics');

describe.each(REFUSING)('refused co-sell write-backs on %s are retried', (kind) => {
  let stack: CosellStack;

  beforeAll(async () => {
    stack = await startCosellStack({ name: `cosell-wb-retry-${kind}`, entitlements: 30, seed: 67, crm: kind });
  });
  afterAll(() => stack?.stop());

  async function refuseSaves(ids: string[]) {
    if (kind === 'salesforce') await salesforceControl(stack.sandboxes.salesforce, 'POST', '/row-locks', { failureRate: 1 });
    else await dynamicsControl(stack.sandboxes.crm.dynamics!, 'POST', '/plugins', { table: 'opportunity', ids, message: 'Opportunities under legal review cannot be edited (contoso.LegalHold plug-in)' });
  }
  async function takeSaves() {
    if (kind === 'salesforce') await salesforceControl(stack.sandboxes.salesforce, 'POST', '/row-locks', { failureRate: 0 });
    else await dynamicsControl(stack.sandboxes.crm.dynamics!, 'DELETE', '/plugins');
  }

  it('the referral id reaches the Opportunity once the CRM takes the save, by the retry alone', async () => {
    const { sandboxes, connectionId, database } = stack;
    const accounts = await sandboxes.crm.accounts();
    const ids = await sandboxes.crm.createOpportunities(
      Array.from({ length: 3 }, (_, index) => ({ name: `refused write-back ${index}`, accountId: accounts[index]!.id, stage: sandboxes.crm.openStage, closeDate: '2027-05-31', amount: 700 + index, share: true, partner: 'Marketplace D' })),
    );
    await refuseSaves(ids);
    const handle = await new Client({ connection: stack.worker.connection }).workflow.start(WORKFLOW_TYPES.cosell, { taskQueue: stack.taskQueue, workflowId: `cosell-wb-${kind}-${Date.now()}`, args: [{ connectionId }] });
    // The CRM takes saves again once the outcomes were refused (other writes of the run may wait for it).
    const open = () => createDeadLetterStore(database.pool).listOpen(connectionId, 'opportunity-referral');
    await waitFor('the three refused write-backs kept as dead letters', async () => (await open()).length >= 3, 120_000, 100);
    await takeSaves();
    const first = await handle.result();
    expect(first.created).toBe(3);
    const field = sandboxes.crm.opportunityIdField;
    const referrals = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.includes(referral[field]));
    expect(referrals).toHaveLength(3);
    const letters = (await createDeadLetterStore(database.pool).listOpen(connectionId, 'opportunity-referral')).map((letter) => letter.sourceId).sort();
    expect(letters).toEqual([...ids].sort());
    for (const id of ids) expect((await sandboxes.crm.opportunities()).find((row) => row.id === id)?.referralId).toBeUndefined();

    // Longer ago than the look-back: the flows' and the stage pass's windows have moved past these Opportunities.
    await database.pool.query(`UPDATE sync_cursors SET last_update_time = now() + interval '11 minutes' WHERE connection_id = $1`, [connectionId]);
    // crm-sync dead-letters --retry: the letters are due now; the co-sell run it starts writes them.
    expect(await createDeadLetterStore(database.pool).retryByHand(connectionId, { entity: 'opportunity-referral' })).toMatchObject({ due: 3 });
    await stack.run(WORKFLOW_TYPES.cosell);

    const opportunities = new Map((await sandboxes.crm.opportunities()).map((row) => [row.id, row]));
    for (const referral of referrals) expect(opportunities.get(referral[field])).toMatchObject({ referralId: referral.id, cosellStatus: referral.status });
    expect(await createDeadLetterStore(database.pool).listOpen(connectionId, 'opportunity-referral')).toEqual([]);
    // Written, they are not written again.
    expect((await stack.run(WORKFLOW_TYPES.cosell)).writeBacks).toBe(0);
  }, 240_000);
});
