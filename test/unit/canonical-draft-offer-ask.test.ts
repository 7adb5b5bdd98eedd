// The private-offer draft a CRM opportunity asks for, CRM-neutral (mappings/canonical/draft-offer-ask.ts):
// expected drafts written by hand, the refusals, each CRM side reading its own fields into the same draft,
// and the commit in the opportunity's own currency, not a fixed USD (issue #25 section 5).
import { describe, expect, it } from 'vitest';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import { draftOfferAsk, type DraftOfferAskValues } from '../../mappings/canonical/draft-offer-ask.ts';
import { opportunityDraftOfferSide as dynamicsSide, opportunityRelations } from '../../mappings/dynamics/opportunity-cosell.ts';
import { dealDraftOfferSide } from '../../mappings/hubspot/deal-cosell.ts';
import { opportunityDraftOfferSide as salesforceSide } from '../../mappings/salesforce/opportunity-draft-offer.ts';

const values = (extra: Partial<DraftOfferAskValues> = {}): DraftOfferAskValues => ({
  requested: true,
  crmId: 'opp-1',
  name: 'Analytics, 3 years',
  productId: 'prod-cloudA',
  buyerId: 'buyer-cloudA',
  amount: 120000,
  closeDate: '2027-06-30',
  currency: 'EUR',
  contactIds: ['contact-2', 'contact-1', 'contact-2'],
  ...extra,
});

describe('the canonical draft-offer ask', () => {
  it('a requested draft names its product, buyer, expiry, commit in the record\'s currency, contacts (once, sorted) and the record', () => {
    expect(draftOfferAsk('crmAOpportunityId', values(), 'buyerID: no buyer')).toEqual({
      asks: true,
      request: {
        name: 'Analytics, 3 years',
        offerType: 'PRIVATE',
        productID: 'prod-cloudA',
        buyerID: 'buyer-cloudA',
        expireTime: '2027-06-30T23:59:59.000Z',
        info: { commitAmount: 120000, currency: 'EUR' },
        contactIds: ['contact-1', 'contact-2'],
        metaInfo: { crmAOpportunityId: 'opp-1' },
      },
    });
  });

  // A seller asking marketplace X's buyer for marketplace X's product (test/fixtures/commerce/marketplaces.ts ids).
  const perMarketplace = [
    { buyerId: 'buyer-cloudA', productId: 'prod-cloudA', currency: 'USD', amount: 120000 },
    { buyerId: 'buyer-cloudB', productId: 'prod-cloudB', currency: 'EUR', amount: 80000 },
    { buyerId: 'buyer-cloudC', productId: 'prod-cloudC', currency: 'usd', amount: 64000 },
    { buyerId: 'buyer-cloudD', productId: 'prod-cloudD', currency: 'JPY', amount: 3600 },
    { buyerId: 'buyer-cloudE', productId: 'prod-cloudE', currency: 'GBP', amount: '24000' },
    { buyerId: 'buyer-cloudF', productId: 'prod-cloudF', currency: null, amount: 9999.99 },
  ];
  const expectedPerMarketplace = [
    { buyerID: 'buyer-cloudA', productID: 'prod-cloudA', info: { commitAmount: 120000, currency: 'USD' } },
    { buyerID: 'buyer-cloudB', productID: 'prod-cloudB', info: { commitAmount: 80000, currency: 'EUR' } },
    { buyerID: 'buyer-cloudC', productID: 'prod-cloudC', info: { commitAmount: 64000, currency: 'USD' } },
    { buyerID: 'buyer-cloudD', productID: 'prod-cloudD', info: { commitAmount: 3600, currency: 'JPY' } },
    { buyerID: 'buyer-cloudE', productID: 'prod-cloudE', info: { commitAmount: 24000, currency: 'GBP' } },
    { buyerID: 'buyer-cloudF', productID: 'prod-cloudF', info: { commitAmount: 9999.99, currency: 'USD' } },
  ];
  perMarketplace.forEach((input, index) => {
    it(`marketplace ${'ABCDEF'[index]}: its buyer and product, the commit in the opportunity's currency`, () => {
      expect(draftOfferAsk('crmAOpportunityId', values({ ...input, contactIds: [] }), 'x')).toEqual({
        asks: true,
        request: { name: 'Analytics, 3 years', offerType: 'PRIVATE', expireTime: '2027-06-30T23:59:59.000Z', metaInfo: { crmAOpportunityId: 'opp-1' }, ...expectedPerMarketplace[index] },
      });
    });
  });

  it('the checkbox as text (HubSpot), no currency (USD), no amount, date or contacts, a blank name', () => {
    expect(draftOfferAsk('crmBDealId', values({ requested: 'true', currency: undefined, name: '', closeDate: null }), 'x')).toEqual({
      asks: true,
      request: { name: 'opp-1', offerType: 'PRIVATE', productID: 'prod-cloudA', buyerID: 'buyer-cloudA', info: { commitAmount: 120000, currency: 'USD' }, contactIds: ['contact-1', 'contact-2'], metaInfo: { crmBDealId: 'opp-1' } },
    });
    expect(draftOfferAsk('crmCOpportunityId', values({ amount: null, contactIds: [], productId: ' prod-9 ' }), 'x')).toEqual({
      asks: true,
      request: { name: 'Analytics, 3 years', offerType: 'PRIVATE', productID: 'prod-9', buyerID: 'buyer-cloudA', expireTime: '2027-06-30T23:59:59.000Z', metaInfo: { crmCOpportunityId: 'opp-1' } },
    });
  });

  it('not requested: nothing; requested without a product or a buyer: refused in the CRM\'s words', () => {
    expect(draftOfferAsk('crmAOpportunityId', values({ requested: false }), 'x')).toEqual({ asks: false });
    expect(draftOfferAsk('crmAOpportunityId', values({ requested: 'false' }), 'x')).toEqual({ asks: false });
    expect(draftOfferAsk('crmAOpportunityId', values({ productId: '', buyerId: null }), 'buyerID: no buyer')).toEqual({
      asks: true,
      refused: 'productID: no marketplace product is named; fill Commerce Product Id with the product to offer\nbuyerID: no buyer',
    });
    expect(draftOfferAsk('crmAOpportunityId', values({ buyerId: undefined }), 'buyerID: no buyer')).toEqual({ asks: true, refused: 'buyerID: no buyer' });
  });
});

describe('each CRM side reads its own fields, its currency included', () => {
  const settings = { cosell: { enabled: true, share: { by: 'checkbox', field: 'x' } } } as never;
  const draft = { name: 'Analytics, 3 years', offerType: 'PRIVATE', productID: 'prod-9', buyerID: 'buyer-1', expireTime: '2027-06-30T23:59:59.000Z', info: { commitAmount: 120000, currency: 'GBP' }, contactIds: ['contact-1'] };

  it('Salesforce: CurrencyIsoCode', () => {
    const opportunity = { Id: '006A', Name: 'Analytics, 3 years', Amount: 120000, CloseDate: '2027-06-30', Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-9', Account: { Commerce_Buyer_Id__c: 'buyer-1' }, CurrencyIsoCode: 'GBP' };
    // Salesforce reads an approval (issue #28): without a rule the draft may go to the buyer at once.
    expect(salesforceSide.ask(opportunity, settings, ['contact-1'])).toEqual({ asks: true, request: { ...draft, metaInfo: { crmAOpportunityId: '006A' }, publish: true } });
  });

  it('HubSpot: deal_currency_code', () => {
    const deal = { hs_object_id: '301', dealname: 'Analytics, 3 years', amount: '120000', closedate: '2027-06-30T00:00:00.000Z', private_offer_requested: 'true', commerce_product_id: 'prod-9', deal_currency_code: 'GBP' };
    expect(dealDraftOfferSide.ask(deal, settings, { buyerId: 'buyer-1', contactIds: ['contact-1'] })).toEqual({ asks: true, request: { ...draft, metaInfo: { crmBDealId: '301' } } });
    expect(dealDraftOfferSide.optionalFields).toEqual(['cosell_draft_errors', 'deal_currency_code', 'offer_duration_months', 'offer_payment_schedule', 'offer_approval_status', 'offer_approved_by', 'offer_approved_at', 'offer_new_expiry_date', 'offer_cancel_requested']);
  });

  it('Dynamics: the transaction currency\'s ISO code, read through transactioncurrency for the page', async () => {
    const calls: { object: string; values: string[]; fields?: string[] }[] = [];
    const tables: Record<string, CrmRecord[]> = {
      account: [{ id: 'aaaa0000-0000-0000-0000-000000000001', ccs_commercebuyerid: 'buyer-1' }],
      transactioncurrency: [{ id: 'cccc0000-0000-0000-0000-00000000000b', isocurrencycode: 'GBP' }],
      ccs_opportunitycontact: [{ _ccs_opportunityid_value: 'bbbb0000-0000-0000-0000-000000000001', _ccs_contactid_value: 'dddd0000-0000-0000-0000-000000000001' }],
      contact: [{ id: 'dddd0000-0000-0000-0000-000000000001', ccs_commercecontactid: 'contact-1' }],
    };
    const crm = {
      async findWhereIn(object: string, field: string, wanted: string[], fields?: string[]) {
        calls.push({ object, values: wanted, fields });
        return (tables[object] ?? []).filter((row) => wanted.includes(String(row[field === 'id' ? 'id' : field]).toLowerCase()));
      },
    } as unknown as CrmConnector;
    const asking = { id: 'BBBB0000-0000-0000-0000-000000000001', name: 'Analytics, 3 years', estimatedvalue: 120000, estimatedclosedate: '2027-06-30', ccs_privateofferrequested: true, ccs_commerceproductid: 'prod-9', _parentaccountid_value: 'aaaa0000-0000-0000-0000-000000000001', _transactioncurrencyid_value: 'CCCC0000-0000-0000-0000-00000000000B' };
    const noCurrency = { ...asking, id: 'bbbb0000-0000-0000-0000-000000000002', _transactioncurrencyid_value: null };
    const related = await dynamicsSide.related!(crm, [asking, noCurrency]);
    expect(calls.find((call) => call.object === 'transactioncurrency')).toEqual({ object: 'transactioncurrency', values: ['cccc0000-0000-0000-0000-00000000000b'], fields: ['isocurrencycode'] });
    expect(related.get(asking.id)).toEqual({ accountId: 'aaaa0000-0000-0000-0000-000000000001', buyerId: 'buyer-1', currency: 'GBP', contactIds: ['contact-1'] });
    expect(dynamicsSide.ask(asking, settings, related.get(asking.id))).toEqual({ asks: true, request: { ...draft, metaInfo: { crmCOpportunityId: 'bbbb0000-0000-0000-0000-000000000001' } } });
    expect(dynamicsSide.ask(noCurrency, settings, related.get(noCurrency.id))).toMatchObject({ request: { info: { commitAmount: 120000, currency: 'USD' } } });
    expect(dynamicsSide.optionalFields).toEqual(['ccs_coselldrafterrors', '_transactioncurrencyid_value', 'ccs_offerdurationmonths', 'ccs_offerpaymentschedule', 'ccs_offerapprovalstatus', 'ccs_offerapprovedby', 'ccs_offerapprovedat', 'ccs_offernewexpirydate', 'ccs_offercancelrequested']);
  });

  it('Dynamics: a page naming no currency reads no transactioncurrency row', async () => {
    const objects: string[] = [];
    const crm = { findWhereIn: async (object: string) => (objects.push(object), []) } as unknown as CrmConnector;
    await opportunityRelations(crm, [{ id: 'bbbb0000-0000-0000-0000-000000000003', _parentaccountid_value: null }], { contacts: false });
    expect(objects).toEqual([]);
  });
});
