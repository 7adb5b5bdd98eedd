// The canonical offer for marketplaces A to F (mappings/canonical/offer.ts), expected values written by
// hand from the fixtures (test/fixtures/commerce/marketplaces.ts), and each CRM's field table taking them
// under its own names, with its own carried-id conversion.
import { describe, expect, it } from 'vitest';
import type { Offer } from '../../commerce/models.ts';
import { OFFER } from '../../mappings/canonical/offer.ts';
import { offerToOpportunity as dynamicsOffer } from '../../mappings/dynamics/opportunity.ts';
import { offerToDeal } from '../../mappings/hubspot/deal.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import type { EntityMapping, MappedRecord } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

/** What every fixture offer shares: expiring 2026-03-31 23:59:59 UTC, a commit of 120000 USD, a private offer. */
const common = (partner: string) => ({
  id: `offer-${partner}`,
  name: `Private offer for ${partner}`,
  crmIds: {},
  closeDate: '2026-03-31',
  expiration: '2026-03-31T23:59:59Z',
  commitAmount: 120000,
  currency: 'USD',
  offerType: 'PRIVATE',
  url: `https://marketplace.example/${partner}/offer`,
  buyerId: `buyer-${partner}`,
});

const EXPECTED = {
  // Drafted from a Salesforce Opportunity: its id is carried.
  A: { ...common('cloudA'), stageStatus: 'ACCEPTED', status: 'ACCEPTED', marketplace: 'Marketplace A', crmIds: { salesforce: '006000000000001AAA' } },
  B: { ...common('cloudB'), stageStatus: 'PENDING_ACCEPTANCE', status: 'PENDING_ACCEPTANCE', marketplace: 'Marketplace B' },
  // No expiry (null clears the expiration) and neither an acceptance nor a creation date: no close date at all.
  C: { ...common('cloudC'), closeDate: undefined, expiration: null, stageStatus: 'EXPIRED', status: 'EXPIRED', marketplace: 'Marketplace C' },
  // Epoch milliseconds: 1775001599000 is 2026-03-31T23:59:59Z, the same instant as the others.
  D: { ...common('cloudD'), stageStatus: 'ACCEPTED', status: 'ACCEPTED', marketplace: 'Marketplace D' },
  E: { ...common('cloudE'), offerType: 'CPPO_OUT', stageStatus: 'ACCEPTED', status: 'ACCEPTED', marketplace: 'Marketplace E' },
  F: { ...common('cloudF'), stageStatus: 'DELETED', status: 'DELETED', marketplace: 'Marketplace F' },
};

/** The values the record holds: undefined ones ("not known") left out, inside crmIds too. */
const known = (value: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined).map(([key, inner]) => [key, key === 'crmIds' ? known(inner) : inner]));
const computed = (offer: Offer) => {
  const result = OFFER.compute(offer, undefined);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
};

describe('the canonical offer, marketplaces A to F', () => {
  for (const [marketplace, expected] of Object.entries(EXPECTED)) {
    it(`marketplace ${marketplace}`, () => {
      expect(known(computed(MARKETPLACE_FIXTURES[marketplace as keyof typeof MARKETPLACE_FIXTURES].offer))).toEqual(known(expected));
    });
  }

  it('an offer without a name, status, currency or expiry: "Offer <id>", PENDING_CREATE for the stage, USD, the acceptance date closes it', () => {
    const bare: Offer = { id: 'o-1', lastUpdateTime: '2026-02-01T10:00:00Z', info: { commitAmount: 10 }, metaInfo: { offerAcceptDate: '2026-02-14T08:00:00Z' }, creationTime: '2026-01-05T00:00:00Z' };
    expect(known(computed(bare))).toEqual({ id: 'o-1', name: 'Offer o-1', stageStatus: 'PENDING_CREATE', closeDate: '2026-02-14', commitAmount: 10, currency: 'USD', crmIds: {} });
  });

  it('without an acceptance date the creation date closes it; lastUpdateTime never does', () => {
    const made: Offer = { id: 'o-2', lastUpdateTime: '2026-02-01T10:00:00Z', creationTime: 1767571200000 };
    expect(computed(made).closeDate).toBe('2026-01-05');
    expect(computed({ id: 'o-3', lastUpdateTime: '2026-02-01T10:00:00Z' }).closeDate).toBeUndefined();
  });

  it('contacts each once in the order named; empty carried ids and a commit that is not a number are not values', () => {
    const offer: Offer = {
      ...MARKETPLACE_FIXTURES.B.offer,
      contactIds: ['c-2', 'c-1', 'c-2'],
      metaInfo: { crmAOpportunityId: '', crmBDealId: '', crmCOpportunityId: '' },
      info: { commitAmount: Number.NaN, currency: 'EUR' },
    };
    const value = computed(offer);
    expect(value.contactIds).toEqual(['c-2', 'c-1']);
    expect(known(value.crmIds)).toEqual({});
    expect(value.commitAmount).toBeUndefined();
    expect(value.currency).toBe('EUR');
    expect(computed({ ...offer, contactIds: [] }).contactIds).toBeUndefined();
  });

  it('an unreadable time refuses the record, naming it and the field; no id refuses it too', () => {
    expect(OFFER.compute({ ...MARKETPLACE_FIXTURES.A.offer, expireTime: 'soon' }, undefined)).toEqual({ ok: false, reason: 'offer offer-cloudA: expireTime "soon" is not a date-time' });
    expect(OFFER.compute({ ...MARKETPLACE_FIXTURES.A.offer, expireTime: undefined, metaInfo: { offerAcceptDate: 'Tuesday' } }, undefined)).toEqual({
      ok: false,
      reason: 'offer offer-cloudA: metaInfo.offerAcceptDate "Tuesday" is not a date-time',
    });
    expect(OFFER.compute({ ...MARKETPLACE_FIXTURES.A.offer, id: '' }, undefined)).toEqual({ ok: false, reason: 'the offer has no id' });
  });
});

describe('each CRM takes the canonical offer under its own names', () => {
  const offer: Offer = {
    ...MARKETPLACE_FIXTURES.B.offer,
    contactIds: ['c-1'],
    metaInfo: { crmAOpportunityId: '006SELLER', crmBDealId: '9001', crmCOpportunityId: '{6F9619FF-8B86-D011-B42D-00C04FC964FF}' },
  };
  // The mapping's own output, before the connection's picklists turn the status into a stage.
  const mapped = (mapping: EntityMapping<Offer>): MappedRecord => {
    const result = mapping.map(offer, undefined);
    if (!result.ok) throw new Error(result.reason);
    return result.record;
  };

  it('Salesforce: the status for StageName, the close date, the commit, the currency, the buyer\'s Account and its own carried Opportunity id', () => {
    const record = mapped(offerToOpportunity);
    expect(record.carriedCrmId).toBe('006SELLER');
    expect(record.fields).toMatchObject({ StageName: 'PENDING_ACCEPTANCE', CloseDate: '2026-03-31', Amount: 120000, CurrencyIsoCode: 'USD', Account: { Commerce_Buyer_Id__c: 'buyer-cloudB' }, Offer_Status__c: 'PENDING_ACCEPTANCE' });
  });

  it('HubSpot: the offers pipeline, the status for dealstage, contacts as associations and its own carried deal id', () => {
    const record = mapped(offerToDeal);
    expect(record.carriedCrmId).toBe('9001');
    expect(record.fields).toMatchObject({ pipeline: 'Marketplace offers', dealstage: 'PENDING_ACCEPTANCE', closedate: '2026-03-31', amount: 120000, contacts: [{ commerce_contact_id: 'c-1' }], companies: { commerce_buyer_id: 'buyer-cloudB' } });
  });

  it('Dynamics: the status for both stepname and statecode, and the carried opportunity as a bare lowercase GUID', () => {
    const record = mapped(dynamicsOffer);
    expect(record.carriedCrmId).toBe('6f9619ff-8b86-d011-b42d-00c04fc964ff');
    expect(record.fields).toMatchObject({ stepname: 'PENDING_ACCEPTANCE', statecode: 'PENDING_ACCEPTANCE', estimatedclosedate: '2026-03-31', estimatedvalue: 120000, parentaccountid: { ccs_commercebuyerid: 'buyer-cloudB' } });
  });

  it('none carries an id the offer does not carry', () => {
    const plain = { ...offer, metaInfo: undefined };
    for (const mapping of [offerToOpportunity, offerToDeal, dynamicsOffer]) {
      const result = mapping.map(plain, undefined);
      expect(result.ok && result.record).not.toHaveProperty('carriedCrmId');
    }
  });
});
