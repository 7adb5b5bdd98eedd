// Private offers from a HubSpot deal's line items and a Dynamics opportunity's products (issue #28
// section 2), end to end on real Temporal, real PostgreSQL, the production worker and the sandboxes, the
// same story as the Salesforce file (private-offer-products.test.ts): a deal / opportunity in euros with
// two products of one marketplace product becomes one held draft with both (COMMIT as a commit, METERED
// as a rate), in euros; the connection's approval rule (cosell.offerApproval on the deal property /
// opportunity column setup made) holds publication back until approved, then the offer is published once,
// with who and when on the record and in the audit trail; a changed quantity updates the held draft once; a new expiry and a cancel request reach an offer
// with the buyer; the commerce side's refusal and a line outside the catalogue show on the record.
// The catalogue's CRM products are made here as the catalogue sync leaves them (mappings/*/catalogue.ts),
// with setup's catalogue properties (HubSpot) and unit group (Dynamics). HubSpot's account has EUR beside
// its USD company currency, and the deal is in deal_currency_code EUR; the Dynamics organization's base
// currency is EUR, which an opportunity without a transaction currency is in (the sandbox's opportunity has
// no transactioncurrencyid).
import { Client as HubSpotClient } from '@hubspot/api-client';
import { Client } from '@temporalio/client';
import { DynamicsWebApi } from 'dynamics-web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpDynamicsCatalogue } from '../../crm/dynamics/catalogue-setup.ts';
import { dynamicsCredentials } from '../../crm/dynamics/connector.ts';
import { createDynamicsTransport } from '../../crm/dynamics/transport.ts';
import { setUpHubSpotCatalogue } from '../../crm/hubspot/catalogue-setup.ts';
import { createHubSpotTransport } from '../../crm/hubspot/transport.ts';
import type { DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import type { HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { createAuditStore } from '../../store/audit.ts';
import { createConnectionStore } from '../../store/connections.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, startProductionWorker, TEST_SECRET_BOX } from '../support/sync-harness.ts';

/** Quotes, a backslash and non-Latin text: an approver's name as the CRM may hold it. */
const APPROVER = `Zoë "Deal Desk" O'Brien \\ 佐藤`;
const SEATS = `Seats "annual" \\ 日本`;

/** What a seller does in one CRM, in its own client library (not the connector's code). */
type Seller = {
  /** The catalogue's CRM product of one dimension (the catalogue sync's keys), or one outside it. */
  product(name: string, keys?: { productId: string; dimensionKey: string }): Promise<string>;
  /** A record in euros asking for a private offer, not approved yet, with lines [product, quantity, unit price]. */
  opportunity(name: string, lines: [string, number, number][], approved?: boolean): Promise<string>;
  /**
   * A line's quantity changed, and the record with it: HubSpot's line item editor updates the deal's amount;
   * on Dynamics the seller saves the opportunity (its estimated revenue), which the worker sees (docs/cosell.md).
   */
  changeQuantity(id: string, product: string, quantity: number, amount: number): Promise<void>;
  approve(id: string, by: string): Promise<void>;
  newExpiry(id: string, day: string): Promise<void>;
  cancel(id: string): Promise<void>;
  /** The record's offer id, Approved At and draft errors as stored. */
  record(id: string): Promise<{ offerId?: string; approvedAt?: string; errors?: string }>;
};

/** The rule each connection saves, on the fields setup made; Dynamics names the choice by its label. */
const RULES = {
  hubspot: { field: 'offer_approval_status', approvedValue: 'Approved', approvedByField: 'offer_approved_by' },
  dynamics: { field: 'ccs_offerapprovalstatus', approvedValue: 'Approved', approvedByField: 'ccs_offerapprovedby' },
} as const;
/** The commerce field naming the record on the draft (contract §2.6). */
const META_FIELD = { hubspot: 'crmBDealId', dynamics: 'crmCOpportunityId' } as const;

const list = (body: any): any[] => (Array.isArray(body) ? body : (body.records ?? body.value ?? body.results));

async function hubspotSeller(sandbox: HubSpotSandbox, companyId: string): Promise<Seller> {
  const client = new HubSpotClient({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  await setUpHubSpotCatalogue(createHubSpotTransport({ baseUrl: sandbox.baseUrl, credentials: { auth: 'private-app', accessToken: sandbox.accessToken } }), { created: [], present: [], problems: [] });
  const pipelines = await client.crm.pipelines.pipelinesApi.getAll('deals');
  const seller = pipelines.results.find((pipeline) => pipeline.label === 'Sales Pipeline')!;
  const stored = async (id: string) => list(await hubspotControl(sandbox, 'GET', '/records/deals')).find((deal) => String(deal.id) === id)!.properties;
  /** Each deal's line item of each product. */
  const lineOf = new Map<string, string>();
  return {
    async product(name, keys) {
      const properties: Record<string, string> = { name, price: '1' };
      if (keys) Object.assign(properties, { commerce_product_id: keys.productId, commerce_dimension_key: keys.dimensionKey, commerce_price_key: `${keys.productId}|${keys.dimensionKey}` });
      return (await client.crm.products.basicApi.create({ properties, associations: [] })).id;
    },
    async opportunity(name, lines, approved = false) {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: name, pipeline: seller.id, dealstage: seller.stages[0]!.id, closedate: '2027-03-31T00:00:00.000Z', deal_currency_code: 'EUR', private_offer_requested: 'true', offer_approval_status: approved ? 'Approved' : 'Pending' },
        associations: [],
      });
      await client.crm.associations.v4.batchApi.createDefault('deals', 'companies', { inputs: [{ _from: { id: deal.id }, to: { id: companyId } }] });
      for (const [product, quantity, price] of lines) {
        const line = await client.crm.lineItems.basicApi.create({ properties: { hs_product_id: product, quantity: String(quantity), price: String(price), hs_line_item_currency_code: 'EUR' }, associations: [] });
        await client.crm.associations.v4.batchApi.createDefault('line_items', 'deals', { inputs: [{ _from: { id: line.id }, to: { id: deal.id } }] });
        lineOf.set(`${deal.id}:${product}`, line.id);
      }
      return deal.id;
    },
    async changeQuantity(id, product, quantity, amount) {
      await client.crm.lineItems.basicApi.update(lineOf.get(`${id}:${product}`)!, { properties: { quantity: String(quantity) } });
      await client.crm.deals.basicApi.update(id, { properties: { amount: String(amount) } });
    },
    approve: async (id, by) => void (await client.crm.deals.basicApi.update(id, { properties: { offer_approval_status: 'Approved', offer_approved_by: by } })),
    newExpiry: async (id, day) => void (await client.crm.deals.basicApi.update(id, { properties: { offer_new_expiry_date: day } })),
    cancel: async (id) => void (await client.crm.deals.basicApi.update(id, { properties: { offer_cancel_requested: 'true' } })),
    async record(id) {
      const deal = await stored(id);
      return { offerId: deal.commerce_offer_id || undefined, approvedAt: deal.offer_approved_at || undefined, errors: deal.cosell_draft_errors || undefined };
    },
  };
}

async function dynamicsSeller(sandbox: DynamicsSandbox, accountId: string): Promise<Seller> {
  const transport = createDynamicsTransport({ orgUrl: sandbox.orgUrl, credentials: dynamicsCredentials({ orgUrl: sandbox.orgUrl, authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId }, { crmClientSecret: sandbox.clientSecret }) });
  const report = { created: [] as string[], present: [] as string[], problems: [] as string[], notes: [] as string[] };
  const catalogue = await setUpDynamicsCatalogue(transport, report, { priceBook: 'Commerce Marketplace Products', currencies: ['EUR'], keyWaitMs: 10_000 });
  expect(report.problems).toEqual([]);
  const scope = `${new URL(sandbox.orgUrl).origin}/.default`;
  const token = async () => {
    const response = await fetch(sandbox.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret, scope }) });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const api = new DynamicsWebApi({ serverUrl: sandbox.orgUrl, onTokenRefresh: token, propagateErrors: true });
  const update = (id: string, data: Record<string, unknown>) => api.update({ collection: 'opportunities', key: id, data });
  let numbers = 0;
  /** Each opportunity's product line of each product. */
  const lineOf = new Map<string, string>();
  return {
    async product(name, keys) {
      const data: Record<string, unknown> = {
        name,
        productnumber: `test-${++numbers}`,
        quantitydecimal: 2,
        'defaultuomscheduleid@odata.bind': `/uomschedules(${catalogue.unitGroupId})`,
        'defaultuomid@odata.bind': `/uoms(${catalogue.baseUnitId})`,
        ...(keys && { ccs_commerceproductid: keys.productId, ccs_dimensionkey: keys.dimensionKey }),
      };
      return String(await api.create({ collection: 'products', data })).toLowerCase();
    },
    async opportunity(name, lines, approved = false) {
      const id = String(
        await api.create({
          collection: 'opportunities',
          data: { name, 'parentaccountid@odata.bind': `/accounts(${accountId})`, estimatedclosedate: '2027-03-31', ccs_privateofferrequested: true, ccs_offerapprovalstatus: approved ? 100_000_001 : 100_000_000 },
        }),
      ).toLowerCase();
      for (const [product, quantity, price] of lines) {
        const line = await api.create({
          collection: 'opportunityproducts',
          data: { 'opportunityid@odata.bind': `/opportunities(${id})`, 'productid@odata.bind': `/products(${product})`, 'uomid@odata.bind': `/uoms(${catalogue.baseUnitId})`, quantity, priceperunit: price, ispriceoverridden: true },
        });
        lineOf.set(`${id}:${product}`, String(line));
      }
      return id;
    },
    async changeQuantity(id, product, quantity, amount) {
      await api.update({ collection: 'opportunityproducts', key: lineOf.get(`${id}:${product}`)!, data: { quantity } });
      await update(id, { estimatedvalue: amount });
    },
    approve: async (id, by) => void (await update(id, { ccs_offerapprovalstatus: 100_000_001, ccs_offerapprovedby: by })),
    newExpiry: async (id, day) => void (await update(id, { ccs_offernewexpirydate: day })),
    cancel: async (id) => void (await update(id, { ccs_offercancelrequested: true })),
    async record(id) {
      const row = list(await dynamicsControl(sandbox, 'GET', '/records/opportunity')).find((opportunity) => opportunity.opportunityid === id)!;
      return { offerId: row.ccs_commerceofferid || undefined, approvedAt: row.ccs_offerapprovedat || undefined, errors: row.ccs_coselldrafterrors || undefined };
    },
  };
}

describe.each(['hubspot', 'dynamics'] as const)('a private offer from a %s record\'s products', (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  let seller: Seller;
  let buyerId: string;
  /** A marketplace product with a COMMIT and a METERED dimension, priced in euros (the commerce sandbox's catalogue, A18). */
  let product: { id: string; commitKey: string; meteredKey: string };
  /** The CRM's catalogue products: the COMMIT dimension's, the METERED one's, and one outside the catalogue. */
  const crmProducts: Record<'commit' | 'metered' | 'workshop', string> = { commit: '', metered: '', workshop: '' };
  const taskQueue = `offer-products-${kind}-${Date.now()}`;
  const run = (type: string): Promise<any> =>
    new Client({ connection: worker.connection }).workflow.execute(type, { taskQueue, workflowId: `offer-products-${kind}-${type}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, args: [{ connectionId }] });
  const offersOf = async (id: string) => (await commerceDump(sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.[META_FIELD[kind]] === id);
  const calls = async () => ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> }).operations;
  const cosell = async () => (await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer'];
  const auditOf = async (id: string) => (await createAuditStore(database.pool).list({ connectionId, limit: 50 })).events.filter((event) => event.target?.endsWith(` ${id}`));

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 8, seed: 67 }, { sandbox: kind === 'hubspot' ? { additionalCurrencies: ['EUR'] } : { baseCurrency: 'EUR', keyActivationMs: 50 } } as never);
    const made = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'contact', 'offer'] });
    connectionId = made.id;
    const settings = made.settings as ConnectionSettings;
    await createConnectionStore(database.pool, TEST_SECRET_BOX).update(connectionId, { settings: { ...settings, cosell: { ...settings.cosell, offerApproval: RULES[kind] } } });
    worker = await startProductionWorker(database, { taskQueue });
    await run(WORKFLOW_TYPES.incrementalSync);
    const account = (await sandboxes.crm.accounts())[0]!;
    buyerId = account.buyerId;
    seller = kind === 'hubspot' ? await hubspotSeller(sandboxes.crm.hubspot!, account.id) : await dynamicsSeller(sandboxes.crm.dynamics!, account.id);

    const products = await commerceDump(sandboxes.commerce, 'products');
    const chosen = products.find((row) => row.status === 'PUBLIC' && row.info?.currencies?.includes('EUR') && row.info.dimensions.some((d: any) => d.type === 'COMMIT') && row.info.dimensions.some((d: any) => d.type === 'METERED'))!;
    product = { id: chosen.id, commitKey: chosen.info.dimensions.find((d: any) => d.type === 'COMMIT').key, meteredKey: chosen.info.dimensions.find((d: any) => d.type === 'METERED').key };
    crmProducts.commit = await seller.product(SEATS, { productId: product.id, dimensionKey: product.commitKey });
    crmProducts.metered = await seller.product('Usage per unit', { productId: product.id, dimensionKey: product.meteredKey });
    crmProducts.workshop = await seller.product('Onboarding workshop');
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('two products become one held draft with both, in euros; approval publishes it once, with who and when', async () => {
    const id = await seller.opportunity('Acme analytics, two products', [
      [crmProducts.commit, 25, 35],
      [crmProducts.metered, 1, 0.45],
    ]);
    expect(await cosell()).toMatchObject({ created: 1, refused: 0 });
    const [draft, ...others] = await offersOf(id);
    expect(others).toEqual([]);
    expect(draft).toMatchObject({ productID: product.id, buyerID: buyerId, status: 'PENDING_CREATE', subStatus: 'DRAFT', expireTime: '2027-03-31T23:59:59.000Z' });
    expect(draft.info).toMatchObject({ currency: 'EUR', commits: [{ key: product.commitKey, quantity: 25, price: 35 }], dimensions: [{ key: product.meteredKey, rate: 0.45 }] });
    expect(draft.info.commitAmount).toBeUndefined();
    expect((await seller.record(id)).offerId).toBe(draft.id);

    // Not approved yet: nothing is published, however often co-sell runs.
    await cosell();
    expect((await offersOf(id)).map((offer) => offer.subStatus)).toEqual(['DRAFT']);

    await seller.approve(id, APPROVER);
    expect(await cosell()).toMatchObject({ advanced: 1, created: 0 });
    const [published, ...more] = await offersOf(id);
    expect(more).toEqual([]);
    expect(published.id).toBe(draft.id);
    expect(published.subStatus).toBeUndefined();
    const record = await seller.record(id);
    // The publication's stamp, to the second.
    expect(Math.floor(Date.parse(record.approvedAt!) / 1000)).toBe(Math.floor(Date.parse(published.lastUpdateTime) / 1000));
    expect(record.errors).toBeUndefined();
    expect((await auditOf(id)).map((event) => [event.action, event.actorLabel])).toEqual([
      ['offer-published', 'worker'],
      ['offer-approved', APPROVER],
    ]);

    // Our own write-back, read back, is no news: no second publication.
    const publishes = (await calls())['POST /org/{orgId}/offer'];
    await cosell();
    expect((await calls())['POST /org/{orgId}/offer']).toBe(publishes);
  }, 60_000);

  it('a changed quantity updates the held draft once, never a second offer', async () => {
    const id = await seller.opportunity('Acme analytics, more seats', [[crmProducts.commit, 10, 36]]);
    await cosell();
    const [draft] = await offersOf(id);
    await seller.changeQuantity(id, crmProducts.commit, 40, 1440);
    expect(await cosell()).toMatchObject({ advanced: 1, created: 0 });
    const offers = await offersOf(id);
    expect(offers.map((offer) => offer.id)).toEqual([draft.id]);
    expect(offers[0].info.commits).toEqual([{ key: product.commitKey, quantity: 40, price: 36 }]);
    expect(offers[0].subStatus).toBe('DRAFT');
    const updates = (await calls())['POST /org/{orgId}/draftOffer'];
    await cosell();
    expect((await calls())['POST /org/{orgId}/draftOffer']).toBe(updates);
  }, 60_000);

  it('a new expiry extends an offer with the buyer, a cancel request cancels it', async () => {
    const id = await seller.opportunity('Acme analytics, extend then cancel', [[crmProducts.commit, 5, 40]], true);
    await cosell();
    const [offer] = await offersOf(id);
    expect(offer.subStatus).toBeUndefined();
    // The marketplace moves it to the buyer (PENDING_ACCEPTANCE with its marketplace id), as the change driver would.
    const { subStatus: _held, ...rest } = offer;
    const moved = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/offers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ ...rest, status: 'PENDING_ACCEPTANCE', externalID: `mkt-${offer.id}`, lastUpdateTime: new Date().toISOString() }] }) });
    expect(moved.ok).toBe(true);

    await seller.newExpiry(id, '2027-06-30');
    expect(await cosell()).toMatchObject({ advanced: 1, refused: 0 });
    expect((await offersOf(id))[0]).toMatchObject({ status: 'PENDING_ACCEPTANCE', expireTime: '2027-06-30T23:59:59.000Z' });

    await seller.cancel(id);
    expect(await cosell()).toMatchObject({ advanced: 1, refused: 0 });
    const [cancelled, ...more] = await offersOf(id);
    expect(more).toEqual([]);
    expect(cancelled.status).toBe('PENDING_CANCEL');
    // Approved when it was made (no approver named: the worker's row), newest first.
    expect((await auditOf(id)).map((event) => event.action)).toEqual(['offer-cancelled', 'offer-extended', 'offer-published', 'offer-approved']);
  }, 60_000);

  it('the commerce side\'s refusal and a line outside the catalogue show on the record', async () => {
    // A cancel request on a draft the buyer has not got: 409 naming PENDING_CREATE (A19).
    const held = await seller.opportunity('Acme analytics, cancelled too early', [[crmProducts.commit, 5, 40]]);
    await cosell();
    await seller.cancel(held);
    expect(await cosell()).toMatchObject({ refused: 1 });
    expect((await seller.record(held)).errors).toMatch(/^the marketplace refused the change to offer .+: .*PENDING_CREATE.*\(POST \/org\/\{orgId\}\/offer\/\{offerId\}\/cancel, HTTP 409\)$/);
    expect((await offersOf(held)).map((offer) => offer.status)).toEqual(['PENDING_CREATE']);

    const workshop = await seller.opportunity('Acme analytics with a workshop', [[crmProducts.commit, 5, 40], [crmProducts.workshop, 1, 900]]);
    await cosell();
    expect((await seller.record(workshop)).errors).toBe(
      `products: "Onboarding workshop" is not from the marketplace catalogue (no Commerce Product Id and Commerce Dimension Key on the product); replace it with the catalogue's products`,
    );
    expect(await offersOf(workshop)).toEqual([]);
  }, 60_000);
});
