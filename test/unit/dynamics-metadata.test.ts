// How the connector reads a table's definition (EntityDefinitions with Attributes, Keys and
// ManyToOneRelationships, in the shapes Microsoft documents): columns typed for filters, lookups written
// by their navigation property and read as _<column>_value, and only active one-column keys used to upsert.
import { describe, expect, it } from 'vitest';
import { keyProblem, refusedForInactiveKey, tableInfo } from '../../crm/dynamics/metadata.ts';
import { lacking, privilegeProblems } from '../../crm/dynamics/privileges.ts';

const contact = tableInfo({
  LogicalName: 'contact',
  EntitySetName: 'contacts',
  PrimaryIdAttribute: 'contactid',
  Attributes: [
    { LogicalName: 'contactid', AttributeType: 'Uniqueidentifier', IsValidForCreate: true, IsValidForUpdate: false },
    { LogicalName: 'emailaddress1', AttributeType: 'String', MaxLength: 100, RequiredLevel: { Value: 'None' } },
    { LogicalName: 'lastname', AttributeType: 'String', MaxLength: 50, RequiredLevel: { Value: 'ApplicationRequired' } },
    { LogicalName: 'parentcustomerid', AttributeType: 'Customer', Targets: ['account', 'contact'] },
    { LogicalName: 'ccs_commercecontactid', AttributeType: 'String', MaxLength: 100 },
    { LogicalName: 'ccs_legacyid', AttributeType: 'String', MaxLength: 100 },
    { LogicalName: 'modifiedon', AttributeType: 'DateTime', Format: 'DateAndTime', IsValidForCreate: false, IsValidForUpdate: false },
    { LogicalName: 'birthdate', AttributeType: 'DateTime', Format: 'DateOnly' },
    { LogicalName: 'numberofchildren', AttributeType: 'Integer' },
    { LogicalName: 'donotemail', AttributeType: 'Boolean' },
  ],
  Keys: [
    { LogicalName: 'ccs_commercecontactid_key', KeyAttributes: ['ccs_commercecontactid'], EntityKeyIndexStatus: 'Active' },
    { LogicalName: 'ccs_legacy_key', KeyAttributes: ['ccs_legacyid'], EntityKeyIndexStatus: 'Pending' },
    { LogicalName: 'ccs_pair_key', KeyAttributes: ['lastname', 'emailaddress1'], EntityKeyIndexStatus: 'Active' },
  ],
  ManyToOneRelationships: [
    { ReferencingAttribute: 'parentcustomerid', ReferencedEntity: 'account', ReferencingEntityNavigationPropertyName: 'parentcustomerid_account' },
    { ReferencingAttribute: 'parentcustomerid', ReferencedEntity: 'contact', ReferencingEntityNavigationPropertyName: 'parentcustomerid_contact' },
  ],
});

describe('a Dataverse table as the connector reads it', () => {
  it('names its entity set and primary id', () => {
    expect(contact.entitySetName).toBe('contacts');
    expect(contact.primaryId).toBe('contactid');
  });

  it('types each column for filters', () => {
    expect(contact.literalKind('emailaddress1')).toBe('string');
    expect(contact.literalKind('contactid')).toBe('guid');
    expect(contact.literalKind('_parentcustomerid_value')).toBe('guid');
    expect(contact.literalKind('modifiedon')).toBe('datetime');
    expect(contact.literalKind('birthdate')).toBe('date');
    expect(contact.literalKind('numberofchildren')).toBe('number');
    expect(contact.literalKind('donotemail')).toBe('boolean');
    expect(contact.literalKind('nosuchcolumn')).toBeUndefined();
  });

  it('writes lookups by navigation property, each to its own table', () => {
    expect(contact.navigation.get('parentcustomerid_account')).toBe('account');
    expect(contact.navigation.get('parentcustomerid_contact')).toBe('contact');
    expect(contact.fields.get('parentcustomerid_account')).toMatchObject({ type: 'reference', referenceTo: ['account'] });
    expect(contact.fields.get('_parentcustomerid_value')).toMatchObject({ createable: false, referenceTo: ['account', 'contact'] });
  });

  it('upserts only by active one-column keys, and says which columns are keys', () => {
    expect([...contact.keyColumns]).toEqual(['ccs_commercecontactid']);
    expect(contact.fields.get('ccs_commercecontactid')).toMatchObject({ externalId: true, unique: true });
    expect(contact.fields.get('ccs_legacyid')).toMatchObject({ externalId: false });
  });

  it('keeps lengths and what may be written', () => {
    // ApplicationRequired (Business Required) is a rule of forms the Web API does not enforce: not required here.
    expect(contact.fields.get('lastname')).toMatchObject({ length: 50, required: false });
    expect(contact.fields.get('modifiedon')).toMatchObject({ createable: false, updateable: false });
    expect(contact.fields.get('contactid')).toMatchObject({ createable: true, updateable: false });
  });

  it('calls required only what the Web API refuses a create without: SystemRequired, not a column Dataverse fills itself', () => {
    const account = tableInfo({
      LogicalName: 'account',
      EntitySetName: 'accounts',
      PrimaryIdAttribute: 'accountid',
      Attributes: [
        { LogicalName: 'accountid', AttributeType: 'Uniqueidentifier', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'name', AttributeType: 'String', RequiredLevel: { Value: 'ApplicationRequired' } },
        { LogicalName: 'ccs_tier', AttributeType: 'String', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'ownerid', AttributeType: 'Owner', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'owneridtype', AttributeType: 'EntityName', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'owningbusinessunit', AttributeType: 'Lookup', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'statecode', AttributeType: 'State', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'statuscode', AttributeType: 'Status', RequiredLevel: { Value: 'SystemRequired' } },
        { LogicalName: 'ccs_virtual', AttributeType: 'Virtual', RequiredLevel: { Value: 'SystemRequired' } },
      ],
    });
    expect([...account.fields.values()].filter((field) => field.required).map((field) => field.name)).toEqual(['ccs_tier']);
  });
});

describe('alternate keys by status, and what to say when a record cannot be written by its key (issue #22 item 9)', () => {
  const table = (status: string) =>
    tableInfo({ LogicalName: 'account', EntitySetName: 'accounts', PrimaryIdAttribute: 'accountid', Attributes: [{ LogicalName: 'ccs_commercebuyerid', AttributeType: 'String' }], Keys: [{ LogicalName: 'ccs_commercebuyerid_key', KeyAttributes: ['ccs_commercebuyerid'], EntityKeyIndexStatus: status }] });

  it('keeps every key with its status, and only an Active one to upsert by', () => {
    expect(table('Pending').keys).toEqual([{ name: 'ccs_commercebuyerid_key', columns: ['ccs_commercebuyerid'], status: 'Pending' }]);
    expect([...table('Pending').keyColumns]).toEqual([]);
    expect([...table('Active').keyColumns]).toEqual(['ccs_commercebuyerid']);
  });

  it('a Failed key: remove the duplicates, then setup reactivates it; no key at all: setup creates it', () => {
    expect(keyProblem(table('Failed'), 'ccs_commercebuyerid')).toEqual({
      code: 'KEY_FAILED',
      message: 'Dataverse could not build the alternate key ccs_commercebuyerid_key on account (ccs_commercebuyerid): its status is Failed, because account rows hold duplicate ccs_commercebuyerid values. Remove the duplicates, then run crm-sync setup <connection>, which reactivates the key',
    });
    expect(keyProblem(table('Active'), 'ccs_other')).toMatchObject({ code: 'SCHEMA_MISSING' });
    expect(refusedForInactiveKey("The entity key ccs_buyerkey of entity 'account' (ccs_commercebuyerid) is not active: its EntityKeyIndexStatus is Pending.")).toBe(true);
    expect(refusedForInactiveKey('A record with the specified key values does not exist in account entity')).toBe(false);
  });
});

describe("the application user's privileges (issue #22 item 11)", () => {
  it('compares privilege names without case (SchemaName or logical name) and names each table missing some, with the role to give', () => {
    const held = ['prvCreateAccount', 'prvReadAccount', 'prvWriteAccount', 'prvAppendAccount', 'prvAppendToAccount', 'prvCreateccs_MarketplaceEntitlement', 'prvReadccs_MarketplaceEntitlement'];
    expect(lacking(held, 'account')).toEqual([]);
    expect(lacking(held, 'ccs_marketplaceentitlement')).toEqual(['prvWriteccs_marketplaceentitlement', 'prvAppendccs_marketplaceentitlement', 'prvAppendToccs_marketplaceentitlement']);
    const problems = privilegeProblems(held, ['account', 'ccs_marketplaceentitlement', 'account']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^the application user lacks prvWriteccs_marketplaceentitlement, prvAppendccs_marketplaceentitlement, prvAppendToccs_marketplaceentitlement on the ccs_marketplaceentitlement table, .*give it a security role with Create, Read, Write, Append and Append To on ccs_marketplaceentitlement at Organization level/);
  });
});
