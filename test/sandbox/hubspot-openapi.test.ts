// Every kind of request the HubSpot sandbox answers, sent with @hubspot/api-client through a
// recording proxy; every answer recorded on the wire must validate against its schema in HubSpot's
// published OpenAPI specs (docs/hubspot-openapi), errors included (the `default` Error response).
import { Client } from '@hubspot/api-client';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { checkAgainstSpec } from '../../sandbox/hubspot/openapi-check.ts';
import { startRecordingProxy, type Exchange } from '../../sandbox/hubspot/recording-proxy.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let client: Client;
const settle = (promise: Promise<unknown>) => promise.then(() => undefined, () => undefined);

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ searchPerSecond: 1000 });
  proxy = await startRecordingProxy(sandbox.baseUrl);
  client = new Client({ accessToken: sandbox.accessToken, basePath: proxy.url });
});
afterAll(async () => {
  await proxy.stop();
  await sandbox.stop();
});

/** Drives every call kind, successes and refusals, through the real client. */
async function exerciseEverything() {
  const crm = client.crm;
  const unique = (name: string, groupName = 'dealinformation') => ({ name, label: name, type: 'string' as any, fieldType: 'text' as any, groupName, hasUniqueValue: true });
  await crm.properties.coreApi.create('deals', unique('commerce_offer_id'));
  await crm.properties.coreApi.create('companies', unique('commerce_buyer_id', 'companyinformation'));
  await crm.properties.coreApi.getAll('deals');
  await crm.properties.coreApi.getByName('deals', 'commerce_offer_id');
  await settle(crm.properties.coreApi.create('deals', unique('commerce_offer_id'))); // 409
  await settle(crm.properties.coreApi.create('deals', unique('commerce_x', 'no_such_group'))); // 400
  await crm.properties.groupsApi.getAll('deals');
  await crm.properties.groupsApi.create('deals', { name: 'commerce', label: 'Commerce', displayOrder: -1 });
  await settle(crm.properties.groupsApi.create('deals', { name: 'commerce', label: 'Commerce' })); // 409
  await crm.properties.groupsApi.getByName('deals', 'commerce');

  // Custom object schemas: the list, one by objectTypeId and by fully qualified name, a new one, a second of the same name (409), an unknown one (404).
  await crm.schemas.coreApi.getAll();
  await crm.schemas.coreApi.getById('2-1234567');
  await crm.schemas.coreApi.getById('p4242_marketplace_entitlement');
  await settle(crm.schemas.coreApi.getById('marketplace_entitlement')); // 404
  const widget = { name: 'widget', labels: { singular: 'Widget', plural: 'Widgets' }, primaryDisplayProperty: 'widget_name', requiredProperties: [], searchableProperties: [], secondaryDisplayProperties: [], associatedObjects: ['COMPANY'], properties: [{ name: 'widget_name', label: 'Name', type: 'string', fieldType: 'text' }] };
  await crm.schemas.coreApi.create(widget as any);
  await settle(crm.schemas.coreApi.create(widget as any)); // 409
  await control(sandbox, 'POST', '/scopes', { withheld: ['crm.schemas.custom.read', 'crm.objects.custom.read'] });
  await settle(crm.schemas.coreApi.getAll()); // 403 MISSING_SCOPES
  await control(sandbox, 'POST', '/scopes', { withheld: [] });

  for (const type of ['deals', 'companies', 'contacts', '2-1234567']) {
    const made = await crm.objects.basicApi.create(type, { properties: {}, associations: [] });
    await crm.objects.basicApi.getById(type, made.id);
    await crm.objects.basicApi.update(type, made.id, { properties: {} });
    await crm.objects.basicApi.getPage(type, 10);
    await crm.objects.basicApi.archive(type, made.id);
    await settle(crm.objects.basicApi.getById(type, made.id)); // 404
  }
  const deal = await crm.deals.basicApi.create({ properties: { dealname: 'D', amount: '5', closedate: '2026-01-01T00:00:00Z' }, associations: [] });
  await crm.deals.basicApi.getById(deal.id, ['dealname', 'closedate', 'pipeline']); // pipeline has no value
  await crm.deals.basicApi.update(deal.id, { properties: { amount: '6' } });
  await crm.deals.basicApi.getPage(1);
  await settle(crm.deals.basicApi.create({ properties: { nope: 'x' }, associations: [] })); // 400

  const upserted = await crm.deals.batchApi.upsert({ inputs: [{ idProperty: 'commerce_offer_id', id: 'o-1', properties: { dealname: 'U' } }] }); // 200
  await crm.deals.batchApi.create({ inputs: [{ properties: { dealname: 'B1' }, associations: [] }] }); // 201
  await crm.deals.batchApi.create({ inputs: [{ properties: { commerce_offer_id: 'o-1' }, associations: [] }, { properties: { dealname: 'B2' }, associations: [] }] }); // 207
  await crm.deals.batchApi.update({ inputs: [{ id: deal.id, properties: { amount: '7' } }] }); // 200
  await crm.deals.batchApi.update({ inputs: [{ id: deal.id, properties: { amount: '8' } }, { id: '999999', properties: {} }] }); // 207
  await crm.deals.batchApi.read({ inputs: [{ id: deal.id }], properties: ['amount'], propertiesWithHistory: [] }); // 200
  await crm.deals.batchApi.read({ inputs: [{ id: deal.id }, { id: '999999' }], properties: [], propertiesWithHistory: [] }); // 207
  await crm.companies.batchApi.upsert({ inputs: [{ idProperty: 'commerce_buyer_id', id: 'b-1', properties: { name: 'C' } }] });
  await crm.companies.batchApi.create({ inputs: [{ properties: { commerce_buyer_id: 'b-1' }, associations: [] }] }); // 207, a CONFLICT
  await settle(crm.deals.batchApi.upsert({ inputs: Array.from({ length: 101 }, (_, i) => ({ idProperty: 'commerce_offer_id', id: `x-${i}`, properties: {} })) })); // 400
  await crm.contacts.batchApi.upsert({ inputs: [{ idProperty: 'hs_object_id', id: '424242', properties: {} }] }); // 207 not found
  await crm.objects.batchApi.upsert('2-1234567', { inputs: [{ idProperty: 'entitlement_id', id: 'e-1', properties: {} }] });

  await crm.deals.searchApi.doSearch({ filterGroups: [{ filters: [{ propertyName: 'amount', operator: 'GTE' as any, value: '1' }] }], sorts: ['-amount'], properties: ['amount'], limit: 1, after: undefined as any });
  await crm.companies.searchApi.doSearch({ filterGroups: [], sorts: [], properties: [], limit: 200, after: '0' });
  await crm.contacts.searchApi.doSearch({ filterGroups: [], sorts: [], properties: [], limit: 10, after: undefined as any });
  await crm.objects.searchApi.doSearch('p4242_marketplace_entitlement', { filterGroups: [], sorts: [], properties: [], limit: 10, after: undefined as any });
  await settle(crm.deals.searchApi.doSearch({ filterGroups: [], sorts: [], properties: [], limit: 100, after: '9950' })); // 400 past the ceiling
  // The account's details and daily usage report (no client method: plain requests through the proxy).
  for (const path of ['/account-info/v3/details', '/account-info/v3/api-usage/daily']) await fetch(`${proxy.url}${path}`, { headers: { authorization: `Bearer ${sandbox.accessToken}` } });

  const company = upserted && (await crm.companies.basicApi.create({ properties: { name: 'Co' }, associations: [] }));
  const contact = await crm.contacts.basicApi.create({ properties: { email: 'a@example.com' }, associations: [] });
  await settle(crm.contacts.batchApi.create({ inputs: [{ properties: { email: 'b@example.com' }, associations: [] }, { properties: { email: 'A@example.com' }, associations: [] }] })); // 409, the whole batch
  const v4 = crm.associations.v4;
  await v4.basicApi.createDefault('deals', deal.id, 'companies', company.id);
  await settle(v4.basicApi.createDefault('deals', deal.id, 'companies', '424242')); // 404
  const types = [{ associationCategory: 'HUBSPOT_DEFINED' as any, associationTypeId: 3 }];
  await v4.batchApi.create('deals', 'contacts', { inputs: [{ _from: { id: deal.id }, to: { id: contact.id }, types }] }); // 201
  await v4.batchApi.create('deals', 'contacts', { inputs: [{ _from: { id: deal.id }, to: { id: contact.id }, types }, { _from: { id: deal.id }, to: { id: '424242' }, types }] }); // 207
  await v4.batchApi.create('contacts', 'companies', { inputs: [{ _from: { id: contact.id }, to: { id: company.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as any, associationTypeId: 279 }] }] });
  await v4.batchApi.createDefault('contacts', 'companies', { inputs: [{ _from: { id: contact.id }, to: { id: company.id } }, { _from: { id: contact.id }, to: { id: '424242' } }] }); // 200, one input in errors
  await v4.basicApi.getPage('deals', deal.id, 'companies');
  await v4.basicApi.getPage('companies', company.id, 'contacts');

  // Refusals: 401, and 429 from each budget.
  await settle(new Client({ accessToken: 'pat-na1-unknown', basePath: proxy.url }).crm.deals.basicApi.getPage());
  await control(sandbox, 'POST', '/limits', { searchPerSecond: 0 });
  await settle(crm.deals.searchApi.doSearch({ filterGroups: [], sorts: [], properties: [], limit: 1, after: undefined as any }));
  await control(sandbox, 'POST', '/limits', { tenSecondlyLimit: 0 });
  await settle(crm.deals.basicApi.getPage());
  await control(sandbox, 'POST', '/limits', { tenSecondlyLimit: 190, dailyLimit: 0 });
  await settle(crm.deals.basicApi.getPage());
  await control(sandbox, 'POST', '/limits', { dailyLimit: 650_000, searchPerSecond: 5 });
  await control(sandbox, 'POST', '/faults', { endpoint: 'deals.get', rate500: 1 });
  await settle(crm.deals.basicApi.getById(deal.id));
  await control(sandbox, 'DELETE', '/faults');
}

const label = (e: Exchange) => `${e.method} ${e.path.split('?')[0]} -> ${e.status}`;

describe('HubSpot sandbox answers against the published OpenAPI specs', () => {
  it('every answer to every kind of request validates against its schema', async () => {
    await exerciseEverything();
    const checked = proxy.exchanges.filter((e) => !e.path.startsWith('/_sandbox'));
    const failures = checked.flatMap((e) => {
      if (e.status === 204) return e.body === undefined ? [] : [`${label(e)}: a 204 with a body`];
      if (!/^application\/json/.test(e.headers['content-type'] ?? '')) return [`${label(e)}: no JSON Content-Type`];
      const { operation, schema, errors } = checkAgainstSpec(e.method, e.path, e.status, e.body);
      return errors.map((error) => `${label(e)} (${operation} ${schema}): ${error}`);
    });
    if (process.env.DEBUG_HUBSPOT_SPEC) console.log(checked.map((e) => `${label(e)} ${e.status === 204 ? "" : checkAgainstSpec(e.method, e.path, e.status, e.body).schema}`).join("\n"));
    expect(failures).toEqual([]);

    // The run really covered each operation and status, refusals included.
    const seen = new Set(checked.map((e) => `${e.method} ${e.path.split('?')[0]!.replace(/\/\d+(?=\/|$)/g, '/{id}')} ${e.status}`));
    const expected = [
      'POST /crm/v3/properties/deals 201', 'POST /crm/v3/properties/deals 409', 'GET /crm/v3/properties/deals 200', 'GET /crm/v3/properties/deals/commerce_offer_id 200',
      'POST /crm/v3/objects/deals 201', 'POST /crm/v3/objects/deals 400', 'GET /crm/v3/objects/deals/{id} 200', 'GET /crm/v3/objects/deals/{id} 404', 'PATCH /crm/v3/objects/deals/{id} 200',
      'DELETE /crm/v3/objects/deals/{id} 204', 'GET /crm/v3/objects/deals 200', 'GET /crm/v3/objects/2-1234567/{id} 200',
      'POST /crm/v3/objects/deals/batch/upsert 200', 'POST /crm/v3/objects/deals/batch/upsert 400', 'POST /crm/v3/objects/contacts/batch/upsert 207',
      'POST /crm/v3/objects/deals/batch/create 201', 'POST /crm/v3/objects/deals/batch/create 207', 'POST /crm/v3/objects/deals/batch/update 200',
      'POST /crm/v3/objects/deals/batch/update 207', 'POST /crm/v3/objects/deals/batch/read 200', 'POST /crm/v3/objects/deals/batch/read 207',
      'POST /crm/v3/objects/deals/search 200', 'POST /crm/v3/objects/deals/search 400', 'POST /crm/v3/objects/deals/search 429',
      'PUT /crm/v4/objects/deals/{id}/associations/default/companies/{id} 200', 'PUT /crm/v4/objects/deals/{id}/associations/default/companies/{id} 404',
      'POST /crm/v4/associations/deals/contacts/batch/create 201', 'POST /crm/v4/associations/deals/contacts/batch/create 207',
      'POST /crm/v3/objects/contacts/batch/create 409', 'POST /crm/v4/associations/contacts/companies/batch/associate/default 200',
      'GET /crm/v4/objects/deals/{id}/associations/companies 200', 'GET /account-info/v3/details 200', 'GET /account-info/v3/api-usage/daily 200',
      'POST /crm/v3/properties/deals 400', 'GET /crm/v3/properties/deals/groups 200', 'POST /crm/v3/properties/deals/groups 201', 'POST /crm/v3/properties/deals/groups 409',
      'GET /crm/v3/properties/deals/groups/commerce 200', 'GET /crm-object-schemas/v3/schemas 200', 'GET /crm-object-schemas/v3/schemas/2-1234567 200',
      'GET /crm-object-schemas/v3/schemas/p4242_marketplace_entitlement 200', 'GET /crm-object-schemas/v3/schemas/marketplace_entitlement 404',
      'POST /crm-object-schemas/v3/schemas 201', 'POST /crm-object-schemas/v3/schemas 409', 'GET /crm-object-schemas/v3/schemas 403', 'GET /crm/v3/objects/deals 401', 'GET /crm/v3/objects/deals 429', 'GET /crm/v3/objects/deals/{id} 500',
    ];
    expect(expected.filter((e) => !seen.has(e))).toEqual([]);
    const limited = checked.filter((e) => e.status === 429).map((e) => (e.body as { policyName?: string; message: string }).policyName ?? e.body);
    expect(limited).toEqual(['SECONDLY', 'TEN_SECONDLY_ROLLING', 'DAILY']);
  });

  it("every answer to every kind of request the connector makes validates too (the connector's own workload through the proxy)", async () => {
    const own = await startHubSpotSandbox({ searchPerSecond: 1000 });
    const ownProxy = await startRecordingProxy(own.baseUrl);
    try {
      await setUpHubSpot({ baseUrl: ownProxy.url, accessToken: own.accessToken });
      const crm = createHubSpotConnector({ baseUrl: ownProxy.url, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: own.accessToken });
      await crm.verify();
      await crm.describe('deals');
      await crm.upsert('companies', [{ sourceId: 'b1', externalIdField: 'commerce_buyer_id', externalId: 'b1', fields: { name: 'B1' } }]);
      const contacts = await crm.upsert('contacts', [
        { sourceId: 'c1', externalIdField: 'commerce_contact_id', externalId: 'c1', fields: { email: 'x@example.com', companies: { commerce_buyer_id: 'b1' } } },
        { sourceId: 'c2', externalIdField: 'commerce_contact_id', externalId: 'c2', fields: { email: 'X@example.com', companies: { commerce_buyer_id: 'b1' } } }, // one email: merged, an update
      ]);
      // An email HubSpot holds: the batch is refused whole (409), its emails read, the contact updated.
      await crm.upsert('contacts', [{ sourceId: 'c3', externalIdField: 'commerce_contact_id', externalId: 'c3', fields: { email: 'x@EXAMPLE.com' } }]);
      const [deal] = await crm.upsert('deals', [{ sourceId: 'o1', externalIdField: 'commerce_offer_id', externalId: 'o1', fields: { dealname: 'D', amount: 3, pipeline: 'Marketplace offers', dealstage: 'Draft', companies: { commerce_buyer_id: 'b1' }, contacts: [{ commerce_contact_id: 'c1' }] } }]);
      await crm.upsert('deals', [{ sourceId: 'bad', externalIdField: 'commerce_offer_id', externalId: 'bad', fields: { amount: 'x' } }]); // 400, one record
      await crm.upsert('marketplace_entitlement', [{ sourceId: 'e1', externalIdField: 'entitlement_id', externalId: 'e1', fields: { entitlement_name: 'E', deals: { commerce_offer_id: 'o1' } } }]);
      const dealId = (deal as { crmId: string }).crmId;
      await crm.update('deals', [{ sourceId: 'o1', crmId: dealId, fields: { dealstage: 'Accepted' } }, { sourceId: 'gone', crmId: '424242', fields: { dealname: 'x' } }]); // 200 read, 207 update
      await crm.insert('deals', [{ sourceId: 'n1', fields: { dealname: 'New' } }]);
      for await (const page of crm.changedSince('deals', { since: new Date(0), fields: ['dealname'] })) void page;
      await crm.findWhereIn('contacts', 'email', ['x@example.com'], ['email']);
      await crm.findWhereIn('deals', 'hs_object_id', [dealId, '424242']);
      await crm.findByExternalIds('deals', 'commerce_offer_id', ['o1', 'missing']);
      await crm.getById('deals', dealId);
      await crm.getById('deals', '424242');
      await crm.associated!('deals', [dealId, '424242'], 'companies');
      expect(contacts.map((result) => result.ok)).toEqual([true, true]);

      // Pipelines and the token endpoint have no spec among HubSpot's published ones (sandbox README).
      const checked = ownProxy.exchanges.filter((e) => !e.path.startsWith('/_sandbox') && !e.path.startsWith('/crm/v3/pipelines'));
      const failures = checked.flatMap((e) => {
        if (e.status === 204) return [];
        const { operation, schema, errors } = checkAgainstSpec(e.method, e.path, e.status, e.body);
        return errors.map((error) => `${label(e)} (${operation} ${schema}): ${error}`);
      });
      expect(failures).toEqual([]);
      const seen = new Set(checked.map((e) => `${e.method} ${e.path.split('?')[0]!.replace(/\/\d+(?=\/|$)/g, '/{id}')} ${e.status}`));
      for (const call of [
        'POST /crm/v3/objects/contacts/batch/upsert 409', 'POST /crm/v3/objects/contacts/batch/read 200', 'POST /crm/v3/objects/contacts/batch/update 200', 'POST /crm/v3/objects/deals/batch/upsert 400',
        'POST /crm/v4/associations/deals/companies/batch/associate/default 200', 'POST /crm/v4/associations/deals/contacts/batch/associate/default 200',
        'POST /crm/v4/associations/deals/companies/batch/read 207', 'POST /crm/v3/objects/deals/batch/update 207', 'POST /crm/v3/objects/deals/batch/create 201',
        'POST /crm/v3/objects/deals/search 200', 'POST /crm/v3/objects/contacts/search 200', 'POST /crm/v3/objects/deals/batch/read 207', 'GET /crm/v3/objects/deals/{id} 404',
        'GET /crm/v3/properties/deals 200', 'POST /crm/v3/properties/deals 201', 'GET /account-info/v3/details 200',
      ]) expect(seen.has(call), call).toBe(true);
    } finally {
      await ownProxy.stop();
      await own.stop();
    }
  });

  it('the check is not vacuous: a malformed answer fails it', () => {
    const bad = checkAgainstSpec('POST', '/crm/v3/objects/deals/batch/upsert', 207, { status: 'DONE', results: [{ id: 1, properties: { amount: 5 } }], numErrors: '1' });
    expect(bad.errors.length).toBeGreaterThan(3);
    expect(bad.schema).toBe('#/components/schemas/BatchResponseSimplePublicUpsertObjectWithErrors');
    const error = checkAgainstSpec('GET', '/crm/v3/objects/deals/5', 401, { status: 'error', message: 'x' });
    expect(error.errors.join(' ')).toContain('category');
  });
});
