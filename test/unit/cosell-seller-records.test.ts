// The pure parts of issue #24 items 2, 3, 4 and 8: which fields a seller's own CRM record keeps, the
// referral feed leaving INBOUND referrals' ids to the inbound flow, and where a draft's refusal goes in an
// org with and without the draft's own errors field. Expected values written by hand.
import { describe, expect, it } from 'vitest';
import { fitWriteBack } from '../../flows/fit-write-back.ts';
import { opportunityDraftOfferSide as dynamicsDraftSide } from '../../mappings/dynamics/opportunity-cosell.ts';
import { offerToOpportunity as dynamicsOffer } from '../../mappings/dynamics/opportunity.ts';
import { dealDraftOfferSide } from '../../mappings/hubspot/deal-cosell.ts';
import { offerToDeal } from '../../mappings/hubspot/deal.ts';
import { referralToDeal } from '../../mappings/hubspot/referral.ts';
import { opportunityDraftOfferSide } from '../../mappings/salesforce/opportunity-draft-offer.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import type { EntityMapping } from '../../mappings/types.ts';
import type { RecordLink } from '../../store/record-links.ts';
import { planPage } from '../../sync/plan.ts';
import { writeBackPatch } from '../../sync/write-back.ts';

const schemaWith = (...fields: string[]) => ({ fields: new Map(fields.map((name) => [name, {} as never])) });
const url = async (id: string) => `https://crm.example/${id}`;

describe("a draft's refusal: its own field where the org has it, the co-sell errors field where it does not", () => {
  const sides = [
    { name: 'Salesforce', side: opportunityDraftOfferSide, own: 'Cosell_Draft_Errors__c', shared: 'Cosell_Errors__c', made: { Commerce_Offer_Id__c: 'offer-1' } },
    { name: 'HubSpot', side: dealDraftOfferSide, own: 'cosell_draft_errors', shared: 'cosell_errors', made: { commerce_offer_id: 'offer-1' } },
    { name: 'Dynamics', side: dynamicsDraftSide, own: 'ccs_coselldrafterrors', shared: 'ccs_cosellerrors', made: { ccs_commerceofferid: 'offer-1' } },
  ];
  for (const { name, side, own, shared, made } of sides) {
    it(`${name}: set up since the field exists`, () => {
      const org = schemaWith(own, shared);
      expect(fitWriteBack(side, org, side.refused('productID: none'))).toEqual({ [own]: 'productID: none' });
      // The draft made: its own reasons cleared; the co-sell errors field (the referral's) untouched.
      expect(fitWriteBack(side, org, side.made({ id: 'offer-1' }))).toEqual({ ...made, [own]: null });
    });
    it(`${name}: set up before the field existed (works as before)`, () => {
      const org = schemaWith(shared);
      expect(fitWriteBack(side, org, side.refused('productID: none'))).toEqual({ [shared]: 'Private offer draft: productID: none' });
      expect(fitWriteBack(side, org, side.made({ id: 'offer-1' }))).toEqual(made);
    });
  }
});

describe("a private offer drafted from the seller's own opportunity leaves its stage and close date", () => {
  const offer = { id: 'offer-7', name: 'Private deal', status: 'PENDING_CREATE', expireTime: '2027-02-28T23:59:59.000Z', buyerID: 'buyer-1', info: { commitAmount: 48000, currency: 'USD' } };
  const cases: { name: string; mapping: EntityMapping<any>; carried: Record<string, string>; kept: string[] }[] = [
    { name: 'Salesforce', mapping: offerToOpportunity, carried: { crmAOpportunityId: '006SELLER' }, kept: ['StageName', 'CloseDate'] },
    { name: 'HubSpot', mapping: offerToDeal, carried: { crmBDealId: '9001' }, kept: ['dealstage', 'closedate'] },
    { name: 'Dynamics', mapping: dynamicsOffer, carried: { crmCOpportunityId: '0b9c6a5e-1111-4a1a-9c1a-000000000001' }, kept: ['stepname', 'statecode', 'estimatedclosedate'] },
  ];
  for (const { name, mapping, carried, kept } of cases) {
    it(name, () => {
      const records = [{ ...offer, metaInfo: carried }];
      const sellers = planPage({ records, related: () => undefined, mapping, links: new Map(), sellersRecords: new Set(['offer-7']) });
      expect(sellers.writes[0]!.item.crmId).toBeDefined();
      for (const field of kept) expect(sellers.writes[0]!.item.fields, field).not.toHaveProperty(field);
      // An offer's own opportunity (not the seller's) still follows the offer's status.
      const own = planPage({ records, related: () => undefined, mapping, links: new Map() });
      for (const field of kept) expect(own.writes[0]!.item.fields, field).toHaveProperty(field);
    });
  }
});

describe("HubSpot: a referral's deal keeps the seller's name, amount and close date once made", () => {
  const referral = { id: 'ref-4', name: 'Shared as first written', partner: 'cloudC', direction: 'OUTBOUND', status: 'DRAFT', stage: 'Prospect', buyerID: 'buyer-1', dealValue: 20000, expectedCloseDate: '2027-05-31', crmBDealId: '9002', lastUpdateTime: '2026-11-26T10:00:00.000Z' };
  it('writes them when it makes the deal, never onto a deal it found (the seller made) or linked', () => {
    const made = planPage({ records: [{ ...referral, crmBDealId: undefined }], related: () => undefined, mapping: referralToDeal, links: new Map() });
    expect(made.writes[0]!.item.fields).toMatchObject({ dealname: 'Shared as first written', amount: 20000, closedate: '2027-05-31' });
    const sellers = planPage({ records: [referral], related: () => undefined, mapping: referralToDeal, links: new Map() });
    expect(sellers.writes[0]!.item).toMatchObject({ crmId: '9002', fields: { cosell_status: 'DRAFT', cosell_stage: 'Prospect' } });
    for (const field of ['dealname', 'amount', 'closedate', 'dealstage', 'pipeline']) expect(sellers.writes[0]!.item.fields, field).not.toHaveProperty(field);
    const link: RecordLink = { sourceId: 'ref-4', crmObject: 'deals', crmId: '9002', contentHash: sellers.writes[0]!.hash };
    // A referral whose value changed on the commerce side: nothing of the deal's to write.
    expect(planPage({ records: [{ ...referral, dealValue: 99000 }], related: () => undefined, mapping: referralToDeal, links: new Map([['ref-4', link]]) })).toMatchObject({ writes: [], unchanged: ['ref-4'] });
  });
});

describe("the referral feed never takes an INBOUND referral for HubSpot", () => {
  it('an INBOUND referral carrying no deal id is left to the inbound flow', async () => {
    expect(await writeBackPatch('hubspot', 'referral', { crmId: '9003', current: { id: 'ref-5', direction: 'OUTBOUND' } }, url)).toEqual({ crmBDealId: '9003' });
    expect(await writeBackPatch('hubspot', 'referral', { crmId: '9004', current: { id: 'ref-6', direction: 'INBOUND' } }, url)).toBeUndefined();
    // One already taken by a HubSpot deal keeps that id right (a stale or another portal's id is replaced).
    expect(await writeBackPatch('hubspot', 'referral', { crmId: '9005', current: { id: 'ref-7', direction: 'INBOUND', crmBDealId: '70662941756' } }, url)).toEqual({ crmBDealId: '9005' });
    // One taken by another CRM (Salesforce here) is left to it.
    expect(await writeBackPatch('hubspot', 'referral', { crmId: '9006', current: { id: 'ref-8', direction: 'INBOUND', crmAOpportunityId: '006X' } }, url)).toBeUndefined();
    // The inbound flow writes it.
    expect(await writeBackPatch('hubspot', 'inbound-referral', { crmId: '9004', current: { id: 'ref-6', direction: 'INBOUND' } }, url)).toEqual({ crmBDealId: '9004' });
  });
});
