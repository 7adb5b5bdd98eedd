// Salesforce sandbox: field-level security and the Tooling API's custom metadata, driven with jsforce
// over HTTP. A custom field or object the Tooling API creates is there (Tooling FieldDefinition shows it)
// but invisible to the integration user until an assigned permission set grants it: absent from
// describe and describeGlobal, "No such column" in SOQL and in every write path, exactly like a field
// the org does not have. Expected texts are Salesforce's (docs/crm-wire-behaviour.md, "Field-level
// security"), written down here, not read from the sandbox.
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
let userId: string;
const errorOf = async (promise: PromiseLike<unknown>): Promise<any> => Promise.resolve(promise).then(() => undefined, (error: unknown) => error);
const NO_SUCH_REGION = "No such column 'Region__c' on entity 'Account'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.";

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
  ({ conn } = await clientCredentialsConnection(sandbox));
  userId = (await conn.identity()).user_id;
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
});

const createField = (fullName: string, metadata: Record<string, unknown>) => conn.tooling.create('CustomField', { FullName: fullName, Metadata: metadata } as never);
const fieldNames = async (object: string) => (await conn.sobject(object).describe()).fields.map((f) => f.name);

/** A permission set with `fields` (read, and edit unless listed in readOnly), assigned to the integration user. */
async function grant(fields: string[], options: { readOnly?: string[]; objects?: string[] } = {}) {
  const set = (await conn.sobject('PermissionSet').create({ Name: 'Test_Grant', Label: 'Test Grant' })) as { id: string };
  for (const object of options.objects ?? []) {
    expect(await conn.sobject('ObjectPermissions').create({ ParentId: set.id, SobjectType: object, PermissionsRead: true, PermissionsCreate: true, PermissionsEdit: true })).toMatchObject({ success: true });
  }
  for (const field of fields) {
    const edit = !(options.readOnly ?? []).includes(field);
    expect(await conn.sobject('FieldPermissions').create({ ParentId: set.id, SobjectType: field.split('.')[0], Field: field, PermissionsRead: true, PermissionsEdit: edit })).toMatchObject({ success: true });
  }
  expect(await conn.sobject('PermissionSetAssignment').create({ AssigneeId: userId, PermissionSetId: set.id })).toMatchObject({ success: true });
  return set.id;
}

describe('Salesforce sandbox: the Tooling API accepts any custom field a real org would', () => {
  it('creates a field of each kind; refuses bad names, missing attributes and duplicates in Salesforce words', async () => {
    for (const [name, metadata] of [
      ['Account.Region__c', { label: 'Region', type: 'Text', length: 30 }],
      ['Account.Seats__c', { label: 'Seats', type: 'Number', precision: 6, scale: 0 }],
      ['Account.Tier__c', { label: 'Tier', type: 'Picklist', valueSet: { restricted: true, valueSetDefinition: { value: [{ fullName: 'Gold' }, { fullName: 'Silver' }] } } }],
      ['Opportunity.Notes__c', { label: 'Notes', type: 'LongTextArea', length: 5000, visibleLines: 3 }],
    ] as const) {
      expect(await createField(name, metadata)).toMatchObject({ success: true });
    }
    expect(await errorOf(createField('Account.Bad__Name__c', { label: 'Bad', type: 'Text', length: 10 }))).toMatchObject({ errorCode: 'INVALID_FIELD' });
    expect(await errorOf(createField('Account.NoSuffix', { label: 'Bad', type: 'Text', length: 10 }))).toMatchObject({ errorCode: 'INVALID_FIELD' });
    expect(await errorOf(createField('Account.Short__c', { label: 'Short', type: 'Text' }))).toMatchObject({ errorCode: 'FIELD_INTEGRITY_EXCEPTION' });
    expect(await errorOf(createField('Account.Money__c', { label: 'Money', type: 'Currency', precision: 30, scale: 2 }))).toMatchObject({ errorCode: 'FIELD_INTEGRITY_EXCEPTION' });
    expect(await errorOf(createField('Account.Empty__c', { label: 'Empty', type: 'Picklist', valueSet: { valueSetDefinition: { value: [] } } }))).toMatchObject({ errorCode: 'FIELD_INTEGRITY_EXCEPTION' });
    expect(await errorOf(createField('Account.Region__c', { label: 'Region again', type: 'Text', length: 30 }))).toMatchObject({
      errorCode: 'DUPLICATE_DEVELOPER_NAME',
      message: 'There is already a field named Region__c on Account.',
    });
  });
});

describe('Salesforce sandbox: a new field is hidden from the integration user until a permission set grants it', () => {
  it('is absent from describe, No such column in SOQL and writes, yet shown by the Tooling FieldDefinition query', async () => {
    await createField('Account.Region__c', { label: 'Region', type: 'Text', length: 30 });
    expect(await fieldNames('Account')).not.toContain('Region__c');
    // The project's fields present at start count as granted (an org whose admin already did it).
    expect(await fieldNames('Account')).toContain('Commerce_Buyer_Id__c');

    expect(await errorOf(conn.query('SELECT Id, Region__c FROM Account'))).toMatchObject({ errorCode: 'INVALID_FIELD', message: expect.stringContaining(NO_SUCH_REGION) });
    expect(await errorOf(conn.query("SELECT Id FROM Account WHERE Region__c = 'EU'"))).toMatchObject({ errorCode: 'INVALID_FIELD' });
    expect(await errorOf(conn.query('SELECT Id FROM Account ORDER BY Region__c'))).toMatchObject({ errorCode: 'INVALID_FIELD' });
    expect(await errorOf(conn.sobject('Account').create({ Name: 'Acme', Region__c: 'EU' }))).toMatchObject({ errorCode: 'INVALID_FIELD', message: "No such column 'Region__c' on sobject of type Account" });
    const collection = await conn.requestPost<any>('/composite/sobjects', { allOrNone: false, records: [{ attributes: { type: 'Account' }, Name: 'Acme', Region__c: 'EU' }] }).then(
      (body) => ({ body }),
      (error: unknown) => ({ error }),
    );
    expect(collection).toMatchObject({ error: { errorCode: 'INVALID_FIELD' } });

    const tooling = await conn.tooling.query<any>("SELECT QualifiedApiName FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = 'Account'");
    expect(tooling.records.map((r: { QualifiedApiName: string }) => r.QualifiedApiName)).toContain('Region__c');
  });

  it('a Bulk API 2.0 job naming the hidden column fails as for a column the object lacks', async () => {
    await createField('Account.Region__c', { label: 'Region', type: 'Text', length: 30 });
    conn.bulk2.pollInterval = 25;
    const failed = await errorOf(conn.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'insert', input: [{ Name: 'Acme', Region__c: 'EU' }] }));
    expect(failed.message).toBe('Ingest job failed to complete due to: InvalidBatch : Field name not found : Region__c');
  });

  it('once granted read and edit, describe, SOQL and writes use it; read without edit leaves it read-only', async () => {
    await createField('Account.Region__c', { label: 'Region', type: 'Text', length: 30 });
    await createField('Account.Tier__c', { label: 'Tier', type: 'Text', length: 10 });
    await grant(['Account.Region__c', 'Account.Tier__c'], { readOnly: ['Account.Tier__c'] });

    const described = (await conn.sobject('Account').describe()).fields;
    expect(described.find((f) => f.name === 'Region__c')).toMatchObject({ createable: true, updateable: true, length: 30 });
    expect(described.find((f) => f.name === 'Tier__c')).toMatchObject({ createable: false, updateable: false });
    const created = (await conn.sobject('Account').create({ Name: 'Acme', Region__c: 'EU' })) as { id: string };
    expect((await conn.query<any>(`SELECT Region__c, Tier__c FROM Account WHERE Id = '${created.id}'`)).records[0]).toMatchObject({ Region__c: 'EU', Tier__c: null });
    const refused = await errorOf(conn.sobject('Account').update({ Id: created.id, Tier__c: 'Gold' }));
    expect(refused).toMatchObject({ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE' });
  });

  it('a new custom object is hidden until ObjectPermissions give Read; its fields until FieldPermissions do', async () => {
    await conn.tooling.create('CustomObject', { FullName: 'Widget__c', Metadata: { label: 'Widget', pluralLabel: 'Widgets', nameField: { type: 'Text', label: 'Widget Name' }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite' } } as never);
    await createField('Widget__c.Colour__c', { label: 'Colour', type: 'Text', length: 20 });
    await createField('Account.Widget__c', { label: 'Widget', type: 'Lookup', referenceTo: 'Widget__c', relationshipName: 'Accounts' });
    const lookupGrant = (await conn.sobject('PermissionSet').create({ Name: 'Lookup_Only', Label: 'Lookup Only' })) as { id: string };
    await conn.sobject('FieldPermissions').create({ ParentId: lookupGrant.id, SobjectType: 'Account', Field: 'Account.Widget__c', PermissionsRead: true, PermissionsEdit: true });
    await conn.sobject('PermissionSetAssignment').create({ AssigneeId: userId, PermissionSetId: lookupGrant.id });
    // Granted, but it looks up an object the user cannot see: not seen either.
    expect(await fieldNames('Account')).not.toContain('Widget__c');
    expect((await conn.describeGlobal()).sobjects.map((o) => o.name)).not.toContain('Widget__c');
    expect(await errorOf(conn.query('SELECT Id FROM Widget__c'))).toMatchObject({ errorCode: 'INVALID_TYPE' });
    const entities = await conn.tooling.query<any>("SELECT QualifiedApiName FROM EntityDefinition WHERE QualifiedApiName IN ('Widget__c')");
    expect(entities.records.map((r: { QualifiedApiName: string }) => r.QualifiedApiName)).toEqual(['Widget__c']);

    await grant([], { objects: ['Widget__c'] });
    expect((await conn.describeGlobal()).sobjects.map((o) => o.name)).toContain('Widget__c');
    expect(await fieldNames('Widget__c')).not.toContain('Colour__c');
    expect(await fieldNames('Widget__c')).toContain('Name');
    expect(await fieldNames('Account')).toContain('Widget__c');
  });

  it('a required field takes no field permission and is always visible; creates that leave it out fail REQUIRED_FIELD_MISSING', async () => {
    await createField('Account.Region__c', { label: 'Region', type: 'Text', length: 30, required: true });
    const region = (await conn.sobject('Account').describe()).fields.find((f) => f.name === 'Region__c');
    expect(region).toMatchObject({ nillable: false, defaultedOnCreate: false, createable: true });
    expect(await errorOf(conn.sobject('Account').create({ Name: 'Acme' }))).toMatchObject({ errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Region__c]' });

    const set = (await conn.sobject('PermissionSet').create({ Name: 'Req', Label: 'Req' })) as { id: string };
    expect(await errorOf(conn.sobject('FieldPermissions').create({ ParentId: set.id, SobjectType: 'Account', Field: 'Account.Region__c', PermissionsRead: true }))).toMatchObject({
      errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      message: 'Field Name: bad value for restricted picklist field: Account.Region__c',
    });
  });

  it('permission rows are unique per set and field, edit needs read, and they are queryable by SOQL', async () => {
    await createField('Account.Region__c', { label: 'Region', type: 'Text', length: 30 });
    const set = await grant(['Account.Region__c']);
    const duplicate = { errorCode: 'DUPLICATE_VALUE', message: 'duplicate value found: <unknown> duplicates value on record with id: <unknown>' };
    expect(await errorOf(conn.sobject('FieldPermissions').create({ ParentId: set, SobjectType: 'Account', Field: 'Account.Region__c', PermissionsRead: true }))).toMatchObject(duplicate);
    expect(await errorOf(conn.sobject('PermissionSetAssignment').create({ AssigneeId: userId, PermissionSetId: set }))).toMatchObject(duplicate);
    expect(await errorOf(conn.sobject('FieldPermissions').create({ ParentId: set, SobjectType: 'Account', Field: 'Account.Website', PermissionsEdit: true }))).toMatchObject({ errorCode: 'FIELD_INTEGRITY_EXCEPTION' });

    const rows = await conn.query<any>(`SELECT Field, PermissionsRead, PermissionsEdit FROM FieldPermissions WHERE ParentId = '${set}'`);
    expect(rows.records.map((r: any) => [r.Field, r.PermissionsRead, r.PermissionsEdit])).toEqual([['Account.Region__c', true, true]]);
    const assigned = await conn.query<any>(`SELECT PermissionSetId FROM PermissionSetAssignment WHERE AssigneeId = '${userId}' AND PermissionSet.Name = 'Test_Grant'`);
    expect(assigned.totalSize).toBe(1);
  });
});

describe('Salesforce sandbox: permission sets across restarts (journalPath)', () => {
  it('keeps permission sets, their rows and assignments, and the integration user, through two restarts', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'sf-fls-journal-'));
    const journalPath = path.join(dir, 'org.jsonl');
    try {
      const first = await startSalesforceSandbox({ journalPath });
      const { conn: one } = await clientCredentialsConnection(first);
      const set = (await one.sobject('PermissionSet').create({ Name: 'Kept', Label: 'Kept' })) as { id: string };
      await one.sobject('FieldPermissions').create({ ParentId: set.id, SobjectType: 'Account', Field: 'Account.Website', PermissionsRead: true });
      await one.sobject('PermissionSetAssignment').create({ AssigneeId: (await one.identity()).user_id, PermissionSetId: set.id });
      await first.stop();
      for (let restart = 0; restart < 2; restart++) {
        const again = await startSalesforceSandbox({ journalPath });
        const { conn } = await clientCredentialsConnection(again);
        const rows = await conn.query<any>("SELECT Field FROM FieldPermissions WHERE Parent.Name = 'Kept'");
        expect(rows.records.map((r: { Field: string }) => r.Field)).toEqual(['Account.Website']);
        expect((await conn.query("SELECT Id FROM PermissionSetAssignment WHERE PermissionSet.Name = 'Kept'")).totalSize).toBe(1);
        expect((await conn.query('SELECT Id FROM User')).totalSize).toBe(1);
        await again.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
