// The referral a shared CRM opportunity asks for, CRM-neutral (mappings/canonical/referral-ask.ts): for a
// partner named Marketplace A to F, expected requests written by hand; the refusals; and each CRM side
// reading its own fields (its currency included: issue #25 section 5) into the same request.
import { describe, expect, it } from 'vitest';
import { referralAsk, type ReferralAskValues } from '../../mappings/canonical/referral-ask.ts';
import { opportunityReferralSide as dynamicsSide } from '../../mappings/dynamics/opportunity-cosell.ts';
import { dealReferralSide } from '../../mappings/hubspot/deal-cosell.ts';
import { opportunityReferralSide as salesforceSide } from '../../mappings/salesforce/opportunity-referral.ts';

const WORDS = { partnerFix: 'choose a marketplace', noBuyer: 'buyerID: no buyer' };
const values = (extra: Partial<ReferralAskValues> = {}): ReferralAskValues => ({
  shared: true,
  submitsNow: true,
  crmId: 'opp-1',
  name: 'Joint pursuit',
  partnerName: 'Marketplace A',
  buyerId: 'buyer-1',
  amount: 50000,
  closeDate: '2027-06-30',
  description: undefined,
  currency: 'USD',
  ...extra,
});

describe('the canonical referral ask, a partner per marketplace', () => {
  const cases = [
    { partnerName: 'Marketplace A', currency: 'USD', expected: { partner: 'cloudA', currency: 'USD' } },
    { partnerName: 'Marketplace B', currency: 'EUR', expected: { partner: 'cloudB', currency: 'EUR' } },
    { partnerName: 'marketplace c', currency: 'gbp', expected: { partner: 'cloudC', currency: 'GBP' } },
    { partnerName: ' Marketplace D ', currency: 'JPY', expected: { partner: 'cloudD', currency: 'JPY' } },
    { partnerName: 'MARKETPLACE E', currency: null, expected: { partner: 'cloudE', currency: 'USD' } },
    { partnerName: 'Marketplace F', currency: '', expected: { partner: 'cloudF', currency: 'USD' } },
  ];
  for (const { partnerName, currency, expected } of cases) {
    it(`${partnerName.trim()} in ${currency || 'no currency'}`, () => {
      expect(referralAsk('crmAOpportunityId', values({ partnerName, currency }), WORDS)).toEqual({
        asks: true,
        request: { name: 'Joint pursuit', partner: expected.partner, buyerID: 'buyer-1', dealValue: 50000, currency: expected.currency, expectedCloseDate: '2027-06-30', crmAOpportunityId: 'opp-1', status: 'SUBMITTED' },
      });
    });
  }

  it('the CRM id goes under the asking CRM\'s field; no submit signal leaves the status out (a draft)', () => {
    expect(referralAsk('crmBDealId', values({ submitsNow: false }), WORDS)).toEqual({
      asks: true,
      request: { name: 'Joint pursuit', partner: 'cloudA', buyerID: 'buyer-1', dealValue: 50000, currency: 'USD', expectedCloseDate: '2027-06-30', crmBDealId: 'opp-1' },
    });
  });

  it('a blank name is the record\'s id; no usable amount or date is left out; a description is carried as written', () => {
    expect(referralAsk('crmCOpportunityId', values({ name: '  ', amount: -1, closeDate: 'next quarter', description: ' Joint, EMEA ' }), WORDS)).toEqual({
      asks: true,
      request: { name: 'opp-1', partner: 'cloudA', buyerID: 'buyer-1', currency: 'USD', description: ' Joint, EMEA ', crmCOpportunityId: 'opp-1', status: 'SUBMITTED' },
    });
    const fromText = referralAsk('crmBDealId', values({ amount: '1200.5', closeDate: '2027-03-31T00:00:00.000Z' }), WORDS);
    expect(fromText).toMatchObject({ request: { dealValue: 1200.5, expectedCloseDate: '2027-03-31' } });
  });

  it('not shared: nothing asked; shared without a marketplace or a buyer: refused, each reason on its line', () => {
    expect(referralAsk('crmAOpportunityId', values({ shared: false, partnerName: null, buyerId: null }), WORDS)).toEqual({ asks: false });
    expect(referralAsk('crmAOpportunityId', values({ partnerName: 'Marketplace Z', buyerId: ' ' }), WORDS)).toEqual({
      asks: true,
      refused: 'partner: "Marketplace Z" is not a marketplace; choose a marketplace\nbuyerID: no buyer',
    });
    expect(referralAsk('crmAOpportunityId', values({ partnerName: undefined }), WORDS)).toEqual({ asks: true, refused: 'partner: "(empty)" is not a marketplace; choose a marketplace' });
    expect(referralAsk('crmAOpportunityId', values({ buyerId: undefined }), WORDS)).toEqual({ asks: true, refused: 'buyerID: no buyer' });
  });
});

describe('each CRM side reads its own fields into the same request', () => {
  const settings = (share: unknown) => ({ cosell: { enabled: true, share } }) as never;
  const request = { name: 'Joint pursuit', partner: 'cloudB', buyerID: 'buyer-1', dealValue: 50000, currency: 'EUR', expectedCloseDate: '2027-06-30', status: 'SUBMITTED' };

  it('Salesforce: the Opportunity\'s CurrencyIsoCode (a multi-currency org)', () => {
    const opportunity = { Id: '006A', Name: 'Joint pursuit', Amount: 50000, CloseDate: '2027-06-30', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B', Account: { Commerce_Buyer_Id__c: 'buyer-1' }, CurrencyIsoCode: 'EUR' };
    expect(salesforceSide.ask(opportunity, settings({ by: 'checkbox', field: 'Cosell_Share__c' }))).toEqual({ asks: true, request: { ...request, crmAOpportunityId: '006A' } });
    expect(salesforceSide.optionalFields).toContain('CurrencyIsoCode');
  });

  it('HubSpot: the deal\'s deal_currency_code, read where the account has it', () => {
    const deal = { hs_object_id: '301', dealname: 'Joint pursuit', amount: '50000', closedate: '2027-06-30T00:00:00.000Z', cosell_share: 'true', cosell_partner: 'Marketplace B', deal_currency_code: 'EUR' };
    expect(dealReferralSide.ask(deal, settings({ by: 'checkbox', field: 'cosell_share' }), { buyerId: 'buyer-1', contactIds: [] })).toEqual({ asks: true, request: { ...request, crmBDealId: '301' } });
    expect(dealReferralSide.optionalFields).toContain('deal_currency_code');
    // A deal without a currency (made before the account had several): USD, as before.
    expect(dealReferralSide.ask({ ...deal, deal_currency_code: null }, settings({ by: 'checkbox', field: 'cosell_share' }), { buyerId: 'buyer-1', contactIds: [] })).toMatchObject({ request: { currency: 'USD' } });
  });

  it('Dynamics: the ISO code of the opportunity\'s transaction currency, read with its relations', () => {
    const opportunity = { id: 'A1B2C3D4-0000-0000-0000-000000000001', name: 'Joint pursuit', estimatedvalue: 50000, estimatedclosedate: '2027-06-30', ccs_cosellshare: true, ccs_cosellpartner: 'Marketplace B', _parentaccountid_value: 'aaaa0000-0000-0000-0000-000000000001', _transactioncurrencyid_value: 'cccc0000-0000-0000-0000-000000000001' };
    const relations = { accountId: 'aaaa0000-0000-0000-0000-000000000001', buyerId: 'buyer-1', currency: 'EUR', contactIds: [] };
    expect(dynamicsSide.ask(opportunity, settings({ by: 'checkbox', field: 'ccs_cosellshare' }), relations)).toEqual({ asks: true, request: { ...request, crmCOpportunityId: 'a1b2c3d4-0000-0000-0000-000000000001' } });
    expect(dynamicsSide.optionalFields).toContain('_transactioncurrencyid_value');
  });
});

describe('what goes back onto the record, under each CRM\'s names (mappings/canonical/referral-write-back.ts)', () => {
  const rejected = { id: 'ref-7', status: 'REJECTED', stage: 'Qualified', partner: 'cloudB', statusReason: 'Buyer not in our territory' } as never;
  const why = 'Marketplace B rejected the referral: Buyer not in our territory. To submit it again, change what the partner asks for in the opportunity\'s name, amount, close date, description or partner, and save it: it is submitted again once.';

  it('Salesforce: Commerce_Referral_Id__c, Cosell_Status__c, Cosell_Stage__c, Cosell_Errors__c (32,000 characters)', () => {
    expect(salesforceSide.made({ id: 'ref-9', status: 'SUBMITTED', stage: 'Prospect' })).toEqual({ Commerce_Referral_Id__c: 'ref-9', Cosell_Status__c: 'SUBMITTED', Cosell_Stage__c: 'Prospect', Cosell_Errors__c: null, Cosell_Review_Ends__c: null });
    // Under the partner's review: the review's end goes back in the same write, to the second.
    expect(salesforceSide.made({ id: 'ref-9', status: 'SUBMITTED', stage: 'Prospect', partnerReviewEndTime: '2026-11-26T20:01:02.345Z' } as never)).toMatchObject({ Cosell_Review_Ends__c: '2026-11-26T20:01:02Z' });
    expect(salesforceSide.made(rejected)).toEqual({ Commerce_Referral_Id__c: 'ref-7', Cosell_Status__c: 'REJECTED', Cosell_Stage__c: 'Qualified', Cosell_Errors__c: why, Cosell_Review_Ends__c: null });
    expect(salesforceSide.refused('partner: no')).toEqual({ Cosell_Status__c: 'Not shared', Cosell_Errors__c: 'partner: no' });
    expect((salesforceSide.refused('x'.repeat(40_000)).Cosell_Errors__c as string).length).toBe(32_000);
    expect(salesforceSide.refusedAfterMade!('resubmit: no')).toEqual({ Cosell_Errors__c: 'resubmit: no' });
  });

  it('HubSpot: commerce_referral_id, cosell_status, cosell_stage, cosell_errors (65,536 characters)', () => {
    expect(dealReferralSide.made({ id: 'ref-9' })).toEqual({ commerce_referral_id: 'ref-9', cosell_status: null, cosell_stage: null, cosell_errors: null });
    expect(dealReferralSide.made(rejected)).toEqual({ commerce_referral_id: 'ref-7', cosell_status: 'REJECTED', cosell_stage: 'Qualified', cosell_errors: why, cosell_review_ends: null });
    expect((dealReferralSide.refused('x'.repeat(70_000)).cosell_errors as string).length).toBe(65_536);
    expect(dealReferralSide.refused('partner: no').cosell_status).toBe('Not shared');
    expect(dealReferralSide.refusedAfterMade!('resubmit: no')).toEqual({ cosell_errors: 'resubmit: no' });
  });

  it('Dynamics: ccs_commercereferralid, ccs_cosellstatus, ccs_cosellstage, ccs_cosellerrors', () => {
    expect(dynamicsSide.made(rejected)).toEqual({ ccs_commercereferralid: 'ref-7', ccs_cosellstatus: 'REJECTED', ccs_cosellstage: 'Qualified', ccs_cosellerrors: why, ccs_cosellreviewends: null });
    expect(dynamicsSide.refusedAfterMade!('resubmit: no')).toEqual({ ccs_cosellerrors: 'resubmit: no' });
  });
});

describe('a currency the marketplace cannot take', () => {
  it('a code that is not three letters refuses the ask in words a seller can act on', async () => {
    const { referralAsk } = await import('../../mappings/canonical/referral-ask.ts');
    const { draftOfferAsk } = await import('../../mappings/canonical/draft-offer-ask.ts');
    const values = { shared: true, partnerName: 'Marketplace A', buyerId: 'buyer-1', name: 'Deal', amount: 10, closeDate: '2027-01-31', description: null, crmId: 'opp-1', submitsNow: false, currency: 'XBTC1' };
    const refusal = 'currency: the opportunity\'s currency "XBTC1" is not a three-letter ISO currency code the marketplace takes (USD, EUR, ...); choose such a currency on the opportunity';
    expect(referralAsk('crmAOpportunityId', values as never, { partnerFix: 'x', noBuyer: 'y' })).toEqual({ asks: true, refused: refusal });
    expect(referralAsk('crmAOpportunityId', { ...values, currency: 'eur' } as never, { partnerFix: 'x', noBuyer: 'y' })).toMatchObject({ asks: true, request: { currency: 'EUR' } });
    expect(draftOfferAsk('crmAOpportunityId', { requested: true, productId: 'prod-1', buyerId: 'buyer-1', name: 'Deal', amount: 10, closeDate: null, crmId: 'opp-1', currency: 'US$', contactIds: [] } as never, 'y')).toEqual({ asks: true, refused: refusal.replace('XBTC1', 'US$') });
  });
});
