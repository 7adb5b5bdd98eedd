// Salesforce sandbox: OpportunityContactRole, the standard junction that attaches Contacts to an
// Opportunity, as jsforce 3 reaches it — describe, create one and many, query by OpportunityId, refusal
// of references to records that are not there (per record, the rest saved), duplicates allowed as
// Salesforce allows them, and the journal across a restart. Also Contacts found by Email IN (...).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'jsforce';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;
let conn: Connection;
const clockMs = Date.parse('2026-03-01T09:00:00.000Z');
const now = () => new Date(clockMs);

const ROLE = 'OpportunityContactRole';
const dump = (object: string): Promise<Record<string, any>[]> => control(sandbox, 'GET', `/records/${object}`);
const errorOf = async (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
const idOf = (result: unknown) => (result as { id: string }).id;
/** An id of the right kind that this org never issued (15 characters, as clients may send). */
const NEVER_A_CONTACT = '003000000000001';
const NEVER_AN_OPPORTUNITY = '006000000000001';
const CROSS_REFERENCE_MISSING = { statusCode: 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY', message: 'insufficient access rights on cross-reference id', fields: [] };

/** Two Opportunities on one Account and three Contacts, made through the API. */
async function seed(connection: Connection) {
  const account = idOf(await connection.sobject('Account').create({ Name: 'Acme', Commerce_Buyer_Id__c: 'b-1' }));
  const opportunities = await connection.sobject('Opportunity').create(
    [
      { Name: 'Inbound referral', StageName: 'Prospecting', CloseDate: '2026-06-30', AccountId: account },
      { Name: 'Another deal', StageName: 'Qualification', CloseDate: '2026-07-31', AccountId: account },
      { Name: 'Unrelated', StageName: 'Prospecting', CloseDate: '2026-08-31', AccountId: account },
    ],
    { allOrNone: true },
  );
  const contacts = await connection.sobject('Contact').create(
    [
      { LastName: 'Doe', FirstName: 'Jane', Email: 'jane.doe@acme.example', AccountId: account },
      { LastName: "O'Brien", Email: "pat.o'brien@acme.example", AccountId: account },
      { LastName: 'Roe', Email: 'rich.roe@acme.example', AccountId: account },
    ],
    { allOrNone: true },
  );
  return { account, opportunities: opportunities.map(idOf), contacts: contacts.map(idOf) };
}

describe('Salesforce sandbox: OpportunityContactRole', () => {
  beforeAll(async () => {
    sandbox = await startSalesforceSandbox({ now });
  });
  afterAll(() => sandbox.stop());
  beforeEach(async () => {
    await control(sandbox, 'POST', '/reset');
    ({ conn } = await clientCredentialsConnection(sandbox));
  });

  it('is described as Salesforce describes it: OpportunityId required and create-only, ContactId required, Role an open picklist, IsPrimary false by default', async () => {
    const global = await conn.describeGlobal();
    expect(global.sobjects.find((s) => s.name === ROLE)).toMatchObject({ keyPrefix: '00K', createable: true, updateable: true, deletable: true, queryable: true, custom: false });

    const described = await conn.sobject(ROLE).describe();
    expect(described).toMatchObject({ name: ROLE, label: 'Opportunity Contact Role', labelPlural: 'Opportunity Contact Roles', keyPrefix: '00K' });
    const field = (name: string) => described.fields.find((f) => f.name === name)!;
    expect(described.fields.map((f) => f.name).sort()).toEqual(
      ['Id', 'IsDeleted', 'OpportunityId', 'ContactId', 'Role', 'IsPrimary', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'].sort(),
    );
    expect(field('Id')).toMatchObject({ type: 'id', createable: false, updateable: false });
    expect(field('OpportunityId')).toMatchObject({
      type: 'reference', referenceTo: ['Opportunity'], relationshipName: 'Opportunity', nillable: false, createable: true, updateable: false, filterable: true,
    });
    expect(field('ContactId')).toMatchObject({ type: 'reference', referenceTo: ['Contact'], relationshipName: 'Contact', nillable: false, createable: true, updateable: true });
    expect(field('Role')).toMatchObject({ type: 'picklist', restrictedPicklist: false, nillable: true, createable: true, updateable: true });
    expect(field('Role').picklistValues!.map((p) => p.value)).toEqual([
      'Business User', 'Decision Maker', 'Economic Buyer', 'Economic Decision Maker', 'Evaluator',
      'Executive Sponsor', 'Influencer', 'Technical Buyer', 'Other',
    ]);
    expect(field('IsPrimary')).toMatchObject({ type: 'boolean', label: 'Primary', defaultValue: false, defaultedOnCreate: true, nillable: false, createable: true, updateable: true });
    for (const system of ['IsDeleted', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp']) expect(field(system)).toMatchObject({ createable: false, updateable: false });

    // The roles hang off both parents, as Opportunity.OpportunityContactRoles and Contact.OpportunityContactRoles.
    for (const parent of ['Opportunity', 'Contact']) {
      const children = (await conn.sobject(parent).describe()).childRelationships;
      expect(children).toContainEqual(expect.objectContaining({ childSObject: ROLE, field: parent === 'Opportunity' ? 'OpportunityId' : 'ContactId', relationshipName: 'OpportunityContactRoles' }));
    }
    // Contact carries Email, an e-mail field that queries can filter on.
    expect((await conn.sobject('Contact').describe()).fields.find((f) => f.name === 'Email')).toMatchObject({ type: 'email', filterable: true, length: 80 });
  });

  it('creates one role through POST /sobjects: 00K id, IsPrimary false when left out, any Role text kept', async () => {
    const { opportunities, contacts } = await seed(conn);
    await control(sandbox, 'POST', '/calls/reset');
    const primary = await conn.sobject(ROLE).create({ OpportunityId: opportunities[0]!, ContactId: contacts[0]!, Role: 'Decision Maker', IsPrimary: true });
    expect(primary).toEqual({ id: expect.stringMatching(/^00K\w{15}$/), success: true, errors: [] });
    const other = await conn.sobject(ROLE).create({ OpportunityId: opportunities[0]!, ContactId: contacts[1]!, Role: 'Champion' }); // not restricted
    expect(await callCounts(sandbox)).toEqual({ 'sobject-create': 2, total: 2 });

    const stored = await dump(ROLE);
    expect(stored).toEqual([
      { Id: idOf(primary), IsDeleted: false, OpportunityId: opportunities[0], ContactId: contacts[0], Role: 'Decision Maker', IsPrimary: true, CreatedDate: '2026-03-01T09:00:00.000+0000', LastModifiedDate: '2026-03-01T09:00:00.000+0000', SystemModstamp: '2026-03-01T09:00:00.000+0000' },
      { Id: idOf(other), IsDeleted: false, OpportunityId: opportunities[0], ContactId: contacts[1], Role: 'Champion', IsPrimary: false, CreatedDate: '2026-03-01T09:00:00.000+0000', LastModifiedDate: '2026-03-01T09:00:00.000+0000', SystemModstamp: '2026-03-01T09:00:00.000+0000' },
    ]);
    const retrieved = await conn.sobject(ROLE).retrieve(idOf(other));
    expect(retrieved).toMatchObject({ attributes: { type: ROLE }, Id: idOf(other), OpportunityId: opportunities[0], ContactId: contacts[1], IsPrimary: false });
  });

  it('creates many through /composite/sobjects in one call, and a repeated (Opportunity, Contact) pair is saved twice as Salesforce does', async () => {
    const { opportunities, contacts } = await seed(conn);
    await control(sandbox, 'POST', '/calls/reset');
    const results = await conn.sobject(ROLE).create(
      [
        { OpportunityId: opportunities[0]!, ContactId: contacts[0]!, Role: 'Economic Buyer', IsPrimary: true },
        { OpportunityId: opportunities[0]!, ContactId: contacts[1]!, Role: 'Technical Buyer' },
        { OpportunityId: opportunities[0]!, ContactId: contacts[1]!, Role: 'Technical Buyer' },
        { OpportunityId: opportunities[1]!, ContactId: contacts[2]! },
      ],
      { allOrNone: false },
    );
    expect(results).toEqual(Array.from({ length: 4 }, () => ({ id: expect.stringMatching(/^00K/), success: true, errors: [] })));
    expect(new Set(results.map(idOf)).size).toBe(4);
    expect(await callCounts(sandbox)).toEqual({ 'composite-create': 1, total: 1 });
    const stored = await dump(ROLE);
    expect(stored.map((r) => [r.OpportunityId, r.ContactId, r.Role, r.IsPrimary])).toEqual([
      [opportunities[0], contacts[0], 'Economic Buyer', true],
      [opportunities[0], contacts[1], 'Technical Buyer', false],
      [opportunities[0], contacts[1], 'Technical Buyer', false],
      [opportunities[1], contacts[2], null, false],
    ]);
  });

  it('answers SELECT Id, ContactId, OpportunityId ... WHERE OpportunityId IN (...) with only those Opportunities\' roles, 15- or 18-character ids alike', async () => {
    const { opportunities, contacts } = await seed(conn);
    const made = await conn.sobject(ROLE).create(
      [
        { OpportunityId: opportunities[0]!, ContactId: contacts[0]! },
        { OpportunityId: opportunities[1]!, ContactId: contacts[1]! },
        { OpportunityId: opportunities[2]!, ContactId: contacts[2]! },
      ],
      { allOrNone: true },
    );
    const ids = made.map(idOf);
    const found = await conn.query<{ Id: string; ContactId: string; OpportunityId: string }>(
      `SELECT Id, ContactId, OpportunityId FROM OpportunityContactRole WHERE OpportunityId IN ('${opportunities[0]}', '${opportunities[1]!.slice(0, 15)}')`,
    );
    expect(found.totalSize).toBe(2);
    expect(found.records.map(({ Id, ContactId, OpportunityId }) => ({ Id, ContactId, OpportunityId })).sort((a, b) => a.Id.localeCompare(b.Id))).toEqual(
      [
        { Id: ids[0], ContactId: contacts[0], OpportunityId: opportunities[0] },
        { Id: ids[1], ContactId: contacts[1], OpportunityId: opportunities[1] },
      ].sort((a, b) => a.Id!.localeCompare(b.Id!)),
    );
    // Parent fields through the relationship names work as for any lookup.
    const withEmail = await conn.query<any>(`SELECT Contact.Email, Opportunity.Name FROM OpportunityContactRole WHERE OpportunityId = '${opportunities[2]}'`);
    expect(withEmail.records[0]).toMatchObject({ Contact: { Email: 'rich.roe@acme.example' }, Opportunity: { Name: 'Unrelated' } });
  });

  it('refuses, per record, a role whose Contact or Opportunity is not there, and saves the others', async () => {
    const { opportunities, contacts } = await seed(conn);
    await conn.sobject('Contact').destroy(contacts[2]!);
    const results = await conn.sobject(ROLE).create(
      [
        { OpportunityId: opportunities[0]!, ContactId: contacts[0]!, Role: 'Decision Maker' },
        { OpportunityId: opportunities[0]!, ContactId: NEVER_A_CONTACT, Role: 'Influencer' },
        { OpportunityId: NEVER_AN_OPPORTUNITY, ContactId: contacts[1]!, Role: 'Evaluator' },
        { OpportunityId: opportunities[0]!, ContactId: contacts[2]! }, // deleted
        { OpportunityId: contacts[1]!, ContactId: contacts[1]! }, // a Contact's id where an Opportunity's belongs
        { OpportunityId: opportunities[0]! },
        { OpportunityId: opportunities[1]!, ContactId: contacts[1]!, Role: 'Other' },
      ],
      { allOrNone: false },
    );
    expect(results[0]).toEqual({ id: expect.stringMatching(/^00K/), success: true, errors: [] });
    expect(results[1]).toEqual({ success: false, errors: [CROSS_REFERENCE_MISSING] });
    expect(results[2]).toEqual({ success: false, errors: [CROSS_REFERENCE_MISSING] });
    expect(results[3]).toEqual({ success: false, errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }] });
    expect(results[4]).toEqual({ success: false, errors: [{ statusCode: 'MALFORMED_ID', message: `Opportunity: id value of incorrect type: ${contacts[1]}`, fields: ['OpportunityId'] }] });
    expect(results[5]).toEqual({ success: false, errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [ContactId]', fields: ['ContactId'] }] });
    expect(results[6]).toEqual({ id: expect.stringMatching(/^00K/), success: true, errors: [] });
    expect((await dump(ROLE)).map((r) => [r.Id, r.OpportunityId, r.ContactId, r.Role])).toEqual([
      [idOf(results[0]), opportunities[0], contacts[0], 'Decision Maker'],
      [idOf(results[6]), opportunities[1], contacts[1], 'Other'],
    ]);

    // The single-record endpoint refuses the same way, with the whole call failing.
    const single = await errorOf(conn.sobject(ROLE).create({ OpportunityId: NEVER_AN_OPPORTUNITY, ContactId: contacts[0]! }));
    expect(single).toMatchObject({ errorCode: 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY', message: 'insufficient access rights on cross-reference id' });
    // allOrNone saves none of them.
    const all = await conn.sobject(ROLE).create(
      [
        { OpportunityId: opportunities[2]!, ContactId: contacts[0]! },
        { OpportunityId: opportunities[2]!, ContactId: NEVER_A_CONTACT },
      ],
      { allOrNone: true },
    );
    expect(all.map((r) => (r as any).errors[0]?.statusCode)).toEqual(['ALL_OR_NONE_OPERATION_ROLLED_BACK', 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY']);
    expect(await dump(ROLE)).toHaveLength(2);
  });

  it('inserts roles through a Bulk API 2.0 job, a missing Contact failing only its row', async () => {
    const { opportunities, contacts } = await seed(conn);
    conn.bulk2.pollInterval = 25;
    const results = await conn.bulk2.loadAndWaitForResults({
      object: ROLE,
      operation: 'insert',
      input: [
        { OpportunityId: opportunities[0]!, ContactId: contacts[0]!, Role: 'Evaluator', IsPrimary: 'true' },
        { OpportunityId: opportunities[0]!, ContactId: NEVER_A_CONTACT, Role: 'Influencer', IsPrimary: 'false' },
      ],
    });
    expect(results.successfulResults).toEqual([expect.objectContaining({ sf__Id: expect.stringMatching(/^00K/), sf__Created: 'true', ContactId: contacts[0] })]);
    expect(results.failedResults).toEqual([
      expect.objectContaining({ sf__Error: 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY:insufficient access rights on cross-reference id:--', ContactId: NEVER_A_CONTACT }),
    ]);
    expect(await dump(ROLE)).toEqual([
      expect.objectContaining({ Id: results.successfulResults[0]!.sf__Id, OpportunityId: opportunities[0], ContactId: contacts[0], Role: 'Evaluator', IsPrimary: true }),
    ]);
  });

  it('keeps OpportunityId as it was made: an update naming it is refused, Role, IsPrimary and ContactId change', async () => {
    const { opportunities, contacts } = await seed(conn);
    const id = idOf(await conn.sobject(ROLE).create({ OpportunityId: opportunities[0]!, ContactId: contacts[0]! }));
    const moved = await errorOf(conn.sobject(ROLE).update({ Id: id, OpportunityId: opportunities[1]! }));
    expect(moved).toMatchObject({ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', message: expect.stringMatching(/^Unable to create\/update fields: OpportunityId\./) });
    await expect(conn.sobject(ROLE).update({ Id: id, ContactId: contacts[1]!, Role: 'Executive Sponsor', IsPrimary: true })).resolves.toMatchObject({ id, success: true });
    expect(await dump(ROLE)).toEqual([expect.objectContaining({ Id: id, OpportunityId: opportunities[0], ContactId: contacts[1], Role: 'Executive Sponsor', IsPrimary: true })]);
  });

  it('finds Contacts by Email IN (...), case-insensitively, with an escaped quote in a value', async () => {
    const { contacts } = await seed(conn);
    const found = await conn.query<{ Id: string; Email: string }>(
      "SELECT Id, Email FROM Contact WHERE Email IN ('JANE.DOE@acme.example', 'pat.o\\'brien@acme.example', 'nobody@acme.example')",
    );
    expect(found.records.map((r) => [r.Id, r.Email]).sort()).toEqual(
      [
        [contacts[0], 'jane.doe@acme.example'],
        [contacts[1], "pat.o'brien@acme.example"],
      ].sort(),
    );
  });
});

describe('Salesforce sandbox: OpportunityContactRole in the journal', () => {
  let dir: string;
  const started: SalesforceSandbox[] = [];
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sf-contact-roles-'));
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('comes back after a restart with the same roles and ids, and issues new ids after them', async () => {
    const journal = path.join(dir, 'roles.jsonl');
    const first = await startSalesforceSandbox({ journalPath: journal, now });
    started.push(first);
    const { conn: before } = await clientCredentialsConnection(first);
    const { opportunities, contacts } = await seed(before);
    const single = idOf(await before.sobject(ROLE).create({ OpportunityId: opportunities[0]!, ContactId: contacts[0]!, Role: 'Decision Maker', IsPrimary: true }));
    const many = (await before.sobject(ROLE).create([{ OpportunityId: opportunities[0]!, ContactId: contacts[1]! }, { OpportunityId: opportunities[1]!, ContactId: contacts[1]!, Role: 'Other' }], { allOrNone: true })).map(idOf);
    const stored = await control(first, 'GET', `/records/${ROLE}?includeDeleted=true`);
    expect(stored).toHaveLength(3);
    // What the file holds while the first sandbox still runs: all a SIGKILL would leave.
    const copy = path.join(dir, 'roles-copy.jsonl');
    copyFileSync(journal, copy);

    const second = await startSalesforceSandbox({ journalPath: copy, now });
    started.push(second);
    expect(await control(second, 'GET', `/records/${ROLE}?includeDeleted=true`)).toEqual(stored);
    const { conn: after } = await clientCredentialsConnection(second);
    const found = await after.query<{ Id: string; Role: string | null; IsPrimary: boolean }>(
      `SELECT Id, Role, IsPrimary FROM OpportunityContactRole WHERE OpportunityId IN ('${opportunities[0]}') ORDER BY Role`,
    );
    // SOQL sorts nulls first in ascending order.
    expect(found.records.map((r) => [r.Id, r.Role, r.IsPrimary])).toEqual([
      [many[0], null, false],
      [single, 'Decision Maker', true],
    ]);
    const next = idOf(await after.sobject(ROLE).create({ OpportunityId: opportunities[1]!, ContactId: contacts[0]! }));
    expect(next).toMatch(/^00K/);
    expect([single, ...many]).not.toContain(next); // no id issued before the restart comes back
  });
});
