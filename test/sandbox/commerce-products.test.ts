// Products in the commerce sandbox (issue #28, A18): the catalogue's dimensions and list prices per
// currency, the five product reads on the wire, query paging by lastUpdateTime with q and s, and the
// change kind `product` with its PRODUCT events. Plain fetch through the sandbox probe.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../sandbox/commerce/generator.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-03-01T12:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;

const get = async (path: string, query?: Record<string, string | number>) => {
  const response = await probe.api(`/org/org-1${path}`, { query });
  return response;
};
const ok = async (path: string, query?: Record<string, string | number>) => {
  const response = await get(path, query);
  expect(response.status, response.text).toBe(200);
  return response.json;
};

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 3, entitlements: 40, now: clock.now });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: the product catalogue (A18)', () => {
  it('gives every marketplace A-F listed products of one to four priced dimensions, some in several currencies, and one DELETED product', async () => {
    const products = await ok('/product');
    expect(products.map((p: any) => p.id)).toEqual(['prod-000001', 'prod-000002', 'prod-000003', 'prod-000004', 'prod-000005', 'prod-000006', 'prod-000007', 'prod-000008', 'prod-000009']);
    const listed = products.filter((p: any) => p.status === 'PUBLIC');
    expect(new Set(listed.map((p: any) => p.partner))).toEqual(new Set(['cloudA', 'cloudB', 'cloudC', 'cloudD', 'cloudE', 'cloudF']));
    expect(products.filter((p: any) => p.status === 'DELETED').map((p: any) => p.id)).toEqual(['prod-000009']);
    for (const product of products) {
      const dimensions = product.info.dimensions;
      expect(dimensions.length, product.id).toBeGreaterThanOrEqual(1);
      expect(dimensions.length, product.id).toBeLessThanOrEqual(4);
      for (const dimension of dimensions) {
        expect(dimension).toEqual({ key: expect.stringMatching(/^[a-z_]+$/), name: expect.any(String), description: expect.any(String), unit: expect.any(String), type: expect.stringMatching(/^(COMMIT|METERED)$/), prices: expect.any(Array) });
        // Every dimension has a price in every currency the product is sold in, and no other.
        expect(dimension.prices.map((price: any) => price.currency).sort()).toEqual([...product.info.currencies].sort());
        for (const price of dimension.prices) expect(price.pricePerUnit).toBeGreaterThan(0);
      }
    }
    expect(products.filter((p: any) => p.info.currencies.length > 1).length).toBeGreaterThanOrEqual(3);
  });

  it('prices Insight Analytics (marketplace A) as the catalogue states it', async () => {
    const product = await ok('/product/prod-000001');
    expect(product).toMatchObject({ id: 'prod-000001', name: 'Insight Analytics', partner: 'cloudA', productType: 'SAAS', status: 'PUBLIC' });
    expect(product.info.currencies).toEqual(['USD', 'EUR']);
    expect(product.info.dimensions.map((d: any) => [d.key, d.unit, d.type])).toEqual([
      ['analyst_seats', 'Users', 'COMMIT'],
      ['queries_million', 'Million queries', 'METERED'],
      ['storage_gb', 'GB-months', 'METERED'],
    ]);
    expect(product.info.dimensions[0].prices).toEqual([{ currency: 'USD', pricePerUnit: 40 }, { currency: 'EUR', pricePerUnit: 37 }]);
  });

  it('leaves every other generated record as the generator made it before the catalogue existed', () => {
    // Hashes taken from the generator of the commit before the catalogue (5fe6ffd^), for two seeds:
    // every record but the products, and the first eight products without their info.
    const before: Record<number, [string, string]> = {
      1: ['e7920306051011abfc5cab1863e030baa6bce834ce89d75ba4b85b4d23ccb7ef', 'bd46ed9fd7fd4b0ace9c74cedc08da4a1ada6f7518cfa0d43866c978e6e3e0ce'],
      7: ['81da2222120f087a76dcf21cfb7c97e5efa332229d578e4f88ed678843f3e04b', 'af3833a7e5b15d617c6c16b89809823263435915be0cf98d21daf4270ed06efb'],
    };
    for (const seed of [1, 7]) {
      const { products, ...rest } = generateDataset({ seed, entitlements: 120, organizationId: 'org-1' });
      const withoutInfo = products.slice(0, 8).map(({ info: _info, ...others }) => others);
      const sha = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
      expect([sha(rest), sha(withoutInfo)]).toEqual(before[seed]);
    }
  });
});

describe('commerce sandbox: product reads', () => {
  it('lists with the partner, status and productType filters, limit and offset', async () => {
    expect((await ok('/product', { partner: 'cloudA' })).map((p: any) => p.id)).toEqual(['prod-000001', 'prod-000007']);
    expect((await ok('/product', { status: 'DELETED' })).map((p: any) => p.id)).toEqual(['prod-000009']);
    expect((await ok('/product', { productType: 'AMI' })).map((p: any) => p.id)).toEqual(['prod-000002']);
    expect((await ok('/product', { limit: 4, offset: 4 })).map((p: any) => p.id)).toEqual(['prod-000005', 'prod-000006', 'prod-000007', 'prod-000008']);
    expect((await get('/product', { limit: 0 })).json).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'limit' });
  });

  it('lists by cloud partner, and refuses a partner that is not one', async () => {
    expect((await ok('/partner/cloudC/product')).map((p: any) => p.id)).toEqual(['prod-000003', 'prod-000009']);
    expect((await ok('/partner/cloudC/product', { status: 'PUBLIC' })).map((p: any) => p.id)).toEqual(['prod-000003']);
    const refused = await get('/partner/cloud%22Z%5C%C3%BC/product');
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ code: 'INVALID_ARGUMENT', message: 'partner must be one of cloudA, cloudB, cloudC, cloudD, cloudE, cloudF, got "cloud\\"Z\\\\ü"', parameter: 'partner' });
  });

  it('gets one product and its dimensions; an unknown id is a 404 string', async () => {
    const product = await ok('/product/prod-000005');
    expect(product.name).toBe('Atlas Search');
    const dimensions = await ok('/product/prod-000005/dimension');
    expect(dimensions).toEqual(product.info.dimensions);
    expect(dimensions.map((d: any) => d.key)).toEqual(['search_units', 'replicas', 'queries_thousand', 'index_gb']);
    expect((await ok('/product/prod-000005/dimension', { limit: 1, offset: 3 })).map((d: any) => d.key)).toEqual(['index_gb']);
    const missing = await get('/product/prod-404');
    expect(missing.status).toBe(404);
    expect(missing.json).toBe('product prod-404 not found');
    expect((await get('/product/prod-404/dimension')).status).toBe(404);
  });

  it('pages a query window by lastUpdateTime with q and s, as a plain filter over the records would', async () => {
    const all = await probe.records('products');
    const from = [...all].map((p) => p.lastUpdateTime).sort()[3];
    const expected = all
      .filter((p) => p.lastUpdateTime >= from)
      .sort((a, b) => (a.lastUpdateTime === b.lastUpdateTime ? (a.id < b.id ? -1 : 1) : a.lastUpdateTime < b.lastUpdateTime ? -1 : 1))
      .map((p) => p.id);
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const body = await ok('/product/query', { q: `(ge lastUpdateTime "${from}")`, s: 'lastUpdateTime:asc,id:asc', page_size: 2, page_number: page });
      expect(body.total_count).toBe(expected.length);
      seen.push(...body.data.map((p: any) => p.id));
      if (body.data.length < 2) break;
    }
    expect(seen).toEqual(expected);
  });

  it('matches names in q with quotes, backslashes and unicode as plain text', async () => {
    expect((await ok('/product/query', { q: '(like name "%search%")' })).data.map((p: any) => p.id)).toEqual(['prod-000005']);
    const hostile = await ok('/product/query', { q: '(eq name "Vault \\"Backup\\\\ ü")' });
    expect(hostile).toMatchObject({ data: [], total_count: 0 });
    expect((await ok('/product/query', { q: '(eq info.dimensions.key "consulting_days")', s: '-id' })).data.map((p: any) => p.id)).toEqual(['prod-000008']);
    expect((await get('/product/query', { q: '(eq name' })).json).toMatchObject({ code: 'INVALID_ARGUMENT', parameter: 'q' });
  });
});

describe('commerce sandbox: the change kind product', () => {
  it('reprices a dimension or adds one, bumps lastUpdateTime and emits one PRODUCT UPDATED event each time', async () => {
    const before = new Map((await probe.records('products')).map((p) => [p.id, p]));
    clock.advance(60);
    const response = await probe.control('POST', '/changes', { count: 24, kinds: ['product'] });
    expect(response.status, response.text).toBe(200);
    const changes = response.json.changes;
    expect(changes).toHaveLength(24);
    const after = new Map((await probe.records('products')).map((p) => [p.id, p]));
    const events = new Map((await probe.records('notificationEvents')).map((e) => [e.eventID, e]));
    const kinds = new Set<string>();
    const latest = new Set<string>(); // a price changed twice in the batch holds its last change's price
    for (const change of [...changes].reverse()) {
      expect(change).toMatchObject({ entityType: 'PRODUCT', action: 'UPDATED', lastUpdateTime: clock.iso() });
      const event = events.get(change.eventID);
      expect(event).toMatchObject({ entityType: 'PRODUCT', entityID: change.id, action: 'UPDATED', timestamp: clock.iso() });
      kinds.add(event.info.changed);
      const product = after.get(change.id);
      expect(product.status).toBe('PUBLIC');
      expect(product.lastUpdateTime).toBe(clock.iso());
      if (event.info.changed === 'price') {
        const dimension = product.info.dimensions.find((d: any) => d.key === event.info.dimensionKey);
        const price = `${change.id}|${event.info.dimensionKey}|${event.info.currency}`;
        if (!latest.has(price)) expect(dimension.prices.find((p: any) => p.currency === event.info.currency).pricePerUnit).toBe(event.info.pricePerUnit);
        latest.add(price);
        expect(event.info.pricePerUnit).not.toBe(event.info.previousPricePerUnit);
        expect(event.title).toBe(`Price changed: ${product.name}`);
      } else {
        expect(event.info.changed).toBe('dimension');
        const added = product.info.dimensions.find((d: any) => d.key === event.info.dimensionKey);
        expect(added.prices.map((p: any) => p.currency)).toEqual(product.info.currencies);
        expect(event.title).toBe(`Dimension added: ${product.name}`);
      }
    }
    expect(kinds).toEqual(new Set(['price', 'dimension']));
    for (const product of after.values()) expect(product.info.dimensions.length).toBeLessThanOrEqual(4);
    // The retired product is never changed.
    expect(after.get('prod-000009')).toEqual(before.get('prod-000009'));
  });

  it('names the price a repricing replaced', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const before = new Map((await probe.records('products')).map((p) => [p.id, p]));
      const [change] = (await probe.control('POST', '/changes', { count: 1, kinds: ['product'] })).json.changes;
      const event = (await probe.records('notificationEvents')).find((e) => e.eventID === change.eventID);
      if (event.info.changed !== 'price') continue;
      const dimension = before.get(change.id).info.dimensions.find((d: any) => d.key === event.info.dimensionKey);
      expect(event.info.previousPricePerUnit).toBe(dimension.prices.find((p: any) => p.currency === event.info.currency).pricePerUnit);
      return;
    }
    throw new Error('twenty product changes and not one repricing');
  });
});

describe('commerce sandbox: products and held drafts in the journal', () => {
  it('comes back with a repriced product and a held, then published, draft as they were', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'commerce-products-'));
    const journalPath = path.join(dir, 'commerce.jsonl');
    const first = await startCommerceSandbox({ seed: 2, entitlements: 20, now: clock.now, journalPath });
    try {
      const api = probeSandbox(first);
      await api.control('POST', '/changes', { count: 6, kinds: ['product'] });
      const held = (await api.api('/org/org-1/draftOffer', { method: 'POST', body: { name: 'Kept "draft" \\ ü', productID: 'prod-000003', subStatus: 'DRAFT', info: { currency: 'GBP', commits: [{ key: 'pipelines', quantity: 2, price: 240 }] } } })).json;
      const published = (await api.api('/org/org-1/draftOffer', { method: 'POST', body: { name: 'Published', productID: 'prod-000007', buyerID: (await api.records('buyers')).find((b) => b.partner === 'cloudA').id, subStatus: 'DRAFT' } })).json;
      expect((await api.api('/org/org-1/offer', { method: 'POST', body: { id: published.id } })).status).toBe(200);
      const products = await api.records('products');
      const offers = await api.records('offers');
      await first.stop();
      const second = await startCommerceSandbox({ seed: 2, entitlements: 20, now: clock.now, journalPath });
      try {
        const again = probeSandbox(second);
        expect(await again.records('products')).toEqual(products);
        expect(await again.records('offers')).toEqual(offers);
        expect((await again.api(`/org/org-1/offer/${held.id}`)).json.subStatus).toBe('DRAFT');
        expect((await again.api(`/org/org-1/offer/${published.id}`)).json.subStatus).toBeUndefined();
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
