// Inbound referrals when the ordinary referral sync (the feed) runs before co-sell, for each CRM (issue
// #24 item 2). The other inbound tests run co-sell first; here the referral flow of every connection on
// the commerce organization goes first: the CRM's own, and beside Salesforce and Dynamics a HubSpot
// connection, whose referral deals used to write crmBDealId onto INBOUND referrals and so tell every
// connection's inbound flow that the referral was taken. Whatever ran first, each inbound referral
// becomes the seller's opportunity through the inbound flow: linked both ways, its contacts attached,
// its stage kept in step.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { OPPORTUNITY_ID_FIELDS } from '../../commerce/crm-ids.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { createCrmConnection, CRMS_UNDER_TEST, startCrmSandbox, type CrmUnderTest } from '../support/crm-sandbox.ts';
import { commerceDump } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
/** The co-sell stages a test moves to, as each CRM's stage (the default tables of the README). */
const STAGE = {
  salesforce: { Prospect: 'Prospecting', Qualified: 'Qualification', 'Technical Validation': 'Needs Analysis', 'Business Validation': 'Proposal/Price Quote', Committed: 'Negotiation/Review', Launched: 'Closed Won', 'Closed Lost': 'Closed Lost' } as Record<string, string>,
  hubspot: { Prospect: 'Appointment Scheduled', Qualified: 'Qualified To Buy', 'Technical Validation': 'Presentation Scheduled', 'Business Validation': 'Decision Maker Bought-In', Committed: 'Contract Sent', Launched: 'Closed Won', 'Closed Lost': 'Closed Lost' } as Record<string, string>,
  dynamics: { Prospect: '0-Prospect', Qualified: '1-Qualify', 'Technical Validation': '2-Develop', 'Business Validation': '3-Propose', Committed: '4-Close', Launched: 'Won', 'Closed Lost': 'Lost' } as Record<string, string>,
};
const SYNCED = ['buyer', 'contact', 'offer', 'referral'] as const;

describe.each(CRMS_UNDER_TEST)('inbound referrals into %s after the referral feed ran first', (kind) => {
  let stack: CosellStack;
  let sandboxes: CosellStack['sandboxes'];
  /** Beside Salesforce and Dynamics: a HubSpot connection on the same commerce organization, syncing referrals. */
  let hubspot: CrmUnderTest | undefined;
  let hubspotConnectionId: string | undefined;

  beforeAll(async () => {
    stack = await startCosellStack({ name: `feed-first-${kind}`, entitlements: 40, seed: 79, entities: [...SYNCED], crm: kind });
    ({ sandboxes } = stack);
    if (kind !== 'hubspot') {
      hubspot = await startCrmSandbox('hubspot');
      hubspotConnectionId = (await createCrmConnection(stack.database, sandboxes.commerce, hubspot, { name: `feed-first-hubspot-beside-${kind}`, entities: [...SYNCED] })).id;
    }
  });
  afterAll(async () => {
    await stack?.stop();
    await hubspot?.stop();
  });

  const runFor = (connectionId: string, type: string): Promise<any> =>
    new Client({ connection: stack.worker.connection }).workflow.execute(type, { taskQueue: stack.taskQueue, workflowId: `feed-first-${type}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, args: [{ connectionId }] });
  const crmIdOf = (referral: any) => referral[sandboxes.crm.opportunityIdField];

  it('each becomes one opportunity through the inbound flow: linked both ways, contacts attached, stage kept in step', async () => {
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/cosell/review`, { seconds: 0 });
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 4, kinds: ['inboundReferral'] });
    const inbound = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.direction === 'INBOUND' && OPPORTUNITY_ID_FIELDS.every((field) => !referral[field]));
    expect(inbound.length).toBeGreaterThanOrEqual(4);

    // The feed first: the ordinary sync of every connection of this commerce organization.
    if (hubspotConnectionId) await runFor(hubspotConnectionId, WORKFLOW_TYPES.incrementalSync);
    await stack.run(WORKFLOW_TYPES.incrementalSync);
    // The ordinary sync took none of them: no CRM id went back onto an inbound referral.
    for (const referral of (await commerceDump(sandboxes.commerce, 'referrals')).filter((row) => inbound.some((wanted) => wanted.id === row.id))) {
      expect(OPPORTUNITY_ID_FIELDS.filter((field) => referral[field]), referral.id).toEqual([]);
    }

    await stack.run(WORKFLOW_TYPES.cosell);
    const accountOf = new Map((await sandboxes.crm.accounts()).map((account) => [account.buyerId, account.id]));
    const opportunities = await sandboxes.crm.opportunities();
    const after = new Map((await commerceDump(sandboxes.commerce, 'referrals')).map((referral) => [referral.id, referral]));
    for (const referral of inbound) {
      const made = opportunities.filter((row) => row.referralId === referral.id);
      expect(made, referral.id).toHaveLength(1);
      expect(made[0]).toMatchObject({ name: referral.name, accountId: accountOf.get(referral.buyerID), stage: STAGE[kind][referral.stage], cosellStatus: referral.status });
      expect(crmIdOf(after.get(referral.id)!), referral.id).toBe(made[0]!.id);
      // Taken by this CRM alone: the HubSpot connection beside it wrote no deal id onto it.
      if (kind !== 'hubspot') expect(after.get(referral.id)!.crmBDealId, referral.id).toBeUndefined();
    }

    // Their contacts are attached, each once, to the contacts the contact sync made.
    const contactIdOf = await sandboxes.crm.contactIdsOf(await commerceDump(sandboxes.commerce, 'contacts'));
    const opportunityOf = new Map(inbound.map((referral) => [referral.id, crmIdOf(after.get(referral.id)!)]));
    const expectedPairs = [...new Set(inbound.flatMap((referral) => (referral.contactIds ?? []).map((contactId: string) => `${opportunityOf.get(referral.id)}:${contactIdOf.get(contactId)}`)))].sort();
    expect(expectedPairs.length).toBeGreaterThan(0);
    const inboundOpportunities = new Set(opportunityOf.values());
    expect((await sandboxes.crm.opportunityContacts()).filter((pair) => inboundOpportunities.has(pair.split(':')[0]))).toEqual(expectedPairs);

    // The stage is kept in step: the partner moves one referral, and its opportunity follows in one run.
    const moved = inbound[0]!;
    const commerce = createCommerceClient({ baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, clientSecret: sandboxes.commerce.clientSecret });
    const to = moved.stage === 'Business Validation' ? 'Committed' : 'Business Validation';
    await commerce.referrals.update(sandboxes.commerce.organizationId, moved.id, { stage: to });
    await stack.run(WORKFLOW_TYPES.cosell);
    expect((await sandboxes.crm.opportunities()).find((row) => row.id === opportunityOf.get(moved.id))).toMatchObject({ stage: STAGE[kind][to], cosellStage: to });
  }, 300_000);
});
