// The canonical renewal (mappings/canonical/renewal.ts) and each CRM's table over it, with expectations
// written by hand: due, drafted, won and lost.
import { describe, expect, it } from 'vitest';
import type { Entitlement, Offer } from '../../commerce/models.ts';
import { RENEWAL } from '../../mappings/canonical/renewal.ts';
import { renewalToDynamicsOpportunity } from '../../mappings/dynamics/renewal.ts';
import { renewalToHubSpotDeal } from '../../mappings/hubspot/renewal.ts';
import { renewalToOpportunity } from '../../mappings/salesforce/renewal.ts';
import { applyMapping } from '../../mappings/overrides.ts';
import { mappingsFor } from '../../crm/registry.ts';

const entitlement = {
  id: 'ent-000007',
  lastUpdateTime: '2026-11-01T00:00:00Z',
  name: 'Acme analytics',
  status: 'ACTIVE',
  partner: 'cloudA',
  buyerID: 'buyer-000003',
  offerID: 'offer-000002',
  endTime: '2027-01-31T12:00:00Z',
  info: { annualizedAmount: 12000, currency: 'EUR' },
} as Entitlement;
const draft = { id: 'offer-000099', lastUpdateTime: '2026-11-20T00:00:00Z', info: { commitAmount: 12360, currency: 'EUR', privateOfferUrl: 'https://marketplace-a.example/offers/offer-000099' } } as Offer;
const successor = { id: 'ent-000050', lastUpdateTime: '2026-12-01T00:00:00Z', offerID: 'offer-000099', buyerID: 'buyer-000003', info: { commitAmount: 12360 } } as Entitlement;
const BEFORE_END = '2026-12-01T00:00:00Z';
const AFTER_END = '2027-02-01T00:00:00Z';

function canonical(source: Entitlement, context: Parameters<typeof RENEWAL.compute>[1]) {
  const computed = RENEWAL.compute(source, context);
  if (!computed.ok) throw new Error(computed.reason);
  return computed.value;
}

describe('the canonical renewal', () => {
  it('is due before any draft: keyed by the entitlement, closing on its end day, at its annual value', () => {
    expect(canonical(entitlement, { asOf: BEFORE_END })).toEqual({
      key: 'renewal-ent-000007',
      entitlementId: 'ent-000007',
      name: 'Renewal: Acme analytics',
      outcome: 'DUE',
      closeDate: '2027-01-31',
      amount: 12000,
      currency: 'EUR',
      marketplace: 'Marketplace A',
      buyerId: 'buyer-000003',
      renewalOfferId: null,
      renewalOfferUrl: null,
      renewalEntitlementId: null,
    });
  });

  it('carries the draft renewal offer: its id, link and amount', () => {
    expect(canonical(entitlement, { asOf: BEFORE_END, draft })).toMatchObject({
      outcome: 'DRAFTED',
      amount: 12360,
      renewalOfferId: 'offer-000099',
      renewalOfferUrl: 'https://marketplace-a.example/offers/offer-000099',
      renewalEntitlementId: null,
    });
  });

  it('is won once the renewing entitlement arrived, linked to it, even after the end', () => {
    expect(canonical(entitlement, { asOf: AFTER_END, successor })).toMatchObject({ outcome: 'WON', amount: 12360, renewalOfferId: 'offer-000099', renewalOfferUrl: null, renewalEntitlementId: 'ent-000050' });
  });

  it('is lost once the entitlement ended without one: past its end, or EXPIRED before it', () => {
    expect(canonical(entitlement, { asOf: AFTER_END }).outcome).toBe('LOST');
    expect(canonical({ ...entitlement, status: 'EXPIRED' }, { asOf: BEFORE_END, draft }).outcome).toBe('LOST');
  });
});

describe("each CRM's renewal opportunity", () => {
  it('Salesforce: an Opportunity on the Account, linked to the entitlement, stage by outcome', () => {
    const mapped = applyMapping(renewalToOpportunity, undefined, entitlement, { asOf: BEFORE_END, draft });
    expect(mapped.ok && mapped.record).toEqual({
      object: 'Opportunity',
      externalIdField: 'Commerce_Renewal_Key__c',
      externalId: 'renewal-ent-000007',
      fields: {
        Name: 'Renewal: Acme analytics',
        StageName: 'Proposal/Price Quote',
        CloseDate: '2027-01-31',
        Amount: 12360,
        CurrencyIsoCode: 'EUR',
        Account: { Commerce_Buyer_Id__c: 'buyer-000003' },
        Marketplace__c: 'Marketplace A',
        Renewal_Of_Entitlement__r: { Commerce_Entitlement_Id__c: 'ent-000007' },
        Renewal_Offer_Id__c: 'offer-000099',
        Offer_URL__c: 'https://marketplace-a.example/offers/offer-000099',
      },
    });
    const won = applyMapping(renewalToOpportunity, undefined, entitlement, { asOf: AFTER_END, successor });
    expect(won.ok && won.record.fields).toMatchObject({ StageName: 'Closed Won', Renewal_Entitlement__r: { Commerce_Entitlement_Id__c: 'ent-000050' } });
  });

  it('HubSpot: a deal in the renewals pipeline, associated to the company and both entitlements', () => {
    const mapped = applyMapping(renewalToHubSpotDeal, undefined, entitlement, { asOf: AFTER_END, successor });
    expect(mapped.ok && mapped.record.fields).toEqual({
      dealname: 'Renewal: Acme analytics',
      pipeline: 'Marketplace renewals',
      dealstage: 'Renewed',
      closedate: '2027-01-31',
      amount: 12360,
      marketplace: 'Marketplace A',
      renewal_offer_id: 'offer-000099',
      offer_url: null,
      renewal_entitlement_id: 'ent-000050',
      companies: { commerce_buyer_id: 'buyer-000003' },
      marketplace_entitlement: [{ entitlement_id: 'ent-000007' }, { entitlement_id: 'ent-000050' }],
    });
  });

  it('HubSpot without custom objects: the same deal, without associations to the object it lacks', () => {
    const mapping = mappingsFor('hubspot', { kind: 'hubspot', baseUrl: 'https://api.hubapi.com', auth: 'private-app', entitlementObject: 'line_items' }).renewal!;
    const mapped = applyMapping(mapping, undefined, entitlement, { asOf: AFTER_END, successor });
    expect(mapped.ok && mapped.record.fields).toMatchObject({ dealstage: 'Renewed', renewal_entitlement_id: 'ent-000050', companies: { commerce_buyer_id: 'buyer-000003' } });
    expect(mapped.ok && Object.keys(mapped.record.fields)).not.toContain('marketplace_entitlement');
    expect(mappingsFor('hubspot').renewal).toBe(renewalToHubSpotDeal);
  });

  it('Dynamics: an opportunity whose state is Lost when the entitlement ended without a renewal', () => {
    const mapped = applyMapping(renewalToDynamicsOpportunity, undefined, entitlement, { asOf: AFTER_END });
    expect(mapped.ok && mapped.record.fields).toEqual({
      name: 'Renewal: Acme analytics',
      stepname: 'Lost',
      statecode: 'Lost',
      estimatedclosedate: '2027-01-31',
      estimatedvalue: 12000,
      parentaccountid: { ccs_commercebuyerid: 'buyer-000003' },
      ccs_marketplace: 'Marketplace A',
      ccs_renewalofentitlementid: { ccs_entitlementid: 'ent-000007' },
      ccs_renewalofferid: null,
      ccs_offerurl: null,
    });
  });
});
