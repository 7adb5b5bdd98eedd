// The commerce client's product reads and a draft offer's life (issue #28, A18, A19), against the commerce
// sandbox over HTTP: products listed, by partner, queried, windowed by lastUpdateTime, got, their
// dimensions; a held draft updated, published, extended and cancelled, each refusal kept as the service
// said it (message and status).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommerceApiError, createCommerceClient, q, type CommerceClient } from '../../commerce/index.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-03-01T12:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let client: CommerceClient;
let buyerA: string;
const ORG = 'org-1';

async function collect<T>(pages: AsyncIterable<{ records: T[]; rejected: unknown[] }>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) {
    expect(page.rejected).toEqual([]);
    all.push(...page.records);
  }
  return all;
}

/** The error a call throws, for a look at its status, message and body. */
async function refusal(pending: Promise<unknown>): Promise<CommerceApiError> {
  const error = await pending.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CommerceApiError);
  return error as CommerceApiError;
}

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 4, entitlements: 12, now: clock.now });
  probe = probeSandbox(sandbox);
  client = createCommerceClient({ baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, retries: 2, minRetryDelayMs: 5, maxRetryDelayMs: 20 });
  buyerA = (await probe.records('buyers')).find((b) => b.partner === 'cloudA' && b.status === 'ACTIVE').id;
});
afterAll(() => sandbox.stop());

describe('commerce client: products', () => {
  it('lists, lists by partner and gets products, typed', async () => {
    const all = await collect(client.products.list(ORG, { limit: 4 }));
    expect(all.map((p) => p.id)).toEqual(['prod-000001', 'prod-000002', 'prod-000003', 'prod-000004', 'prod-000005', 'prod-000006', 'prod-000007', 'prod-000008', 'prod-000009']);
    expect((await collect(client.products.list(ORG, { status: 'DELETED' }))).map((p) => p.id)).toEqual(['prod-000009']);
    expect((await collect(client.products.byPartner(ORG, 'cloudB'))).map((p) => p.name)).toEqual(['Vault Backup', 'Harbor Containers']);
    const product = await client.products.get(ORG, 'prod-000007');
    expect(product).toMatchObject({ id: 'prod-000007', name: 'Beacon Identity', partner: 'cloudA', status: 'PUBLIC' });
    expect(product.info?.currencies).toEqual(['USD', 'EUR', 'GBP']);
  });

  it('reads a product\'s dimensions with their prices', async () => {
    const dimensions = await collect(client.products.dimensions(ORG, 'prod-000007'));
    expect(dimensions.map((d) => [d.key, d.type, d.prices])).toEqual([
      ['monthly_active_users', 'COMMIT', [{ currency: 'USD', pricePerUnit: 3 }, { currency: 'EUR', pricePerUnit: 2.8 }, { currency: 'GBP', pricePerUnit: 2.4 }]],
      ['sms_messages', 'METERED', [{ currency: 'USD', pricePerUnit: 0.05 }, { currency: 'EUR', pricePerUnit: 0.05 }, { currency: 'GBP', pricePerUnit: 0.04 }]],
    ]);
  });

  it('windows products by lastUpdateTime, resuming after the last id of a page, and sees a repriced product move to the end', async () => {
    const records = await probe.records('products');
    const from = new Date([...records].map((p) => p.lastUpdateTime).sort()[0]);
    const firstPass = await collect(client.products.window(ORG, { time: from }, { pageSize: 2 }));
    expect(firstPass.map((p) => p.id).sort()).toEqual(records.map((p) => p.id).sort());
    const last = firstPass.at(-1)!;
    clock.advance(120);
    const [change] = (await probe.control('POST', '/changes', { count: 1, kinds: ['product'] })).json.changes;
    const after = await collect(client.products.window(ORG, { time: new Date(last.lastUpdateTime as string), afterId: last.id }));
    expect(after.map((p) => [p.id, p.lastUpdateTime])).toEqual([[change.id, clock.iso()]]);
    // A query with q and s as the caller writes them; values with quotes and backslashes are escaped by q.
    const named = await collect(client.products.query(ORG, { q: q.or(q.eq('name', 'Pulse "Monitoring" \\ ü'), q.eq('name', 'Pulse Monitoring')).expression, s: '-id' }));
    expect(named.map((p) => p.id)).toEqual(['prod-000006']);
  });

  it('keeps the service\'s words for a product it does not know', async () => {
    const error = await refusal(client.products.get(ORG, 'prod-404'));
    expect(error.status).toBe(404);
    expect(error.message).toBe('product prod-404 not found (GET /org/{orgId}/product/{productId}, HTTP 404)');
  });
});

describe('commerce client: a draft offer\'s life', () => {
  const terms = {
    name: 'Beacon for Acme',
    productID: 'prod-000007',
    offerType: 'PRIVATE',
    info: { currency: 'GBP', commits: [{ key: 'monthly_active_users', quantity: 1000, price: 24 }], dimensions: [{ key: 'sms_messages', rate: 0.04 }], cloudAAgreementDuration: 'P12M' },
  };

  it('holds, updates and publishes a draft; then extends and cancels it once the buyer has it', async () => {
    const held = await client.offers.draft(ORG, terms, { hold: true });
    expect(held).toMatchObject({ status: 'PENDING_CREATE', subStatus: 'DRAFT', info: { currency: 'GBP' } });

    const updated = await client.offers.updateDraft(ORG, held.id, {
      buyerID: buyerA,
      info: { commits: [{ key: 'monthly_active_users', quantity: 1200, price: 24 }], paymentInstallments: [{ chargeDate: '2026-04-01T00:00:00Z', chargeAmount: 14_400 }, { chargeDate: '2026-10-01T00:00:00Z', chargeAmount: 14_400 }] },
    });
    expect(updated).toMatchObject({ id: held.id, subStatus: 'DRAFT', buyerID: buyerA, info: { commits: [{ quantity: 1200 }] } });

    const published = await client.offers.publish(ORG, held.id);
    expect(published.status).toBe('PENDING_CREATE');
    expect(published.subStatus).toBeUndefined();

    const early = await refusal(client.offers.extendExpiry(ORG, held.id, new Date('2026-06-30T00:00:00Z')));
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'FAILED_PRECONDITION', status: 'PENDING_CREATE' });

    for (let round = 0; round < 400 && (await client.offers.get(ORG, held.id)).status === 'PENDING_CREATE'; round++) {
      await probe.control('POST', '/changes', { count: 1, kinds: ['offerStatus'] });
    }
    expect((await client.offers.get(ORG, held.id)).status).toBe('PENDING_ACCEPTANCE');
    const extended = await client.offers.extendExpiry(ORG, held.id, new Date('2026-06-30T00:00:00Z'));
    expect(extended).toMatchObject({ status: 'PENDING_ACCEPTANCE', expireTime: '2026-06-30T00:00:00.000Z' });
    const cancelled = await client.offers.cancel(ORG, held.id);
    expect(cancelled.status).toBe('PENDING_CANCEL');
  });

  it('throws the service\'s message and status for a refused update, a second publish and a publish of no draft', async () => {
    const held = await client.offers.draft(ORG, { ...terms, buyerID: buyerA }, { hold: true });
    const currency = await refusal(client.offers.updateDraft(ORG, held.id, { info: { currency: 'JPY' } }));
    expect(currency.status).toBe(400);
    expect(currency.message).toBe('info.currency: product prod-000007 (Beacon Identity) is priced in USD, EUR, GBP, not in JPY; price the offer in one of those (POST /org/{orgId}/draftOffer, HTTP 400)');
    expect(currency.body).toMatchObject({ field: 'info.currency' });

    await client.offers.publish(ORG, held.id);
    clock.advance(61); // past the 60-second window in which a repeated publish gets the first answer (§8)
    const again = await refusal(client.offers.publish(ORG, held.id));
    expect(again.status).toBe(409);
    expect(again.message).toBe(`only a draft held for publishing (PENDING_CREATE, subStatus DRAFT) can be published; offer ${held.id} was published already and waits for the marketplace (POST /org/{orgId}/offer, HTTP 409)`);

    const cancelDraft = await client.offers.draft(ORG, { ...terms, buyerID: buyerA }, { hold: true });
    const cancel = await refusal(client.offers.cancel(ORG, cancelDraft.id));
    expect(cancel.status).toBe(409);
    expect(cancel.body).toMatchObject({ status: 'PENDING_CREATE' });
  });
});
