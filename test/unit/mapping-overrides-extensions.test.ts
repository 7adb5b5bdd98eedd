// The overrides the console's mapping page adds (issue #26 section 3): a CRM field given a canonical
// value (`map`), create-only and seller-kept fields besides the mapping's own, and the picklist value
// suggested for a source value whose label the org's picklist has.
import { describe, expect, it } from 'vitest';
import type { FieldSchema, ObjectSchema } from '../../crm/connector.ts';
import { applyMapping, effectiveCreateOnly, effectiveSellerKeeps, validateMapping } from '../../mappings/overrides.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import { mappingInEffect, suggestPicklistValue } from '../../ops/mapping-view.ts';
import { connectionSettingsSchema, mappingOverridesSchema } from '../../sync/connection-settings.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const field = (name: string, extra: Partial<FieldSchema> = {}): FieldSchema => ({ name, type: 'string', required: false, createable: true, updateable: true, externalId: false, ...extra });
const opportunity: ObjectSchema = {
  name: 'Opportunity',
  fields: new Map(
    [
      field('Name'), field('StageName', { type: 'picklist', picklistValues: ['Prospecting', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost'], restrictedPicklist: true }),
      field('CloseDate'), field('Amount'), field('AccountId', { type: 'reference', relationshipName: 'Account' }), field('Commerce_Offer_Id__c', { externalId: true }),
      field('Marketplace__c'), field('Offer_Type__c'), field('Offer_Status__c'), field('Offer_URL__c'), field('Offer_Expiration__c'),
      field('Description'), field('Offer_State__c', { type: 'picklist', picklistValues: ['Accepted', 'Expired'], restrictedPicklist: true }),
      field('SystemModstamp', { createable: false, updateable: false }),
    ].map((f) => [f.name, f]),
  ),
};
const offer = MARKETPLACE_FIXTURES.A.offer; // ACCEPTED, PRIVATE, offer-cloudA

describe('mapping overrides from the console: map, createOnly, sellerKeeps', () => {
  it('writes a canonical value into a field the default mapping does not fill, and replaces a default source', () => {
    const result = applyMapping(offerToOpportunity, { map: { Description: 'offerType', Offer_Status__c: 'url' } }, offer, undefined);
    if (!result.ok) throw new Error(result.reason);
    expect(result.record.fields.Description).toBe('PRIVATE');
    expect(result.record.fields.Offer_Status__c).toBe('https://marketplace.example/cloudA/offer');
    expect(result.record.fields.Name).toBe('Private offer for cloudA'); // the rest as before
  });

  it('leaves a mapped field out when the record has no such value, as the default tables do', () => {
    const result = applyMapping(offerToOpportunity, { map: { Description: 'url' } }, { ...offer, info: { commitAmount: 5, currency: 'USD' } }, undefined);
    if (!result.ok) throw new Error(result.reason);
    expect(result.record.fields).not.toHaveProperty('Description');
  });

  it("translates a mapped field through the connection's own picklist map", () => {
    const result = applyMapping(offerToOpportunity, { map: { Offer_State__c: 'status' }, picklists: { Offer_State__c: { ACCEPTED: 'Accepted' } } }, offer, undefined);
    if (!result.ok) throw new Error(result.reason);
    expect(result.record.fields.Offer_State__c).toBe('Accepted');
    expect(validateMapping(offerToOpportunity, { map: { Offer_State__c: 'status' }, picklists: { Offer_State__c: { ACCEPTED: 'Accepted', EXPIRED: 'Lapsed' } } }, opportunity)).toEqual([
      '"Lapsed" (for EXPIRED) is not a value of the picklist Opportunity.Offer_State__c',
    ]);
  });

  it('names every problem of map, createOnly and sellerKeeps', () => {
    expect(
      validateMapping(offerToOpportunity, { map: { Description: 'colour', Region__c: 'name', SystemModstamp: 'name' }, createOnly: ['Nope__c'], sellerKeeps: ['Amount', 'Ghost__c'] }, opportunity),
    ).toEqual([
      "map of Opportunity.Description: the offer has no value 'colour' (it has: id, name, stageStatus, status, closeDate, expiration, commitAmount, currency, marketplace, offerType, url, buyerId, contactIds, crmIds)",
      "map of name: Opportunity has no field 'Region__c'",
      'map of name: Opportunity.SystemModstamp is read-only',
      'createOnly names Opportunity.Nope__c, which the offer mapping does not write',
      'sellerKeeps names Opportunity.Ghost__c, which the offer mapping does not write',
    ]);
    expect(validateMapping(offerToOpportunity, { map: { Description: 'offerType' }, createOnly: ['Description', 'Amount'], sellerKeeps: ['Amount'] }, opportunity)).toEqual([]);
  });

  it("adds create-only and seller-kept fields to the mapping's own, which stay", () => {
    expect(effectiveCreateOnly(offerToOpportunity, { createOnly: ['Amount'] })).toEqual(['CurrencyIsoCode', 'Amount']);
    expect(effectiveSellerKeeps(offerToOpportunity, { sellerKeeps: ['Amount', 'StageName'] })).toEqual(['StageName', 'CloseDate', 'Amount']);
    expect(effectiveCreateOnly(offerToOpportunity, undefined)).toEqual(['CurrencyIsoCode']);
  });

  it('saved settings accept the new keys and still refuse unknown ones (older overrides read as before)', () => {
    expect(mappingOverridesSchema.parse({ offer: { map: { Description: 'offerType' }, createOnly: ['Description'], sellerKeeps: ['Amount'] } })).toEqual({
      offer: { map: { Description: 'offerType' }, createOnly: ['Description'], sellerKeeps: ['Amount'] },
    });
    expect(mappingOverridesSchema.parse({ offer: { disable: ['Offer_URL__c'] } })).toEqual({ offer: { disable: ['Offer_URL__c'] } });
    expect(mappingOverridesSchema.safeParse({ offer: { owner: { Amount: 'seller' } } }).success).toBe(false);
  });
});

describe('the mapping in effect (crm-sync mapping, the console) with these overrides', () => {
  it('names the canonical value a field takes, and marks create-only and seller-kept fields', () => {
    const settings = connectionSettingsSchema.parse({
      commerce: { baseUrl: 'https://api.example', authUrl: 'https://auth.example', clientId: 'c', organizationId: 'org-1' },
      crm: { kind: 'salesforce', loginUrl: 'https://login.example', clientId: 'k' },
      overrides: { offer: { map: { Description: 'offerType', Offer_Status__c: 'stageStatus' }, createOnly: ['Amount'], sellerKeeps: ['Amount'] } },
    });
    const offer = mappingInEffect(settings).commerceToCrm.find((entity) => entity.entity === 'offer')!;
    const field = (name: string) => offer.fields.find((candidate) => candidate.field === name);
    expect(field('Description')).toEqual({ field: 'Description', from: "the offer's offerType", canonical: 'offerType' });
    expect(field('Offer_Status__c')).toEqual({ field: 'Offer_Status__c', from: "the offer's stageStatus", canonical: 'stageStatus' });
    expect(field('Amount')).toEqual({ field: 'Amount', from: 'offer.info.commitAmount', createOnly: true, sellerKeeps: true });
    expect(field('StageName')?.sellerKeeps).toBe(true);
    expect(field('CurrencyIsoCode')?.createOnly).toBe(true);
  });
});

describe('picklist suggestion for equal labels', () => {
  const stages = ['Prospecting', 'Closed Won', 'Closed Lost', 'Pending Acceptance'];
  it('suggests the value whose label is the same, ignoring case and _ - or spaces', () => {
    expect(suggestPicklistValue('PENDING_ACCEPTANCE', stages)).toBe('Pending Acceptance');
    expect(suggestPicklistValue('closed-won', stages)).toBe('Closed Won');
    expect(suggestPicklistValue('PROSPECTING', stages)).toBe('Prospecting');
  });
  it('suggests nothing when no label or more than one is the same', () => {
    expect(suggestPicklistValue('ACCEPTED', stages)).toBeUndefined();
    expect(suggestPicklistValue('EXPIRED', ['Expired', 'EXPIRED'])).toBeUndefined();
  });
});
