// A seller's own opportunity (deal) stays the seller's, for each CRM (issue #24, items 3, 4 and 8):
// - a private offer drafted from a co-sold opportunity syncs onto it without moving its stage or close
//   date, so the stage sync never takes the referral back to the offer's stage;
// - the seller's edits of a shared opportunity stand when its referral changes on the commerce side;
// - a refused referral and a refused draft each show their reasons in a field of their own, cleared by
//   their own flow only; an org set up before the draft's field existed keeps working as it did.
// Expected values are written by hand from the stage tables in the README.
// The four stacks (three CRMs, the older Salesforce org) run at the same time, each its own sandboxes,
// database, worker and task queue; each one's cases run in order. A 2 s look-back (production: 10
// minutes): a run reads what changed since the run before, not again every record the earlier cases made.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { grantAccess } from '../../crm/salesforce/permission-set.ts';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { customFieldMetadata, SALESFORCE_CUSTOM_FIELDS, SALESFORCE_CUSTOM_OBJECTS } from '../../mappings/salesforce/schema.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';
import { CRMS_UNDER_TEST } from '../support/crm-sandbox.ts';
import { commerceDump, salesforceDump } from '../support/sync-harness.ts';

/** The CRM stages the tests use (Salesforce's standard stages, HubSpot's default ones, Dynamics' Sales Process phases). */
const STAGES = {
  salesforce: { prospect: 'Prospecting', technical: 'Needs Analysis' },
  hubspot: { prospect: 'Appointment Scheduled', technical: 'Presentation Scheduled' },
  dynamics: { prospect: '0-Prospect', technical: '2-Develop' },
};
/** What each CRM's side says of an empty partner (mappings/*: the words a salesperson reads). */
const NO_PARTNER = {
  salesforce: 'partner: "(empty)" is not a marketplace; choose Marketplace A to Marketplace F in Co-sell Partner',
  hubspot: 'partner: "(empty)" is not a marketplace; choose Marketplace A to Marketplace F in Co-sell Partner',
  dynamics: 'partner: "(empty)" is not a marketplace; enter one of Marketplace A to Marketplace F in Co-sell Partner',
};
const NO_PRODUCT = 'productID: no marketplace product is named; fill Commerce Product Id with the product to offer';
/** Where each CRM shows the offer's status on the opportunity the offer synced onto. */
const OFFER_STATUS_FIELD = { salesforce: 'Offer_Status__c', hubspot: 'offer_status', dynamics: 'ccs_offerstatus' };

describe.each(CRMS_UNDER_TEST)("a seller's own opportunity in %s stays the seller's", { concurrent: true }, (kind) => {
  let stack: CosellStack;
  let sandboxes: CosellStack['sandboxes'];
  let run: CosellStack['run'];
  let accounts: { id: string }[];
  const stage = STAGES[kind];

  beforeAll(async () => {
    stack = await startCosellStack({ name: `seller-records-${kind}`, entitlements: 20, seed: 83, entities: ['buyer', 'offer', 'referral'], crm: kind, lookbackSeconds: 2 });
    ({ sandboxes, run } = stack);
    accounts = await sandboxes.crm.accounts();
  });
  afterAll(() => stack?.stop());

  const commerce = () => createCommerceClient({ baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, clientSecret: sandboxes.commerce.clientSecret });
  const referralOf = async (opportunityId: string) => (await commerceDump(sandboxes.commerce, 'referrals')).find((referral) => referral[sandboxes.crm.opportunityIdField] === opportunityId);
  const opportunity = async (id: string) => (await sandboxes.crm.opportunities()).find((row) => row.id === id)!;

  describe('in order', { concurrent: false }, () => {
    it('a private offer drafted from a co-sold opportunity leaves its stage and close date, and the referral keeps its stage', async () => {
      const [made] = await sandboxes.crm.createOpportunities([
        { name: 'Co-sold, with a private offer', accountId: accounts[0]!.id, stage: stage.technical, closeDate: '2027-02-28', amount: 48000, share: true, partner: 'Marketplace A', privateOfferRequested: true, productId: 'prod-000002' },
      ]);
      // Two runs: a run reads the records changed before it started, and the referral's write-back moved this
      // one past that, so its draft may be asked in the next run (30 seconds later under the schedule).
      const runs = [await run(WORKFLOW_TYPES.cosell), await run(WORKFLOW_TYPES.cosell)];
      expect(runs.reduce((sum, totals) => sum + totals.flows['opportunity-referral'].created, 0)).toBe(1);
      expect(runs.reduce((sum, totals) => sum + totals.flows['opportunity-draft-offer'].created, 0)).toBe(1);
      // The pair began on the CRM side: the referral took the opportunity's stage.
      expect((await referralOf(made!))!.stage).toBe('Technical Validation');
      const offerId = (await opportunity(made!)).offerId!;
      expect(offerId).toBeDefined();

      // The seller moves the close date after asking; then the draft offer syncs onto this opportunity.
      await sandboxes.crm.updateOpportunity(made!, { closeDate: '2027-04-30' });
      await run(WORKFLOW_TYPES.incrementalSync);
      const holding = (await sandboxes.crm.keyed('offer')).get(offerId);
      expect(holding?.id).toBe(made);
      expect(holding!.fields[OFFER_STATUS_FIELD[kind]]).toBe('PENDING_CREATE');
      expect(await opportunity(made!)).toMatchObject({ stage: stage.technical, closeDate: '2027-04-30' });

      // The stage sync finds nothing to move: the referral stays where the seller's stage puts it.
      await run(WORKFLOW_TYPES.cosell);
      expect((await referralOf(made!))!.stage).toBe('Technical Validation');
      expect(await opportunity(made!)).toMatchObject({ stage: stage.technical, closeDate: '2027-04-30', cosellStage: 'Technical Validation' });
    }, 240_000);

    it("the seller's edits of a shared opportunity stand when its referral changes on the commerce side", async () => {
      const [made] = await sandboxes.crm.createOpportunities([{ name: 'Shared as first written', accountId: accounts[1]!.id, stage: stage.prospect, closeDate: '2027-05-31', amount: 20000, share: true, partner: 'Marketplace C' }]);
      await run(WORKFLOW_TYPES.cosell);
      const referral = (await referralOf(made!))!;
      expect(referral).toMatchObject({ name: 'Shared as first written', dealValue: 20000, expectedCloseDate: '2027-05-31' });
      // The referral reaches the CRM by the ordinary sync (HubSpot: onto this very deal).
      await run(WORKFLOW_TYPES.incrementalSync);

      await sandboxes.crm.updateOpportunity(made!, { name: 'Renamed by the seller', amount: 35000, closeDate: '2027-08-31' });
      // A change on the commerce side to what the CRM shows of the referral (its stage), and one it does not show.
      await commerce().referrals.update(sandboxes.commerce.organizationId, referral.id, { stage: 'Qualified', description: 'The partner asked for a second demo' });
      await run(WORKFLOW_TYPES.incrementalSync);
      await run(WORKFLOW_TYPES.cosell);
      expect(await opportunity(made!)).toMatchObject({ name: 'Renamed by the seller', amount: 35000, closeDate: '2027-08-31', referralId: referral.id, cosellStage: 'Qualified' });
      // The referral keeps what it was shared with: nothing wrote the seller's edits over it either.
      expect(await referralOf(made!)).toMatchObject({ name: 'Shared as first written', dealValue: 20000, description: 'The partner asked for a second demo' });
    }, 240_000);

    it("the referral's reasons and the draft's stay side by side, each cleared by its own flow", async () => {
      const [made] = await sandboxes.crm.createOpportunities([{ name: 'Two asks, both refused', accountId: accounts[2]!.id, stage: stage.prospect, closeDate: '2027-06-30', amount: 5000, share: true, privateOfferRequested: true }]);
      // Both flows answer it within two runs (one flow's write-back may move it past the other's window in a run).
      await run(WORKFLOW_TYPES.cosell);
      await run(WORKFLOW_TYPES.cosell);
      expect(await opportunity(made!)).toMatchObject({ cosellStatus: 'Not shared', cosellErrors: NO_PARTNER[kind], draftErrors: NO_PRODUCT });

      // The partner fixed: the referral is made and clears its own reasons; the draft's stay.
      await sandboxes.crm.updateOpportunity(made!, { partner: 'Marketplace B' });
      await run(WORKFLOW_TYPES.cosell);
      await run(WORKFLOW_TYPES.cosell);
      const shared = await opportunity(made!);
      expect(shared.referralId).toBe((await referralOf(made!))?.id);
      expect(shared.cosellErrors).toBeUndefined();
      expect(shared.draftErrors).toBe(NO_PRODUCT);

      // The product named: the draft is made and clears its own reasons.
      await sandboxes.crm.updateOpportunity(made!, { productId: 'prod-000003' });
      await run(WORKFLOW_TYPES.cosell);
      await run(WORKFLOW_TYPES.cosell);
      const drafted = await opportunity(made!);
      expect(drafted.offerId).toBeDefined();
      expect(drafted.draftErrors).toBeUndefined();
      expect(drafted.cosellErrors).toBeUndefined();
      expect(drafted.referralId).toBe(shared.referralId);
    }, 240_000);
  });
});

/** An org an admin set up with an older release: every project field but the draft's own errors field, granted. */
async function setUpWithoutDraftErrors(sandbox: unknown): Promise<void> {
  const { conn } = (await clientCredentialsConnection(sandbox as SalesforceSandbox)) as { conn: Connection };
  for (const object of SALESFORCE_CUSTOM_OBJECTS) {
    const Metadata = { label: object.label, pluralLabel: object.pluralLabel, nameField: { type: 'Text', label: `${object.label} Name` }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite' };
    await conn.tooling.create('CustomObject', { FullName: object.name, Metadata });
  }
  const made = SALESFORCE_CUSTOM_FIELDS.filter((field) => !(field.object === 'Opportunity' && field.name === 'Cosell_Draft_Errors__c'));
  for (const field of made) await conn.tooling.create('CustomField', { FullName: `${field.definedOn ?? field.object}.${field.name}`, Metadata: customFieldMetadata(field) });
  const granted = await grantAccess(conn, (await conn.identity()).user_id, SALESFORCE_CUSTOM_OBJECTS.map((object) => object.name), made.map((field) => ({ object: field.object, field: field.name, edit: field.formula === undefined })));
  expect(granted.problems).toEqual([]);
}

describe('a Salesforce org set up before the draft errors field existed', { concurrent: true }, () => {
  let stack: CosellStack;

  beforeAll(async () => {
    stack = await startCosellStack({ name: 'older-org', entitlements: 10, seed: 89, crm: 'salesforce', crmOptions: { sandbox: { customMetadata: 'missing' }, beforeSetup: setUpWithoutDraftErrors }, lookbackSeconds: 2 });
  });
  afterAll(() => stack?.stop());

  describe('in order', { concurrent: false }, () => {
    it("keeps working as before: the draft's reasons in Cosell_Errors__c, no dead letter, the draft made once fixed", async () => {
      const salesforce = stack.sandboxes.salesforce;
      const { conn } = await clientCredentialsConnection(salesforce);
      const opportunityFields = (await conn.sobject('Opportunity').describe()).fields.map((field) => field.name);
      expect(opportunityFields).toContain('Cosell_Errors__c');
      expect(opportunityFields).not.toContain('Cosell_Draft_Errors__c');

      const [account] = await stack.sandboxes.crm.accounts();
      const [made] = await stack.sandboxes.crm.createOpportunities([{ name: 'Draft asked in an older org', accountId: account!.id, stage: 'Prospecting', closeDate: '2027-06-30', amount: 7000, privateOfferRequested: true }]);
      const first = await stack.run(WORKFLOW_TYPES.cosell);
      expect(first.flows['opportunity-draft-offer']).toMatchObject({ refused: 1, writeBacks: 1 });
      const row = (await salesforceDump(salesforce, 'Opportunity')).find((opportunity) => opportunity.Id === made)!;
      expect(row.Cosell_Errors__c).toBe(`Private offer draft: ${NO_PRODUCT}`);
      expect(await createDeadLetterStore(stack.database.pool).listOpen(stack.connectionId, 'opportunity-draft-offer')).toEqual([]);

      await stack.sandboxes.crm.updateOpportunity(made!, { productId: 'prod-000001' });
      const second = await stack.run(WORKFLOW_TYPES.cosell);
      expect(second.flows['opportunity-draft-offer']).toMatchObject({ created: 1, writeBacks: 1 });
      expect((await stack.sandboxes.crm.opportunities()).find((opportunity) => opportunity.id === made)!.offerId).toBeDefined();
      expect(await createDeadLetterStore(stack.database.pool).listOpen(stack.connectionId, 'opportunity-draft-offer')).toEqual([]);
    }, 240_000);

    it("crm-sync setup adds the field and grants it; read again, the draft's reasons go there", async () => {
      const salesforce = stack.sandboxes.salesforce;
      const { conn } = await clientCredentialsConnection(salesforce);
      const report = await setUpSalesforce(conn, (await conn.identity()).user_id);
      expect(report.problems).toEqual([]);
      expect(report.created).toEqual(expect.arrayContaining(['Opportunity.Cosell_Draft_Errors__c (LongTextArea(32768))', 'Commerce_CRM_Sync: Opportunity.Cosell_Draft_Errors__c (read, edit)']));
      // A worker reads an org's fields once per connection runtime: a changed connection (as a restart) reads them again.
      await stack.database.pool.query('UPDATE connections SET updated_at = now() WHERE id = $1', [stack.connectionId]);

      const [account] = await stack.sandboxes.crm.accounts();
      const [made] = await stack.sandboxes.crm.createOpportunities([{ name: 'Draft asked after setup', accountId: account!.id, stage: 'Prospecting', closeDate: '2027-07-31', amount: 8000, privateOfferRequested: true }]);
      await stack.run(WORKFLOW_TYPES.cosell);
      const row = (await salesforceDump(salesforce, 'Opportunity')).find((opportunity) => opportunity.Id === made)!;
      expect(row).toMatchObject({ Cosell_Draft_Errors__c: NO_PRODUCT, Cosell_Errors__c: null });
    }, 240_000);
  });
});
