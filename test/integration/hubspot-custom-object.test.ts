// The entitlement custom object as HubSpot addresses it since June 2025, and property groups, against
// the HubSpot sandbox through the real @hubspot/api-client (issue #22 items 1 and 6):
// - setup on a portal without the custom object creates it (POST /crm-object-schemas/v3/schemas) and
//   reports its objectTypeId; the sync then writes entitlements by that id, never by the bare name;
// - a connection saved before the id was kept finds it in the account's schemas, once per connector;
// - a token without the schemas scopes is a problem setup names, and no reason to switch to line items;
// - properties go into the commerce group, which setup creates first on each object (HubSpot refuses a
//   property whose group its object lacks).
import { afterAll, describe, expect, it } from 'vitest';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { startHubSpotSandbox, type HubSpotSandbox, type HubSpotSandboxOptions } from '../../sandbox/hubspot/index.ts';
import { startRecordingProxy } from '../../sandbox/hubspot/recording-proxy.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** A portal behind a recording proxy (what the client sent, path by path). */
async function portal(options: HubSpotSandboxOptions = {}) {
  const sandbox = await startHubSpotSandbox({ searchPerSecond: 1000, ...options });
  const proxy = await startRecordingProxy(sandbox.baseUrl);
  stops.push(() => sandbox.stop(), () => proxy.stop());
  return { sandbox, proxy, baseUrl: proxy.url, token: sandbox.accessToken };
}

const entitlement = (id: string, offer: string) => ({ sourceId: id, externalIdField: 'entitlement_id', externalId: id, fields: { entitlement_name: `Entitlement ${id}`, commit_amount: 1200, deals: { commerce_offer_id: offer } } });
const bareNamePaths = (paths: string[]) => paths.filter((path) => /\/marketplace_entitlement(\/|\?|$)/.test(path));

describe('the entitlement custom object on a portal that lacks it', () => {
  it('setup creates it, reports its objectTypeId, creates the commerce group before its properties; the sync writes entitlements by that id', async () => {
    const { sandbox, proxy, baseUrl, token } = await portal({ premadeCustomObjects: false, portalId: '9001' });
    const report = await setUpHubSpot({ baseUrl, accessToken: token });
    expect(report.problems).toEqual([]);
    expect(report.entitlementObject).toBe('marketplace_entitlement');
    const schemas = (await (await fetch(`${sandbox.baseUrl}/crm-object-schemas/v3/schemas`, { headers: { authorization: `Bearer ${token}` } })).json()) as { results: { name: string; objectTypeId: string; fullyQualifiedName: string }[] };
    // And the usage object beside it (issue #25 section 4), associated to the entitlement's.
    expect(schemas.results.map((schema) => [schema.name, schema.fullyQualifiedName])).toEqual([['marketplace_entitlement', 'p9001_marketplace_entitlement'], ['marketplace_usage', 'p9001_marketplace_usage']]);
    const objectTypeId = schemas.results[0]!.objectTypeId;
    const usageTypeId = schemas.results[1]!.objectTypeId;
    expect(report.created).toEqual(expect.arrayContaining([`marketplace_usage (custom object ${usageTypeId})`, 'marketplace_usage property group "commerce"', 'marketplace_usage.quantity', 'marketplace_entitlement.usage_amount']));
    expect(report.entitlementObjectTypeId).toBe(objectTypeId);
    expect(report.created).toEqual(expect.arrayContaining([`marketplace_entitlement (custom object ${objectTypeId})`, 'marketplace_entitlement property group "commerce"', 'marketplace_entitlement.commit_amount', 'deals property group "commerce"', 'deals.commerce_offer_id']));

    // Each object's group was created before any property was put in it.
    const sent = proxy.exchanges.filter((e) => e.method === 'POST').map((e) => e.path);
    for (const type of ['companies', 'contacts', 'deals', objectTypeId]) {
      const group = sent.indexOf(`/crm/v3/properties/${type}/groups`);
      expect(group, type).toBeGreaterThanOrEqual(0);
      expect(sent.indexOf(`/crm/v3/properties/${type}`), type).toBeGreaterThan(group);
    }
    const commit = (await (await fetch(`${sandbox.baseUrl}/crm/v3/properties/${objectTypeId}/commit_amount`, { headers: { authorization: `Bearer ${token}` } })).json()) as { groupName: string };
    expect(commit.groupName).toBe('commerce');

    const crm = createHubSpotConnector({ baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement', entitlementObjectTypeId: report.entitlementObjectTypeId }, { crmAccessToken: token });
    await crm.upsert('deals', [{ sourceId: 'o1', externalIdField: 'commerce_offer_id', externalId: 'o1', fields: { dealname: 'Offer 1' } }]);
    const written = await crm.upsert('marketplace_entitlement', [entitlement('e1', 'o1'), entitlement('e2', 'o1')]);
    expect(written.map((result) => result.ok)).toEqual([true, true]);
    const found = await crm.findByExternalIds('marketplace_entitlement', 'entitlement_id', ['e1', 'e2']);
    expect([...found.keys()].sort()).toEqual(['e1', 'e2']);
    const pages = [];
    for await (const page of crm.changedSince('marketplace_entitlement', { since: new Date(0), fields: ['entitlement_id'] })) pages.push(...page);
    expect(pages.map((record) => record.entitlement_id).sort()).toEqual(['e1', 'e2']);

    // In HubSpot: the records of that custom object, associated to the offer's deal.
    const stored = (await control(sandbox, 'GET', '/records/marketplace_entitlement')) as { id: string; properties: Record<string, string> }[];
    expect(stored.map((record) => record.properties.entitlement_id).sort()).toEqual(['e1', 'e2']);
    const deal = (await control(sandbox, 'GET', '/records/deals'))[0].id as string;
    const associations = (await control(sandbox, 'GET', '/associations')) as { fromType: string; fromId: string; toType: string; toId: string }[];
    expect(associations.filter((a) => a.fromType === 'marketplace_entitlement' && a.toType === 'deals' && a.toId === deal).map((a) => a.fromId).sort()).toEqual(stored.map((r) => r.id).sort());

    // Every path named the object by its objectTypeId; none by the bare name (HubSpot answers that 400).
    const paths = proxy.exchanges.map((e) => e.path);
    expect(bareNamePaths(paths)).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining([`/crm/v3/objects/${objectTypeId}/batch/upsert`, `/crm/v3/objects/${objectTypeId}/search`, `/crm/v4/associations/${objectTypeId}/deals/batch/associate/default`]));
    expect(proxy.exchanges.filter((e) => e.status === 400)).toEqual([]);

    // Run again, setup creates nothing and finds the object.
    const again = await setUpHubSpot({ baseUrl, accessToken: token });
    expect(again.created).toEqual([]);
    expect(again.present).toEqual(expect.arrayContaining([`marketplace_entitlement (custom object ${objectTypeId})`, 'deals property group "commerce"']));
    expect(again.entitlementObjectTypeId).toBe(objectTypeId);
  });

  it('a connection saved before the objectTypeId was kept looks it up in the schemas once, and writes by it', async () => {
    const { proxy, baseUrl, token } = await portal();
    await setUpHubSpot({ baseUrl, accessToken: token });
    proxy.exchanges.length = 0;
    const old = createHubSpotConnector({ baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: token });
    await old.upsert('deals', [{ sourceId: 'o1', externalIdField: 'commerce_offer_id', externalId: 'o1', fields: { dealname: 'Offer 1' } }]);
    expect((await old.upsert('marketplace_entitlement', [entitlement('e1', 'o1')]))[0]).toMatchObject({ ok: true, created: true });
    expect((await old.upsert('marketplace_entitlement', [entitlement('e2', 'o1')]))[0]).toMatchObject({ ok: true, created: true });
    expect((await old.describe('marketplace_entitlement')).fields.has('commit_amount')).toBe(true);
    const paths = proxy.exchanges.map((e) => `${e.method} ${e.path.split('?')[0]}`);
    expect(paths.filter((path) => path === 'GET /crm-object-schemas/v3/schemas')).toHaveLength(1);
    expect(paths).toContain('POST /crm/v3/objects/2-1234567/batch/upsert');
    expect(bareNamePaths(paths)).toEqual([]);
  });

  it('a portal where nobody ran setup: the write says the object is missing and to run crm-sync setup', async () => {
    const { baseUrl, token } = await portal({ premadeCustomObjects: false });
    const crm = createHubSpotConnector({ baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: token });
    await expect(crm.upsert('marketplace_entitlement', [entitlement('e1', 'o1')])).rejects.toThrow(/HubSpot has no custom object marketplace_entitlement in this account: run crm-sync setup/);
  });
});

describe('setup and the account', () => {
  it('a token without the schemas scopes: setup names the scope and does not switch entitlements to line items', async () => {
    const { proxy, baseUrl, token } = await portal({ premadeCustomObjects: false, withheldScopes: ['crm.schemas.custom.read', 'crm.objects.custom.read', 'crm.schemas.custom.write'] });
    const report = await setUpHubSpot({ baseUrl, accessToken: token });
    expect(report.entitlementObject).toBeUndefined();
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/^marketplace_entitlement: HubSpot refused to list the account's custom objects: the app lacks the scope crm\.schemas\.custom\.read or crm\.objects\.custom\.read/);
    expect([...report.created, ...report.present].filter((item) => item.startsWith('line_items'))).toEqual([]);
    expect(proxy.exchanges.some((e) => e.path.startsWith('/crm/v3/properties/line_items'))).toBe(false);
    // The rest of the account is set up all the same.
    expect(report.created).toEqual(expect.arrayContaining(['deals.commerce_offer_id', 'deal pipeline "Marketplace offers"']));
  });

  it('a token that may read schemas but not create them: the scope is named, no fallback', async () => {
    const { baseUrl, token } = await portal({ premadeCustomObjects: false, withheldScopes: ['crm.schemas.custom.write'] });
    const report = await setUpHubSpot({ baseUrl, accessToken: token });
    expect(report.entitlementObject).toBeUndefined();
    expect(report.problems).toEqual([expect.stringMatching(/^marketplace_entitlement: HubSpot refused to create the custom object: the app lacks the scope crm\.schemas\.custom\.write\. Add it/)]);
  });

  it('an account HubSpot refuses custom objects (no Enterprise subscription): setup falls back to line items and says so, quoting HubSpot', async () => {
    const { baseUrl, token } = await portal({ customObjects: false });
    const report = await setUpHubSpot({ baseUrl, accessToken: token });
    expect(report.problems).toEqual([]);
    expect(report.entitlementObject).toBe('line_items');
    expect(report.entitlementObjectTypeId).toBeUndefined();
    expect(report.present[0]).toMatch(/^marketplace_entitlement: HubSpot refused to create the custom object \(".*Enterprise.*"\): custom objects come with HubSpot's Enterprise subscriptions, so entitlements go to line items/);
    expect(report.created).toEqual(expect.arrayContaining(['line_items property group "commerce"', 'line_items.commerce_entitlement_id']));
    // Usage (issue #25 section 4): no usage object; the entitlement's usage summary on its line item.
    expect(report.created).toEqual(expect.arrayContaining(['line_items.usage_amount', 'line_items.commit_burn_down_percent', 'line_items.last_usage_date', 'line_items.failed_usage_reports']));
    expect([...report.created, ...report.present].filter((item) => item.startsWith('marketplace_usage'))).toEqual([]);
  });

  it('a commerce group someone made already is used as it is', async () => {
    const { sandbox, baseUrl, token } = await portal();
    const made = await fetch(`${sandbox.baseUrl}/crm/v3/properties/companies/groups`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'commerce', label: 'Our commerce' }) });
    expect(made.status).toBe(201);
    const report = await setUpHubSpot({ baseUrl, accessToken: token });
    expect(report.problems).toEqual([]);
    expect(report.present).toContain('companies property group "commerce"');
    expect(report.created).toContain('companies.commerce_buyer_id');
    expect(report.created).not.toContain('companies property group "commerce"');
  });
});
