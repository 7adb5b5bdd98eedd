import { describe, expect, it } from 'vitest';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { applyMapping } from '../../mappings/overrides.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const { entitlement: entitlementMapping, offer: offerMapping, buyer: buyerMapping, contact: contactMapping, referral: referralMapping } = SALESFORCE_MAPPINGS;

function mapEntitlement(key: keyof typeof MARKETPLACE_FIXTURES) {
  const fixture = MARKETPLACE_FIXTURES[key];
  const result = applyMapping(entitlementMapping, undefined, fixture.entitlement, { terms: fixture.terms });
  if (!result.ok) throw new Error(result.reason);
  return result.record;
}

function mapOffer(key: keyof typeof MARKETPLACE_FIXTURES) {
  const result = applyMapping(offerMapping, undefined, MARKETPLACE_FIXTURES[key].offer, undefined);
  if (!result.ok) throw new Error(result.reason);
  return result.record;
}

describe('Salesforce default mappings, marketplace by marketplace', () => {
  it('A: agreement id, license, the named current term with used and credit amounts', () => {
    const record = mapEntitlement('A');
    expect(record).toMatchObject({ object: 'Marketplace_Entitlement__c', externalIdField: 'Commerce_Entitlement_Id__c', externalId: 'ent-cloudA-1' });
    expect(record.fields).toMatchObject({
      Marketplace__c: 'Marketplace A',
      Marketplace_Agreement_Id__c: 'agmt-7f3a',
      Marketplace_Subscription_Id__c: 'arn:marketplace-a:license:lic-1',
      Commit_Amount__c: 120000,
      Used_Commit_Amount__c: 30500.5,
      Credit_Amount__c: 1000,
      Used_Credit_Amount__c: 250,
      Annualized_Amount__c: 120000,
      Account__r: { Commerce_Buyer_Id__c: 'buyer-cloudA' },
      Opportunity__r: { Commerce_Offer_Id__c: 'offer-cloudA' },
    });
    // The offer made from an existing Opportunity carries its id, so that one is updated.
    const offer = mapOffer('A');
    expect(offer.carriedCrmId).toBe('006000000000001AAA');
    expect(offer.fields).toMatchObject({ StageName: 'Closed Won', CloseDate: '2026-03-31', Amount: 120000, Offer_URL__c: 'https://marketplace.example/cloudA/offer' });
  });

  it('B: subscription id and asset id, currency kept', () => {
    expect(mapEntitlement('B').fields).toMatchObject({
      Marketplace__c: 'Marketplace B',
      Marketplace_Subscription_Id__c: 'sub-b-42',
      Marketplace_Agreement_Id__c: 'asset-b-9',
      Currency__c: 'EUR',
      Commit_Amount__c: 80000,
    });
    expect(mapOffer('B').fields.StageName).toBe('Proposal/Price Quote');
  });

  it('C: open-ended entitlement clears its end date; no terms falls back to info.commitAmount', () => {
    const fields = mapEntitlement('C').fields;
    expect(fields.End_Date__c).toBeNull();
    expect(fields.Commit_Amount__c).toBe(64000);
    expect(fields.Marketplace_Agreement_Id__c).toBe('providers/p/entitlements/e-c-5');
    const offer = mapOffer('C');
    expect(offer.fields.StageName).toBe('Closed Lost');
    expect(offer.fields.CloseDate).toBe('2026-02-01'); // no expiry and no creation time: the last update stands in
    expect(offer.fields.Offer_Expiration__c).toBeNull(); // an offer without expiry clears the field
  });

  it('D: epoch-millisecond times and a divided commit counted once', () => {
    const fields = mapEntitlement('D').fields;
    expect(fields.Start_Date__c).toBe('2026-01-01T00:00:00Z');
    expect(fields.End_Date__c).toBe('2027-01-01T00:00:00Z');
    expect(fields.Commit_Amount__c).toBe(3600);
    expect(fields.Used_Commit_Amount__c).toBe(1200);
    expect(fields.Marketplace_Agreement_Id__c).toBe('order-d-88');
    expect(fields.Marketplace_Subscription_Id__c).toBe('inst-d-77');
    expect(mapOffer('D').fields.Offer_Expiration__c).toBe('2026-03-31T23:59:59Z');
  });

  it('E: accepted offer id; CPPO_OUT offer type', () => {
    expect(mapEntitlement('E').fields).toMatchObject({ Marketplace_Agreement_Id__c: 'e-offer-3', Annualized_Amount__c: 24000, Commit_Amount__c: 24000 });
    expect(mapOffer('E').fields.Offer_Type__c).toBe('CPPO_OUT');
  });

  it('F: a cancelled entitlement and a deleted offer are reflected as statuses, not deletions', () => {
    expect(mapEntitlement('F').fields).toMatchObject({ Status__c: 'CANCELLED', Marketplace_Agreement_Id__c: 'f-offer-6', Commit_Amount__c: 9999.99 });
    expect(mapOffer('F').fields).toMatchObject({ StageName: 'Closed Lost', Offer_Status__c: 'DELETED' });
  });

  it('buyer, contact and referral defaults', () => {
    const account = applyMapping(buyerMapping, undefined, { id: 'b-1', lastUpdateTime: 't', name: 'Acme', partner: 'cloudC', externalID: 'acct-9', emailDomain: 'acme.example', metaInfo: { crmAAccountId: '001xx' } }, undefined);
    expect(account.ok && account.record).toMatchObject({ carriedCrmId: '001xx', fields: { Name: 'Acme', Website: 'https://acme.example', Marketplace__c: 'Marketplace C' } });
    const contact = applyMapping(contactMapping, undefined, { id: 'c-1', lastUpdateTime: 't', buyerID: 'b-1', email: 'x@acme.example' }, undefined);
    expect(contact.ok && contact.record.fields).toEqual({ LastName: '[not provided]', Email: 'x@acme.example', Account: { Commerce_Buyer_Id__c: 'b-1' } });
    const referral = applyMapping(referralMapping, undefined, { id: 'r-1', lastUpdateTime: 't', name: 'Deal', crmAOpportunityId: '006yy', offerID: 'o-1', stage: 'Launched' }, undefined);
    expect(referral.ok && referral.record.fields).toMatchObject({ Opportunity__c: '006yy', Stage__c: 'Launched' });
    expect(referral.ok && referral.record.fields).not.toHaveProperty('Opportunity__r');
  });

  it('refuses an unparseable date with a reason that names the field', () => {
    const result = applyMapping(offerMapping, undefined, { ...MARKETPLACE_FIXTURES.B.offer, expireTime: 'next Tuesday' }, undefined);
    expect(result).toEqual({ ok: false, reason: 'offer offer-cloudB: expireTime "next Tuesday" is not a date-time' });
  });
});
