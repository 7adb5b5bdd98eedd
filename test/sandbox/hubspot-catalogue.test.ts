// HubSpot sandbox (issue #28): products and line items as HubSpot's guides describe them
// (docs/crm-wire-behaviour.md, HubSpot "Products and line items"): products through the v3 objects,
// batch and search endpoints; no unique-value property on products; a line item made with hs_product_id
// takes the product's values unless it gives its own; a line item's price cannot be negative; a term is an
// ISO 8601 period; the net price (amount) is calculated, never written; line items associate to deals
// (20 / 19); a multi-currency account has deal_currency_code, hs_line_item_currency_code and hs_price_<code>.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';

const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(() => undefined, (error: unknown) => error);
// A name with quotes, a backslash and non-Latin letters, as a product name may be.
const HOSTILE = `Données "Analytics" O'Neil \\ 東京 ✓`;

let sandbox: HubSpotSandbox;
let client: Client;
let multi: HubSpotSandbox;
let multiClient: Client;

beforeAll(async () => {
  [sandbox, multi] = await Promise.all([startHubSpotSandbox(), startHubSpotSandbox({ additionalCurrencies: ['EUR'] })]);
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  multiClient = new Client({ accessToken: multi.accessToken, basePath: multi.baseUrl });
});
afterAll(async () => Promise.all([sandbox.stop(), multi.stop()]));

const createProperty = (apiClient: Client, objectType: string, name: string, hasUniqueValue: boolean) =>
  apiClient.crm.properties.coreApi.create(objectType, { name, label: name, type: 'string' as never, fieldType: 'text' as never, groupName: 'productinformation', hasUniqueValue });

describe('HubSpot sandbox: products', () => {
  it('serves products as object 0-7 with name, price, hs_sku, description and term, read by name or type id', async () => {
    const made = await client.crm.products.basicApi.create({ properties: { name: HOSTILE, price: '1200.50', hs_sku: 'SKU-1', description: 'per year', hs_recurring_billing_period: 'P12M' }, associations: [] });
    const read = await client.crm.objects.basicApi.getById('0-7', made.id, ['name', 'price', 'hs_sku', 'description', 'hs_recurring_billing_period']);
    expect(read.properties).toMatchObject({ name: HOSTILE, price: '1200.50', hs_sku: 'SKU-1', description: 'per year', hs_recurring_billing_period: 'P12M' });
    const names = (await client.crm.properties.coreApi.getAll('products')).results.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['name', 'price', 'hs_sku', 'description', 'hs_recurring_billing_period', 'hs_cost_of_goods_sold']));
    // A one-currency account has no per-currency prices.
    expect(names.filter((name) => name.startsWith('hs_price_'))).toEqual([]);
  });

  it('refuses a unique-value product property (HubSpot keeps those for contacts, companies, deals, tickets and custom objects) and makes a plain one', async () => {
    const refused = await errorOf(createProperty(client, 'products', 'commerce_price_key', true));
    expect(refused.code).toBe(400);
    expect(refused.body.message).toContain('cannot require unique values');
    expect((await errorOf(client.crm.properties.coreApi.getByName('products', 'commerce_price_key'))).code).toBe(404);
    const plain = await createProperty(client, 'products', 'commerce_price_key', false);
    expect(plain.hasUniqueValue).toBe(false);
  });

  it('so batch upsert by a product property is refused, and batch create, search and batch update find and change products', async () => {
    const upsert = await errorOf(client.crm.products.batchApi.upsert({ inputs: [{ idProperty: 'commerce_price_key', id: 'p-1|users', properties: { name: 'Users' } }] }));
    expect(upsert.code).toBe(400);
    expect(upsert.body.message).toContain('not a unique-value property');
    const made = await client.crm.products.batchApi.create({
      inputs: [
        { properties: { name: 'Users', price: '10', commerce_price_key: `p-1|users` }, associations: [] },
        { properties: { name: 'Storage', price: '0.25', commerce_price_key: `p-1|gb'"\\` }, associations: [] },
      ],
    });
    expect(made.results).toHaveLength(2);
    const found = await client.crm.products.searchApi.doSearch({ filterGroups: [{ filters: [{ propertyName: 'commerce_price_key', operator: 'EQ' as never, value: `p-1|gb'"\\` }] }], properties: ['name', 'price'], limit: 10, after: '0', sorts: [] });
    expect(found.results.map((r) => r.properties.name)).toEqual(['Storage']);
    await client.crm.products.batchApi.update({ inputs: [{ id: found.results[0]!.id, properties: { price: '0.30' } }] });
    expect((await client.crm.products.basicApi.getById(found.results[0]!.id, ['price'])).properties.price).toBe('0.30');
  });

  it('associates a product with nothing: a deal gets it through a line item', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'Direct' }, associations: [] });
    const product = await client.crm.products.basicApi.create({ properties: { name: 'Loose' }, associations: [] });
    const refused = await errorOf(client.crm.associations.v4.basicApi.createDefault('products', product.id, 'deals', deal.id));
    expect(refused.code).toBe(400);
    const withLink = await errorOf(client.crm.products.basicApi.create({ properties: { name: 'Linked' }, associations: [{ to: { id: deal.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: 20 }] }] }));
    expect(withLink.code).toBe(400);
  });

  it('refuses a term that is not an ISO 8601 period, naming it, and writes nothing', async () => {
    const refused = await errorOf(client.crm.products.batchApi.create({ inputs: [{ properties: { name: 'Fine', hs_recurring_billing_period: 'P1Y' }, associations: [] }, { properties: { name: 'Bad', hs_recurring_billing_period: '12 months' }, associations: [] }] }));
    expect(refused.code).toBe(400);
    expect(refused.body.category).toBe('VALIDATION_ERROR');
    expect(refused.body.message).toContain('hs_recurring_billing_period');
    const fine = await client.crm.products.searchApi.doSearch({ filterGroups: [{ filters: [{ propertyName: 'name', operator: 'EQ' as never, value: 'Fine' }] }], properties: ['name'], limit: 10, after: '0', sorts: [] });
    expect(fine.total).toBe(0);
  });
});

describe('HubSpot sandbox: line items made from products', () => {
  it("copies the product's name, price, SKU, description and term into a new line item, keeps what the create gives, and calculates the net price", async () => {
    const product = await client.crm.products.basicApi.create({ properties: { name: HOSTILE, price: '19.99', hs_sku: 'SKU-9', description: 'seats', hs_recurring_billing_period: 'P1M' }, associations: [] });
    const copied = await client.crm.lineItems.basicApi.create({ properties: { hs_product_id: product.id, quantity: '3' }, associations: [] });
    const props = ['name', 'price', 'hs_sku', 'description', 'hs_recurring_billing_period', 'quantity', 'amount', 'hs_product_id'];
    expect((await client.crm.lineItems.basicApi.getById(copied.id, props)).properties).toMatchObject({ name: HOSTILE, price: '19.99', hs_sku: 'SKU-9', description: 'seats', hs_recurring_billing_period: 'P1M', quantity: '3', amount: '59.97' });
    const own = await client.crm.lineItems.basicApi.create({ properties: { hs_product_id: product.id, quantity: '2', price: '15', name: 'Discounted seats' }, associations: [] });
    expect((await client.crm.lineItems.basicApi.getById(own.id, props)).properties).toMatchObject({ name: 'Discounted seats', price: '15', hs_sku: 'SKU-9', amount: '30' });
    // Later changes to the product do not reach the line item; a change of quantity changes its net price.
    await client.crm.products.basicApi.update(product.id, { properties: { price: '25' } });
    await client.crm.lineItems.basicApi.update(copied.id, { properties: { quantity: '4' } });
    expect((await client.crm.lineItems.basicApi.getById(copied.id, ['price', 'amount'])).properties).toMatchObject({ price: '19.99', amount: '79.96' });
  });

  it('refuses a negative price, an unknown or archived product and a written net price, and makes nothing', async () => {
    const product = await client.crm.products.basicApi.create({ properties: { name: 'Gone', price: '5' }, associations: [] });
    await client.crm.products.basicApi.archive(product.id);
    const before = (await client.crm.lineItems.basicApi.getPage(100)).results.length;
    const refusedInputs: Record<string, string>[] = [{ name: 'Refund', price: '-1' }, { hs_product_id: product.id }, { hs_product_id: '999999' }, { name: 'Priced', price: '5', amount: '10' }];
    for (const properties of refusedInputs) {
      const refused = await errorOf(client.crm.lineItems.basicApi.create({ properties, associations: [] }));
      expect(refused.code, JSON.stringify(properties)).toBe(400);
      expect(refused.body.category).toBe('VALIDATION_ERROR');
    }
    const batch = await errorOf(client.crm.lineItems.batchApi.create({ inputs: [{ properties: { name: 'Fine', price: '1' }, associations: [] }, { properties: { name: 'Refund', price: '-2' }, associations: [] }] }));
    expect(batch.code).toBe(400);
    expect(batch.body.message).toContain('cannot be negative');
    expect((await client.crm.lineItems.basicApi.getPage(100)).results.length).toBe(before);
  });

  it('associates a line item to its deal when made (type 20) and reads it back from the deal (type 19)', async () => {
    const deal = await client.crm.deals.basicApi.create({ properties: { dealname: 'Two products' }, associations: [] });
    const product = await client.crm.products.basicApi.create({ properties: { name: 'Seats', price: '7' }, associations: [] });
    const made = await client.crm.lineItems.batchApi.create({
      inputs: ['1', '2'].map((quantity) => ({ properties: { hs_product_id: product.id, quantity }, associations: [{ to: { id: deal.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: 20 }] }] })),
    });
    const fromDeal = await client.crm.associations.v4.basicApi.getPage('deals', deal.id, 'line_items');
    expect(fromDeal.results.map((r) => String(r.toObjectId)).sort()).toEqual(made.results.map((r) => r.id).sort());
    expect(fromDeal.results[0]!.associationTypes.map((t) => t.typeId)).toContain(19);
    const lines = await client.crm.lineItems.batchApi.read({ inputs: made.results.map((r) => ({ id: r.id })), properties: ['amount'], propertiesWithHistory: [] });
    expect(lines.results.map((r) => r.properties.amount).sort()).toEqual(['14', '7']);
  });
});

describe('HubSpot sandbox: the catalogue scopes', () => {
  it('refuses product writes to a token without crm.objects.products.write (MISSING_SCOPES) and lets it read them', async () => {
    const limited = await startHubSpotSandbox({ withheldScopes: ['crm.objects.products.write', 'crm.objects.line_items.write'] });
    try {
      const limitedClient = new Client({ accessToken: limited.accessToken, basePath: limited.baseUrl });
      const refused = await errorOf(limitedClient.crm.products.basicApi.create({ properties: { name: 'Nope' }, associations: [] }));
      expect(refused.code).toBe(403);
      expect(refused.body.category).toBe('MISSING_SCOPES');
      expect(refused.body.errors[0].context.requiredGranularScopes).toEqual(['crm.objects.products.write']);
      expect((await errorOf(limitedClient.crm.lineItems.basicApi.create({ properties: { name: 'Nope' }, associations: [] }))).code).toBe(403);
      expect((await limitedClient.crm.products.basicApi.getPage(10)).results).toEqual([]);
    } finally {
      await limited.stop();
    }
  });
});

describe('HubSpot sandbox: a multi-currency account', () => {
  it("has deal_currency_code and hs_line_item_currency_code among the account's currencies and a product price per currency, which a line item in that currency takes", async () => {
    const dealCurrency = await multiClient.crm.properties.coreApi.getByName('deals', 'deal_currency_code');
    expect(dealCurrency.options.map((o) => o.value)).toEqual(['USD', 'EUR']);
    const refused = await errorOf(multiClient.crm.deals.basicApi.create({ properties: { dealname: 'Real', deal_currency_code: 'BRL' }, associations: [] }));
    expect(refused.code).toBe(400);
    const product = await multiClient.crm.products.basicApi.create({ properties: { name: 'Seats', price: '10', hs_price_usd: '10', hs_price_eur: '9.50' }, associations: [] });
    const euro = await multiClient.crm.lineItems.basicApi.create({ properties: { hs_product_id: product.id, quantity: '2', hs_line_item_currency_code: 'EUR' }, associations: [] });
    expect((await multiClient.crm.lineItems.basicApi.getById(euro.id, ['price', 'amount', 'hs_line_item_currency_code'])).properties).toMatchObject({ price: '9.50', amount: '19', hs_line_item_currency_code: 'EUR' });
    const details = await fetch(`${multi.baseUrl}/account-info/v3/details`, { headers: { authorization: `Bearer ${multi.accessToken}` } });
    expect(((await details.json()) as any).additionalCurrencies).toEqual(['EUR']);
  });
});
