import { describe, expect, it } from 'vitest';
import type { FieldSchema, ObjectSchema } from '../../crm/connector.ts';
import { applyMapping, validateMapping } from '../../mappings/overrides.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const field = (name: string, extra: Partial<FieldSchema> = {}): FieldSchema => ({
  name, type: 'string', required: false, createable: true, updateable: true, externalId: false, ...extra,
});
const stages = ['Prospecting', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost', 'Signed'];
const opportunitySchema: ObjectSchema = {
  name: 'Opportunity',
  fields: new Map(
    [
      field('Id', { createable: false, updateable: false }),
      field('Name'), field('StageName', { type: 'picklist', picklistValues: stages, restrictedPicklist: true }), field('CloseDate'), field('Amount'),
      field('AccountId', { type: 'reference', referenceTo: ['Account'], relationshipName: 'Account' }),
      field('Commerce_Offer_Id__c', { externalId: true }), field('Marketplace__c'), field('Offer_Type__c'), field('Offer_Status__c'),
      field('Offer_URL__c'), field('Offer_Expiration__c'), field('Cloud__c'), field('LeadSource', { type: 'picklist', picklistValues: ['Web', 'Marketplace'], restrictedPicklist: true }),
      field('SystemModstamp', { createable: false, updateable: false }),
    ].map((f) => [f.name, f]),
  ),
};

describe('per-connection mapping overrides', () => {
  it('renames, disables, sets constants and remaps picklist values', () => {
    const result = applyMapping(
      offerToOpportunity,
      {
        rename: { Marketplace__c: 'Cloud__c' },
        disable: ['Offer_URL__c'],
        constants: { LeadSource: 'Marketplace' },
        picklists: { StageName: { ACCEPTED: 'Signed' } },
      },
      MARKETPLACE_FIXTURES.A.offer,
      undefined,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.record.fields).toMatchObject({ Cloud__c: 'Marketplace A', StageName: 'Signed', LeadSource: 'Marketplace' });
    expect(result.record.fields).not.toHaveProperty('Marketplace__c');
    expect(result.record.fields).not.toHaveProperty('Offer_URL__c');
    expect(validateMapping(offerToOpportunity, { rename: { Marketplace__c: 'Cloud__c' }, picklists: { StageName: { ACCEPTED: 'Signed' } } }, opportunitySchema)).toEqual([]);
  });

  it('a status that has no stage (§9.5) leaves the stage as the CRM holds it, writes the rest and names the value', () => {
    const result = applyMapping(offerToOpportunity, undefined, { ...MARKETPLACE_FIXTURES.A.offer, status: 'ON_HOLD' }, undefined);
    if (!result.ok) throw new Error(result.reason);
    expect(result.record.fields).not.toHaveProperty('StageName');
    expect(result.record.fields).toMatchObject({ Offer_Status__c: 'ON_HOLD', Name: 'Private offer for cloudA' });
    expect(result.unknown).toEqual([{ field: 'StageName', value: 'ON_HOLD', onCreate: 'Prospecting' }]);
  });

  it('reports unknown fields and picklist values by name before any write', () => {
    const problems = validateMapping(
      offerToOpportunity,
      {
        rename: { Marketplace__c: 'Cloud_Provider__c', Nope__c: 'Name' },
        disable: ['Imaginary__c'],
        constants: { Region__c: 'EMEA', LeadSource: 'Cold Call' },
        picklists: { StageName: { ACCEPTED: 'Won Big' }, Priority__c: { HIGH: 'High' } },
      },
      opportunitySchema,
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "rename of Marketplace__c: Opportunity has no field 'Cloud_Provider__c'",
        'rename names Opportunity.Nope__c, which the default offer mapping does not write',
        'disable names Opportunity.Imaginary__c, which the default offer mapping does not write',
        'constant for Opportunity.Region__c: no such field',
        'constant "Cold Call" is not a value of the restricted picklist Opportunity.LeadSource',
        '"Won Big" (for ACCEPTED) is not a value of the picklist Opportunity.StageName',
        'picklist map for Opportunity.Priority__c, which the offer mapping does not fill from a status',
      ]),
    );
  });

  it('reports default fields the org lacks (a renamed custom field in this org)', () => {
    const withoutMarketplace: ObjectSchema = { name: 'Opportunity', fields: new Map([...opportunitySchema.fields].filter(([name]) => name !== 'Marketplace__c')) };
    expect(validateMapping(offerToOpportunity, undefined, withoutMarketplace)).toEqual([
      "Opportunity has no field 'Marketplace__c' (written by the offer mapping)",
    ]);
  });
});
