// A CRM that refuses one stage write, through the real co-sell workflow, for each CRM (issue #24 defects 1
// and 5): the refused record waits in stage_sync with the CRM's own words while the rest of the page and
// the cursor go on; a stage the CRM took the save of but did not keep is a refusal too, so the next run
// never undoes the partner's move; once the CRM takes it, it lands. How each CRM refuses:
// - Salesforce: StageName is a restricted picklist; the connection's stage table names a value the org's
//   picklist lacks (an admin deactivated it after the table was saved): INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST.
// - HubSpot: the table names a stage label the deal's pipeline lacks; the connector leaves it out of the
//   save, which HubSpot answers with success and the deal keeps its stage (the silent case).
// - Dynamics 365: a synchronous plug-in on Update of the opportunity throws InvalidPluginExecutionException:
//   Dataverse answers 0x80040265 (IsvAborted) with the plug-in's message.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createStageSyncStore } from '../../store/stage-sync.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { commerceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';

const STAGES = {
  salesforce: { prospect: 'Prospecting', qualified: 'Qualification', technical: 'Needs Analysis', committed: 'Negotiation/Review' },
  dynamics: { prospect: '0-Prospect', qualified: '1-Qualify', technical: '2-Develop', committed: '4-Close' },
  hubspot: { prospect: 'Appointment Scheduled', qualified: 'Qualified To Buy', technical: 'Presentation Scheduled', committed: 'Contract Sent' },
};
/** A stage value neither Salesforce's picklist nor HubSpot's pipelines have. */
const UNKNOWN_STAGE = 'Partner Committed';
const PLUGIN_MESSAGE = 'Opportunities under legal review cannot change stage (contoso.LegalHold plug-in)';

/** What the refusal kept in stage_sync says, by CRM: the CRM's own code or words. */
const REFUSAL_WORDS = {
  salesforce: [/INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST/, /bad value for restricted picklist field: Partner Committed/],
  hubspot: [/HubSpot took the save of deals \d+ but its dealstage is still "Appointment Scheduled", not "Partner Committed"/],
  dynamics: [/0x80040265/, /Opportunities under legal review cannot change stage/],
};

describe.each(CRMS_UNDER_TEST)('a stage write %s refuses (real Temporal, both sandboxes)', (kind) => {
  let stack: CosellStack;
  let connectionId: string;
  let accounts: { id: string }[];
  const stage = STAGES[kind];

  beforeAll(async () => {
    stack = await startCosellStack({ name: `stage-refusals-${kind}`, entitlements: 30, seed: 91, crm: kind });
    connectionId = stack.connectionId;
    accounts = await stack.sandboxes.crm.accounts();
  });
  afterAll(() => stack?.stop());

  /** One co-sell run that must end on its own: a run retrying for ever fails here after two minutes. */
  const run = async () =>
    new Client({ connection: stack.worker.connection }).workflow.execute(WORKFLOW_TYPES.cosell, {
      taskQueue: stack.taskQueue,
      workflowId: `stage-refusals-${kind}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      args: [{ connectionId }],
      workflowExecutionTimeout: '2 minutes',
    }) as Promise<any>;
  const commerce = () => createCommerceClient({ baseUrl: stack.sandboxes.commerce.apiUrl, authUrl: stack.sandboxes.commerce.authUrl, clientId: stack.sandboxes.commerce.clientId, clientSecret: stack.sandboxes.commerce.clientSecret });
  const referralOf = async (opportunityId: string) => (await commerceDump(stack.sandboxes.commerce, 'referrals')).find((referral) => referral[stack.sandboxes.crm.opportunityIdField] === opportunityId)!;
  const crmStageOf = async (id: string) => (await stack.sandboxes.crm.opportunities()).find((row) => row.id === id)!.stage;
  const setCommerceStage = (referralId: string, to: string) => commerce().referrals.update(stack.sandboxes.commerce.organizationId, referralId, { stage: to });
  const setToCrm = async (toCrm: Record<string, string>) => {
    const connections = createConnectionStore(stack.database.pool, TEST_SECRET_BOX);
    const current = (await connections.get(connectionId))!;
    const settings = current.settings as { cosell?: Record<string, unknown> };
    await connections.update(connectionId, { settings: { ...settings, cosell: { ...settings.cosell, stages: { toCrm } } } });
  };
  const waitingRow = async (referralId: string) => (await createStageSyncStore(stack.database.pool).pending(connectionId)).find((row) => row.referralId === referralId);

  /** The CRM starts refusing Committed for one opportunity (Salesforce, HubSpot: for every one: the table names a value the CRM lacks). */
  async function refuse(opportunityId: string) {
    if (kind === 'dynamics') await dynamicsControl(stack.sandboxes.crm.dynamics!, 'POST', '/plugins', { table: 'opportunity', ids: [opportunityId], message: PLUGIN_MESSAGE });
    else await setToCrm({ Committed: UNKNOWN_STAGE });
  }
  async function stopRefusing() {
    if (kind === 'dynamics') await dynamicsControl(stack.sandboxes.crm.dynamics!, 'DELETE', '/plugins');
    else await setToCrm({});
  }

  async function pair(name: string): Promise<{ opportunityId: string; referralId: string }> {
    const [made] = await stack.sandboxes.crm.createOpportunities([{ name, accountId: accounts[0]!.id, stage: stage.prospect, closeDate: '2027-05-31', share: true, partner: 'Marketplace D' }]);
    await run();
    const referral = await referralOf(made!);
    expect(referral.stage).toBe('Prospect');
    return { opportunityId: made!, referralId: referral.id };
  }

  it("one refused record waits with the CRM's own words, the rest of the page goes on, the partner's move is never undone, and it lands once the CRM takes it", async () => {
    const refused = await pair('Refused stage');
    const other = await pair('Taken stage');
    await refuse(refused.opportunityId);

    // The partner moves both referrals; the CRM refuses one of the two stage writes.
    await setCommerceStage(refused.referralId, 'Committed');
    await setCommerceStage(other.referralId, 'Qualified');
    const first = await run();
    expect(first.stages).toMatchObject({ toCrm: 1, queued: 1, crmRefused: 1 });
    expect(await crmStageOf(other.opportunityId)).toBe(stage.qualified);
    expect(await crmStageOf(refused.opportunityId)).toBe(stage.prospect);
    const waiting = await waitingRow(refused.referralId);
    expect(waiting).toMatchObject({ pendingSide: 'crm', pendingStage: kind === 'dynamics' ? stage.committed : UNKNOWN_STAGE, pendingAttempts: 1 });
    for (const words of REFUSAL_WORDS[kind]) expect(waiting!.pendingReason).toMatch(words);

    // The next run, before the refused write's time: the cursor went on (a new move of the other pair
    // lands), the refused one is not written again, and the referral keeps the partner's stage.
    await setCommerceStage(other.referralId, 'Technical Validation');
    const second = await run();
    expect(second.stages.waiting).toBeGreaterThanOrEqual(1);
    expect(await crmStageOf(other.opportunityId)).toBe(stage.technical);
    expect((await referralOf(refused.opportunityId)).stage).toBe('Committed');
    expect(await crmStageOf(refused.opportunityId)).toBe(stage.prospect);

    // The CRM takes it now and its time has come: it lands, once, and nothing waits.
    await stopRefusing();
    await stack.database.pool.query(`UPDATE stage_sync SET next_try_at = now() - interval '1 second' WHERE connection_id = $1 AND referral_id = $2`, [connectionId, refused.referralId]);
    await run();
    expect(await crmStageOf(refused.opportunityId)).toBe(stage.committed);
    expect((await referralOf(refused.opportunityId)).stage).toBe('Committed');
    expect(await waitingRow(refused.referralId)).toBeUndefined();
  }, 300_000);
});
