// Fields not every org has (EntityMapping.optionalFields): Salesforce's CurrencyIsoCode exists only in
// multi-currency orgs. A single-currency org is sent exactly what it was sent before the field was mapped
// (same fields, same content hash, so no record is written again); a multi-currency org gets the commerce
// record's currency. Requests asked from an Opportunity take its currency. Expected values come from the
// hand-worked table (test/fixtures/salesforce) and the contract, never from the code under test.
import { describe, expect, it } from 'vitest';
import type { ObjectSchema } from '../../crm/connector.ts';
import { fitToSchema } from '../../mappings/fit-to-schema.ts';
import { validateMapping } from '../../mappings/overrides.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { inboundReferralToOpportunity } from '../../mappings/salesforce/inbound-referral.ts';
import { opportunityToDraftOffer } from '../../mappings/salesforce/opportunity-draft-offer.ts';
import { opportunityToReferral } from '../../mappings/salesforce/opportunity-referral.ts';
import { contentHash } from '../../sync/hash.ts';
import { planPage } from '../../sync/plan.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';
import { EXPECTED_SALESFORCE_RECORDS } from '../fixtures/salesforce/expected-records.ts';
import { describeOrgObject } from '../support/salesforce-org-schema.ts';

/** The hand-written single-currency org's object, and the same object in a multi-currency org. */
const singleCurrency = (object: string) => describeOrgObject(object);
function multiCurrency(object: string): ObjectSchema {
  const schema = describeOrgObject(object);
  const fields = new Map(schema.fields);
  fields.set('CurrencyIsoCode', { name: 'CurrencyIsoCode', type: 'picklist', length: 3, required: false, createable: true, updateable: true, externalId: false, picklistValues: ['USD', 'EUR', 'GBP'], restrictedPicklist: true });
  return { name: schema.name, fields };
}

const B = MARKETPLACE_FIXTURES.B; // its entitlement is in EUR
const planned = (schema: ObjectSchema) =>
  planPage({ records: [B.entitlement], related: () => ({ terms: B.terms }), mapping: fitToSchema(SALESFORCE_MAPPINGS.entitlement, schema), links: new Map() }).writes[0]!;

describe('optional fields', () => {
  it('a single-currency org is sent no CurrencyIsoCode, and its records hash as they did before', () => {
    const write = planned(singleCurrency('Marketplace_Entitlement__c'));
    const { CurrencyIsoCode, ...fields } = EXPECTED_SALESFORCE_RECORDS.B.Marketplace_Entitlement__c.fields;
    expect(CurrencyIsoCode).toBe('EUR');
    expect(write.item.fields).toEqual(fields);
    expect(write.hash).toBe(contentHash({ object: 'Marketplace_Entitlement__c', externalIdField: 'Commerce_Entitlement_Id__c', externalId: 'ent-cloudB-1', fields }));
  });

  it('a multi-currency org gets the commerce record its currency, USD when it names none', () => {
    expect(planned(multiCurrency('Marketplace_Entitlement__c')).item.fields.CurrencyIsoCode).toBe('EUR');
    const inbound = fitToSchema(inboundReferralToOpportunity, multiCurrency('Opportunity')).map({ ...B.referral, currency: undefined }, undefined);
    expect(inbound.ok && inbound.record.fields.CurrencyIsoCode).toBe('USD');
  });

  it('an org without the field is no mapping problem; a missing field that is not optional still is', () => {
    for (const mapping of [SALESFORCE_MAPPINGS.offer, SALESFORCE_MAPPINGS.entitlement, SALESFORCE_MAPPINGS.referral, inboundReferralToOpportunity]) {
      expect(validateMapping(mapping, undefined, singleCurrency(mapping.object)), mapping.entity).toEqual([]);
      expect(validateMapping(mapping, undefined, multiCurrency(mapping.object)), mapping.entity).toEqual([]);
    }
    const withoutAmount = singleCurrency('Opportunity');
    const fields = new Map(withoutAmount.fields);
    fields.delete('Amount');
    expect(validateMapping(SALESFORCE_MAPPINGS.offer, undefined, { name: 'Opportunity', fields })).toEqual(["Opportunity has no field 'Amount' (written by the offer mapping)"]);
  });

  it('requests asked from an Opportunity carry its currency, USD where the org has none', () => {
    const opportunity = { Id: '006E', Name: 'Deal in euros', Amount: 25000, CloseDate: '2027-03-31', Account: { Commerce_Buyer_Id__c: 'buyer-1' }, Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-1', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B' };
    const draft = opportunityToDraftOffer({ ...opportunity, CurrencyIsoCode: 'EUR' });
    expect(draft.asks && 'request' in draft && draft.request.info).toEqual({ commitAmount: 25000, currency: 'EUR' });
    const plain = opportunityToDraftOffer(opportunity);
    expect(plain.asks && 'request' in plain && plain.request.info).toEqual({ commitAmount: 25000, currency: 'USD' });
    const rule = { by: 'checkbox', field: 'Cosell_Share__c' } as const;
    const referral = opportunityToReferral({ ...opportunity, CurrencyIsoCode: 'EUR' }, rule);
    expect(referral.shared && 'request' in referral && referral.request.currency).toBe('EUR');
  });
});

describe('an org set up before the revenue and agreement fields (issue #25)', () => {
  // The fields issue #25 added to Marketplace_Entitlement__c, written out by hand.
  const added = ['Invoiced_Amount__c', 'Gross_Amount__c', 'Collectable_Amount__c', 'Disbursed_Amount__c', 'Reported_Amount__c', 'Net_Terms_Days__c', 'Auto_Renew__c', 'Agreement_Status__c', 'Agreement_PDF_URL__c', 'Agreement_PDF_Note__c', 'Initial_Agreement_Id__c', 'Payment_Installments__c'];
  function before(): ObjectSchema {
    const schema = describeOrgObject('Marketplace_Entitlement__c');
    return { name: schema.name, fields: new Map([...schema.fields].filter(([name]) => !added.includes(name))) };
  }

  it('the mapping still fits (nothing to fix before syncing), and its records are written without those fields', () => {
    expect(validateMapping(SALESFORCE_MAPPINGS.entitlement, undefined, before())).toEqual([]);
    const write = planned(before());
    for (const field of added) expect(write.item.fields).not.toHaveProperty(field);
    expect(write.item.fields).toMatchObject({ Commit_Amount__c: 80000, Currency__c: 'EUR' });
  });
});
