// The required-fields check (mappings/required-fields.ts) on hand-written describes: a field the org
// requires on create that the mapping, with the connection's overrides, leaves empty is named; what the
// mapping fills (directly, renamed, by a constant or by a lookup's relationship name) and what the CRM
// fills itself (a record's id, Dataverse's owner) is not.
import { describe, expect, it } from 'vitest';
import type { FieldSchema, ObjectSchema } from '../../crm/connector.ts';
import { buyerToAccount } from '../../mappings/salesforce/account.ts';
import { unfilledRequiredFields } from '../../mappings/required-fields.ts';

const field = (name: string, extra: Partial<FieldSchema> = {}): FieldSchema => ({ name, type: 'string', required: false, createable: true, updateable: true, externalId: false, ...extra });
const account = (...extra: FieldSchema[]): ObjectSchema => ({
  name: 'Account',
  fields: new Map(
    [
      field('Id', { type: 'id', required: true }),
      field('Name', { required: true }),
      field('Commerce_Buyer_Id__c', { externalId: true, unique: true }),
      field('Marketplace__c'),
      field('CreatedDate', { type: 'datetime', required: true, createable: false, updateable: false }),
      ...extra,
    ].map((f) => [f.name, f]),
  ),
});
const REGION = 'Account.Region__c is required in this org and the mapping does not fill it: give it a default in Salesforce, make it optional, or map a value to it (overrides)';

describe('unfilledRequiredFields', () => {
  it('names a required custom field the mapping does not fill, in the CRM named', () => {
    expect(unfilledRequiredFields(buyerToAccount, undefined, account(field('Region__c', { required: true })), 'Salesforce')).toEqual([REGION]);
  });

  it('says nothing when every required field is filled: by the mapping, a constant, a rename, or the CRM itself', () => {
    expect(unfilledRequiredFields(buyerToAccount, undefined, account(), 'Salesforce')).toEqual([]);
    expect(unfilledRequiredFields(buyerToAccount, { constants: { Region__c: 'EU' } }, account(field('Region__c', { required: true })), 'Salesforce')).toEqual([]);
    expect(unfilledRequiredFields(buyerToAccount, { rename: { Marketplace__c: 'Region__c' } }, account(field('Region__c', { required: true })), 'Salesforce')).toEqual([]);
    // A canonical value mapped into the field on the console's mapping page (overrides.map).
    expect(unfilledRequiredFields(buyerToAccount, { map: { Region__c: 'country' } }, account(field('Region__c', { required: true })), 'Salesforce')).toEqual([]);
    expect(unfilledRequiredFields(buyerToAccount, undefined, account(field('ownerid', { type: 'Owner', required: true }), field('accountid', { type: 'Uniqueidentifier', required: true })))).toEqual([]);
  });

  it('names a required field the overrides stop filling (disable) and one a lookup would fill by its relationship only when the relationship is not mapped', () => {
    const disabled = unfilledRequiredFields(buyerToAccount, { disable: ['Name'] }, account(), 'Salesforce');
    expect(disabled).toEqual(['Account.Name is required in this org and the mapping does not fill it: give it a default in Salesforce, make it optional, or map a value to it (overrides)']);
    const parent = field('Parent__c', { type: 'reference', required: true, relationshipName: 'Parent__r' });
    expect(unfilledRequiredFields(buyerToAccount, undefined, account(parent), 'Salesforce')).toHaveLength(1);
    expect(unfilledRequiredFields(buyerToAccount, { constants: { Parent__r: { Commerce_Buyer_Id__c: 'b-1' } } }, account(parent), 'Salesforce')).toEqual([]);
  });
});
