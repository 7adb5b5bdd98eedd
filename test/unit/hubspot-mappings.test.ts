// The default HubSpot mappings against a table worked out by hand (test/fixtures/hubspot): whole records,
// every property and association, for one buyer, contact, offer, entitlement and referral per marketplace;
// and the pure co-sell decisions on HubSpot deals.
import { describe, expect, it } from 'vitest';
import { dealToDraftOffer, dealToReferral } from '../../mappings/hubspot/deal-cosell.ts';
import { entitlementToLineItem, HUBSPOT_MAPPINGS, inboundReferralToDeal } from '../../mappings/hubspot/index.ts';
import { HUBSPOT_PROPERTIES } from '../../mappings/hubspot/schema.ts';
import { COSELL_TO_HUBSPOT_STAGE, HUBSPOT_TO_COSELL_STAGE } from '../../mappings/hubspot/stages.ts';
import { applyMapping } from '../../mappings/overrides.ts';
import type { EntityMapping } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';
import { EXPECTED_HUBSPOT_RECORDS } from '../fixtures/hubspot/expected-records.ts';

type Marketplace = keyof typeof MARKETPLACE_FIXTURES;
type Name = keyof (typeof EXPECTED_HUBSPOT_RECORDS)['A'];
const MARKETPLACES = Object.keys(MARKETPLACE_FIXTURES) as Marketplace[];

const CASES: Record<Name, { mapping: EntityMapping<any, any>; input(m: Marketplace): [unknown, unknown] }> = {
  company: { mapping: HUBSPOT_MAPPINGS.buyer, input: (m) => [MARKETPLACE_FIXTURES[m].buyer, undefined] },
  contact: { mapping: HUBSPOT_MAPPINGS.contact, input: (m) => [MARKETPLACE_FIXTURES[m].contact, undefined] },
  offerDeal: { mapping: HUBSPOT_MAPPINGS.offer, input: (m) => [MARKETPLACE_FIXTURES[m].offer, undefined] },
  entitlement: { mapping: HUBSPOT_MAPPINGS.entitlement, input: (m) => [MARKETPLACE_FIXTURES[m].entitlement, { terms: MARKETPLACE_FIXTURES[m].terms }] },
  referralDeal: { mapping: HUBSPOT_MAPPINGS.referral, input: (m) => [MARKETPLACE_FIXTURES[m].referral, undefined] },
};

const mapped = (name: Name, m: Marketplace) => {
  const [source, related] = CASES[name].input(m);
  const result = applyMapping(CASES[name].mapping, undefined, source, related);
  if (!result.ok) throw new Error(result.reason);
  return result.record;
};

describe('HubSpot default mappings: whole records, marketplace by marketplace', () => {
  for (const m of MARKETPLACES) {
    for (const name of Object.keys(CASES) as Name[]) {
      it(`${m}: ${name} is exactly the expected record`, () => {
        expect(mapped(name, m)).toEqual(EXPECTED_HUBSPOT_RECORDS[m][name]);
      });
    }
  }

  it('every mapping documents exactly the properties and associations the table expects it to write', () => {
    for (const name of Object.keys(CASES) as Name[]) {
      // No fixture offer names contacts: that association is checked on its own below.
      const written = new Set([...MARKETPLACES.flatMap((m) => Object.keys(EXPECTED_HUBSPOT_RECORDS[m][name].fields)), ...(name === 'offerDeal' ? ['contacts'] : [])]);
      expect(new Set(Object.keys(CASES[name].mapping.describe)), name).toEqual(written);
    }
  });

  it('every property a mapping writes is one setup creates or one of HubSpot\'s own', () => {
    const builtIn: Record<string, string[]> = {
      companies: ['name', 'domain', 'country'],
      contacts: ['email', 'firstname', 'lastname', 'phone'],
      deals: ['dealname', 'amount', 'closedate', 'dealstage', 'pipeline'],
      marketplace_entitlement: ['entitlement_name', 'entitlement_id'],
      line_items: ['name', 'price', 'quantity', 'description'],
    };
    const associations = ['companies', 'contacts', 'deals'];
    for (const mapping of [...Object.values(HUBSPOT_MAPPINGS), entitlementToLineItem, inboundReferralToDeal]) {
      const known = new Set([...(builtIn[mapping.object] ?? []), ...(HUBSPOT_PROPERTIES[mapping.object] ?? []).map((property) => property.name), ...associations]);
      for (const field of Object.keys(mapping.describe)) expect(known.has(field), `${mapping.object}.${field}`).toBe(true);
    }
  });

  it('bad input is refused with a reason, never thrown', () => {
    expect(applyMapping(HUBSPOT_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.A.offer, expireTime: 'next tuesday' }, undefined)).toEqual({ ok: false, reason: 'offer offer-cloudA: expireTime "next tuesday" is not a date-time' });
    expect(applyMapping(HUBSPOT_MAPPINGS.buyer, undefined, { ...MARKETPLACE_FIXTURES.A.buyer, id: '' }, undefined)).toEqual({ ok: false, reason: 'the buyer has no id' });
    expect(applyMapping(inboundReferralToDeal, undefined, { ...MARKETPLACE_FIXTURES.B.referral, buyerID: undefined }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudB names no buyer, so there is no company to put its deal on' });
  });

  it('hostile text passes through unchanged (it is a typed property value, never a query)', () => {
    const name = `O'Neil "Deal" \\ OR 1=1 -- ✓`;
    const record = mapped('offerDeal', 'A');
    const hostile = applyMapping(HUBSPOT_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.A.offer, name }, undefined);
    expect(hostile.ok && hostile.record.fields.dealname).toBe(name);
    expect(record.fields.dealname).toBe('Private offer for cloudA');
  });

  it('an offer\'s contacts become one association each; the fallback writes an entitlement as a line item on its deal', () => {
    const withContacts = applyMapping(HUBSPOT_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.A.offer, contactIds: ['c-2', 'c-1', 'c-2'] }, undefined);
    expect(withContacts.ok && withContacts.record.fields.contacts).toEqual([{ commerce_contact_id: 'c-2' }, { commerce_contact_id: 'c-1' }]);
    const line = applyMapping(entitlementToLineItem, undefined, MARKETPLACE_FIXTURES.B.entitlement, { terms: MARKETPLACE_FIXTURES.B.terms });
    expect(line).toEqual({
      ok: true,
      record: {
        object: 'line_items',
        externalIdField: 'commerce_entitlement_id',
        externalId: 'ent-cloudB-1',
        fields: {
          name: 'Analytics Suite (cloudB)',
          price: 80000,
          quantity: 1,
          description: [
            'status: ACTIVE', 'start_date: 2026-01-01T00:00:00Z', 'end_date: 2027-01-01T00:00:00Z', 'commit_amount: 80000', 'used_commit_amount: 10000', 'credit_amount: 0', 'used_credit_amount: 0',
            'currency: EUR', 'marketplace: Marketplace B', 'marketplace_agreement_id: asset-b-9', 'marketplace_subscription_id: sub-b-42', 'product_id: prod-cloudB', 'offer_id: offer-cloudB',
            'invoiced_amount: 20000', 'reported_amount: 0', 'net_terms_days: 45', 'auto_renew: false', 'agreement_status: Subscribed',
          ].join('\n'),
          deals: { commerce_offer_id: 'offer-cloudB' },
        },
      },
    });
  });
});

describe('HubSpot stage tables', () => {
  it('a co-sell stage goes to a HubSpot default stage and comes back as itself', () => {
    expect(COSELL_TO_HUBSPOT_STAGE).toEqual({
      Prospect: 'Appointment Scheduled',
      Qualified: 'Qualified To Buy',
      'Technical Validation': 'Presentation Scheduled',
      'Business Validation': 'Decision Maker Bought-In',
      Committed: 'Contract Sent',
      Launched: 'Closed Won',
      'Closed Lost': 'Closed Lost',
    });
    for (const [cosell, hubspot] of Object.entries(COSELL_TO_HUBSPOT_STAGE)) expect(HUBSPOT_TO_COSELL_STAGE[hubspot], hubspot).toBe(cosell);
  });
});

describe('HubSpot deals asking the commerce side', () => {
  const rule = { by: 'checkbox', field: 'cosell_share' } as const;
  const deal = { hs_object_id: '301', dealname: 'Big deal', amount: '1200.5', closedate: '2027-03-31T00:00:00.000Z', cosell_share: 'true', cosell_partner: 'Marketplace B', dealstage: 'Appointment Scheduled' };

  it('a shared deal asks for a referral naming the deal by crmBDealId', () => {
    expect(dealToReferral(deal, rule, { buyerId: 'buyer-1', contactIds: [] })).toEqual({
      asks: true,
      request: { name: 'Big deal', partner: 'cloudB', buyerID: 'buyer-1', dealValue: 1200.5, currency: 'USD', expectedCloseDate: '2027-03-31', crmBDealId: '301', status: 'SUBMITTED' },
    });
  });

  it('with a submit rule by stage, the referral is submitted only from that stage on', () => {
    const submit = { by: 'stage' as const, stages: ['contractsent'] };
    const early = dealToReferral({ ...deal, dealstage: 'appointmentscheduled' }, rule, { buyerId: 'buyer-1', contactIds: [] }, submit);
    expect(early.asks && 'request' in early && early.request.status).toBe(undefined);
    const late = dealToReferral({ ...deal, dealstage: 'contractsent' }, rule, { buyerId: 'buyer-1', contactIds: [] }, submit);
    expect(late.asks && 'request' in late && late.request.status).toBe('SUBMITTED');
  });

  it('not shared: nothing; shared without a partner or a marketplace company: refused in words a salesperson can act on', () => {
    expect(dealToReferral({ ...deal, cosell_share: 'false' }, rule, { buyerId: 'buyer-1', contactIds: [] })).toEqual({ asks: false });
    expect(dealToReferral({ ...deal, cosell_partner: 'Marketplace Z' }, rule, { contactIds: [] })).toEqual({
      asks: true,
      refused:
        'partner: "Marketplace Z" is not a marketplace; choose Marketplace A to Marketplace F in Co-sell Partner\n' +
        'buyerID: the deal is not associated to a company synced from the marketplace (it has a Commerce Buyer Id); associate one, then save the deal again',
    });
  });

  it('a deal asking for a private offer names its product, buyer and contacts', () => {
    const asking = { ...deal, private_offer_requested: 'true', commerce_product_id: 'prod-9' };
    expect(dealToDraftOffer(asking, { buyerId: 'buyer-1', contactIds: ['c-2', 'c-1', 'c-2'] })).toEqual({
      asks: true,
      request: { name: 'Big deal', offerType: 'PRIVATE', productID: 'prod-9', buyerID: 'buyer-1', expireTime: '2027-03-31T23:59:59.000Z', info: { commitAmount: 1200.5, currency: 'USD' }, contactIds: ['c-1', 'c-2'], metaInfo: { crmBDealId: '301' } },
    });
    expect(dealToDraftOffer({ ...asking, commerce_product_id: '' }, { buyerId: 'buyer-1', contactIds: [] })).toEqual({ asks: true, refused: 'productID: no marketplace product is named; fill Commerce Product Id with the product to offer' });
    expect(dealToDraftOffer(deal, { buyerId: 'buyer-1', contactIds: [] })).toEqual({ asks: false });
  });
});
