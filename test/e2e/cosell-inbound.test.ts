// Inbound co-sell, for each CRM: a referral a cloud partner sends (direction INBOUND, no CRM opportunity
// yet) becomes one opportunity (deal) on its buyer's account (company); its id goes back onto the
// referral, the referral's own CRM record is linked to it, its contacts are attached once, and running
// again makes nothing new. A write-back refused while the partner reviews the referral (409) waits and
// is made after the review, never lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump } from '../support/sync-harness.ts';

const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
/** The co-sell stage of a referral as the CRM's stage (Salesforce's standard stages; HubSpot's default stage labels, which the Co-sell referrals pipeline uses). */
const STAGE = {
  salesforce: { Prospect: 'Prospecting', Qualified: 'Qualification', 'Technical Validation': 'Needs Analysis', 'Business Validation': 'Proposal/Price Quote', Committed: 'Negotiation/Review', Launched: 'Closed Won', 'Closed Lost': 'Closed Lost' } as Record<string, string>,
  hubspot: { Prospect: 'Appointment Scheduled', Qualified: 'Qualified To Buy', 'Technical Validation': 'Presentation Scheduled', 'Business Validation': 'Decision Maker Bought-In', Committed: 'Contract Sent', Launched: 'Closed Won', 'Closed Lost': 'Closed Lost' } as Record<string, string>,
  dynamics: { Prospect: '0-Prospect', Qualified: '1-Qualify', 'Technical Validation': '2-Develop', 'Business Validation': '3-Propose', Committed: '4-Close', Launched: 'Won', 'Closed Lost': 'Lost' } as Record<string, string>,
};

describe.each(CRMS_UNDER_TEST)('inbound co-sell into %s', (kind) => {
  let stack: CosellStack;
  let sandboxes: CosellStack['sandboxes'];
  let run: CosellStack['run'];
  let database: CosellStack['database'];
  let connectionId: string;

  beforeAll(async () => {
    stack = await startCosellStack({ name: `inbound-${kind}`, entitlements: 60, seed: 71, entities: ['buyer', 'contact', 'offer', 'referral'], crm: kind });
    ({ sandboxes, run, database, connectionId } = stack);
  });
  afterAll(() => stack?.stop());

  const crmIdOf = (referral: any) => referral[sandboxes.crm.opportunityIdField];
  const madeFor = async (referralId: string) => (await sandboxes.crm.opportunities()).filter((row) => row.referralId === referralId);

  it('each inbound referral becomes one opportunity on its buyer account, linked both ways, once across repeated runs', async () => {
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/cosell/review`, { seconds: 0 });
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 6, kinds: ['inboundReferral'] });
    const inbound = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.direction === 'INBOUND' && !referral.crmAOpportunityId && !referral.crmBDealId && !referral.crmCOpportunityId);
    expect(inbound.length).toBeGreaterThanOrEqual(6);

    await run(WORKFLOW_TYPES.cosell);
    const accountOf = new Map((await sandboxes.crm.accounts()).map((account) => [account.buyerId, account.id]));
    const opportunities = await sandboxes.crm.opportunities();
    const referralsAfter = new Map((await commerceDump(sandboxes.commerce, 'referrals')).map((referral) => [referral.id, referral]));
    for (const referral of inbound) {
      const made = opportunities.filter((row) => row.referralId === referral.id);
      expect(made, referral.id).toHaveLength(1);
      expect(made[0]).toMatchObject({ name: referral.name, accountId: accountOf.get(referral.buyerID), stage: STAGE[kind][referral.stage], cosellStatus: referral.status });
      expect(crmIdOf(referralsAfter.get(referral.id)!)).toBe(made[0]!.id);
    }

    // The referral's contacts are attached to its opportunity, each once, matched to the contacts the
    // contact sync made (by email): no contact is duplicated.
    const contactsBefore = (await sandboxes.crm.keyed('contact')).size;
    const commerceContacts = await commerceDump(sandboxes.commerce, 'contacts');
    const contactIdOf = await sandboxes.crm.contactIdsOf(commerceContacts);
    const expectedPairs = () => [...new Set(inbound.flatMap((referral) => (referral.contactIds ?? []).map((contactId: string) => `${crmIdOf(referralsAfter.get(referral.id)!)}:${contactIdOf.get(contactId)}`)))].sort();
    const inboundOpportunities = new Set(inbound.map((referral) => crmIdOf(referralsAfter.get(referral.id)!)));
    const pairs = async () => (await sandboxes.crm.opportunityContacts()).filter((pair) => inboundOpportunities.has(pair.split(':')[0]));
    expect(expectedPairs().length).toBeGreaterThan(0);
    expect(await pairs()).toEqual(expectedPairs());

    // Again: nothing new is made, no contact attached twice.
    const before = opportunities.length;
    const again = await run(WORKFLOW_TYPES.cosell);
    expect(again.inbound.created).toBe(0);
    expect((await sandboxes.crm.opportunities()).length).toBe(before);
    expect(await pairs()).toEqual(expectedPairs());
    expect((await sandboxes.crm.keyed('contact')).size).toBe(contactsBefore);

    // The referral's own record in the CRM is linked to the opportunity made for it (Salesforce: its
    // Cosell_Referral__c points at it; Dynamics: its ccs_cosellreferral row; HubSpot: the referral's deal is that deal).
    await run(WORKFLOW_TYPES.incrementalSync);
    const referralRecords = await sandboxes.crm.keyed('referral');
    for (const referral of inbound) {
      const crmId = crmIdOf(referralsAfter.get(referral.id)!);
      if (kind === 'salesforce') {
        const records = new Map((await salesforceDump(sandboxes.crm.salesforce!, 'Cosell_Referral__c')).map((row) => [row.Commerce_Referral_Id__c, row]));
        expect(records.get(referral.id)?.Opportunity__c, referral.id).toBe(crmId);
      } else if (kind === 'dynamics') {
        // The referral's own ccs_cosellreferral row points at the opportunity made for it.
        expect(referralRecords.get(referral.id)?.fields._ccs_opportunityid_value, referral.id).toBe(crmId);
      } else expect(referralRecords.get(referral.id)?.id, referral.id).toBe(crmId);
    }
  }, 180_000);

  it('a write-back refused while the partner reviews the referral waits as a dead letter and is made after the review', async () => {
    const [change] = ((await (await post(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { count: 1, kinds: ['inboundReferral'] })).json()) as { changes: { id: string }[] }).changes;
    const referralId = change!.id;
    // The commerce side refuses the seller's PATCH of this referral with a 409 while its partner reviews it.
    const review = { operation: 'PATCH /org/{orgId}/cosell/referral/{referralId}', status: 409, ids: [referralId], body: { code: 'FAILED_PRECONDITION', message: `referral ${referralId} is under partner review; updates are accepted again after that` } };
    expect((await post(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, review)).status).toBe(200);
    await run(WORKFLOW_TYPES.cosell);
    const made = await madeFor(referralId);
    expect(made).toHaveLength(1);
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId, 'inbound-referral');
    expect(letters.map((letter) => letter.sourceId)).toEqual([referralId]);
    expect(letters[0]!.reason).toMatch(/under partner review/);

    // The review is over: the next retry of the letter writes the id back.
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
    await createDeadLetterStore(database.pool).makeDue(connectionId);
    await run(WORKFLOW_TYPES.cosell);
    expect(crmIdOf((await commerceDump(sandboxes.commerce, 'referrals')).find((referral) => referral.id === referralId))).toBe(made[0]!.id);
    expect(await createDeadLetterStore(database.pool).listOpen(connectionId, 'inbound-referral')).toEqual([]);
    expect(await madeFor(referralId)).toHaveLength(1);
  }, 180_000);

  it('an inbound referral on a buyer never synced gets the account made first, then its opportunity on it', async () => {
    const now = new Date().toISOString();
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/records/buyers`, { records: [{ id: 'buyer-new-inbound', organizationID: sandboxes.commerce.organizationId, name: 'Northwind Newcomer', partner: 'cloudB', status: 'ACTIVE', country: 'DE', creationTime: now, lastUpdateTime: now }] });
    await post(`${sandboxes.commerce.apiUrl}/_sandbox/records/referrals`, { records: [{ id: 'ref-new-inbound', organizationID: sandboxes.commerce.organizationId, name: 'Partner lead for Northwind', partner: 'cloudB', direction: 'INBOUND', status: 'SUBMITTED', stage: 'Qualified', buyerID: 'buyer-new-inbound', currency: 'USD', dealValue: 25000, expectedCloseDate: '2027-04-30', creationTime: now, lastUpdateTime: now }] });
    expect((await sandboxes.crm.accounts()).some((account) => account.buyerId === 'buyer-new-inbound')).toBe(false);

    await run(WORKFLOW_TYPES.cosell);
    const account = (await sandboxes.crm.accounts()).find((row) => row.buyerId === 'buyer-new-inbound');
    expect(account).toBeDefined();
    expect((await sandboxes.crm.keyed('buyer')).get('buyer-new-inbound')!.fields).toMatchObject({ [kind === 'salesforce' ? 'Name' : 'name']: 'Northwind Newcomer' });
    const made = await madeFor('ref-new-inbound');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ accountId: account!.id, stage: STAGE[kind].Qualified, amount: 25000, closeDate: '2027-04-30' });
  }, 120_000);
});
