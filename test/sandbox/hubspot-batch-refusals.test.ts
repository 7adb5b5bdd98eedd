// HubSpot sandbox through @hubspot/api-client: the refusals of issue #22 items 4 and 5. A contact batch
// giving an email another contact holds is refused whole with one 409 and nothing written; batch default
// associations answer 200 with a per-input error for a record that no longer exists or a limit reached.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let client: Client;
const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
const contacts = async (): Promise<any[]> => control(sandbox, 'GET', '/records/contacts');

beforeAll(async () => {
  sandbox = await startHubSpotSandbox();
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  await client.crm.properties.coreApi.create('contacts', { name: 'commerce_contact_id', label: 'Commerce contact id', type: 'string' as any, fieldType: 'text' as any, groupName: 'contactinformation', hasUniqueValue: true });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await control(sandbox, 'POST', '/reset');
  await client.crm.properties.coreApi.create('contacts', { name: 'commerce_contact_id', label: 'Commerce contact id', type: 'string' as any, fieldType: 'text' as any, groupName: 'contactinformation', hasUniqueValue: true });
});

describe('HubSpot sandbox: a contact batch meeting an email already held', () => {
  it('batch create: one top-level 409 CONFLICT naming the holder, and no input written', async () => {
    const held = await client.crm.contacts.basicApi.create({ properties: { email: 'held@example.com' }, associations: [] });
    const refused = await errorOf(
      client.crm.contacts.batchApi.create({ inputs: [{ properties: { email: 'new-1@example.com' }, associations: [] }, { properties: { email: 'HELD@example.com' }, associations: [] }, { properties: { email: 'new-2@example.com' }, associations: [] }] }),
    );
    expect(refused?.code).toBe(409);
    expect(refused.body).toMatchObject({ status: 'error', message: `Contact already exists. Existing ID: ${held.id}`, category: 'CONFLICT' });
    expect((await contacts()).map((record) => record.properties.email)).toEqual(['held@example.com']);
  });

  it('batch upsert by a unique property: the same whole-batch 409; an input upserting the holder itself is no conflict', async () => {
    const held = await client.crm.contacts.basicApi.create({ properties: { email: 'held@example.com', commerce_contact_id: 'c-held' }, associations: [] });
    const upsert = (inputs: { id: string; email: string }[]) =>
      client.crm.contacts.batchApi.upsert({ inputs: inputs.map(({ id, email }) => ({ idProperty: 'commerce_contact_id', id, properties: { email } })) });
    const refused = await errorOf(upsert([{ id: 'c-1', email: 'one@example.com' }, { id: 'c-2', email: 'held@example.com' }]));
    expect(refused?.code).toBe(409);
    expect(refused.body).toMatchObject({ status: 'error', message: `Contact already exists. Existing ID: ${held.id}`, category: 'CONFLICT' });
    expect((await contacts()).length).toBe(1);

    const fine = await upsert([{ id: 'c-held', email: 'held@example.com' }, { id: 'c-1', email: 'one@example.com' }]);
    expect(fine.results.map((result) => result.id)).toContain(held.id);
    expect(fine.results.find((result) => result.id === held.id)!._new ?? (fine.results.find((result) => result.id === held.id) as any).new).toBe(false);
    expect((await contacts()).length).toBe(2);
  });

  it('batch update giving a contact the email of another: the whole batch refused', async () => {
    const [a, b] = await Promise.all(['a@example.com', 'b@example.com'].map((email) => client.crm.contacts.basicApi.create({ properties: { email }, associations: [] })));
    const refused = await errorOf(client.crm.contacts.batchApi.update({ inputs: [{ id: a!.id, properties: { firstname: 'Ann' } }, { id: b!.id, properties: { email: 'A@example.com' } }] }));
    expect(refused?.code).toBe(409);
    expect(refused.body.message).toBe(`Contact already exists. Existing ID: ${a!.id}`);
    expect((await contacts()).find((record) => record.id === a!.id).properties.firstname).toBeUndefined();
  });
});

describe('HubSpot sandbox: batch default associations refused per input', () => {
  it('a deleted company and a configured limit: 200 with errors and numErrors, the other inputs made', async () => {
    const [c1, c2, c3] = await Promise.all(['x1', 'x2', 'x3'].map((name) => client.crm.contacts.basicApi.create({ properties: { email: `${name}@example.com` }, associations: [] })));
    const [live, gone, other] = await Promise.all(['Live', 'Gone', 'Other'].map((name) => client.crm.companies.basicApi.create({ properties: { name }, associations: [] })));
    await client.crm.companies.basicApi.archive(gone!.id);
    await control(sandbox, 'POST', '/association-limits', { fromType: 'contacts', toType: 'companies', limit: 1 });
    expect(await control(sandbox, 'GET', '/association-limits')).toEqual({ limits: [{ fromType: 'contacts', toType: 'companies', limit: 1 }] });

    const answer = await client.crm.associations.v4.batchApi.createDefault('contacts', 'companies', {
      inputs: [
        { _from: { id: c1!.id }, to: { id: live!.id } },
        { _from: { id: c2!.id }, to: { id: gone!.id } },
        { _from: { id: c3!.id }, to: { id: live!.id } },
        { _from: { id: c3!.id }, to: { id: other!.id } }, // c3 already has its one company
      ],
    });
    expect(answer.numErrors).toBe(2);
    expect(answer.errors![0]).toMatchObject({
      category: 'VALIDATION_ERROR',
      message: 'One or more associations are invalid',
      context: { INVALID_OBJECT_IDS: [`COMPANY=${gone!.id} is not valid`], objectId: [gone!.id], objectType: ['COMPANY'] },
    });
    expect(answer.errors![1]).toMatchObject({ category: 'VALIDATION_ERROR', context: { fromObjectId: [c3!.id], toObjectId: [other!.id] } });
    expect(answer.errors![1]!.message).toMatch(/association limit/);
    const made = new Set(answer.results.map((result) => `${result._from.id}>${result.to.id}`));
    expect([...made].sort()).toEqual([`${c1!.id}>${live!.id}`, `${c3!.id}>${live!.id}`].sort());

    // The limit counts in both directions: companies to contacts, one per company.
    await control(sandbox, 'POST', '/association-limits', { fromType: 'contacts', toType: 'companies', limit: null });
    await control(sandbox, 'POST', '/association-limits', { fromType: 'companies', toType: 'contacts', limit: 2 });
    const more = await client.crm.associations.v4.batchApi.createDefault('contacts', 'companies', { inputs: [{ _from: { id: c2!.id }, to: { id: live!.id } }] });
    expect(more.numErrors).toBe(1);
    expect(more.errors![0]!.message).toMatch(new RegExp(`companies ${live!.id} already has 2 associated contacts`));
  });
});
