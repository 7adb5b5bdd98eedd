// Private offers from a HubSpot deal's line items and a Dynamics opportunity's products (issue #28
// section 2), end to end on real Temporal, real PostgreSQL, the production worker and the sandboxes, the
// same story as the Salesforce file (private-offer-products.test.ts): a deal / opportunity in euros with
// two products of one marketplace product becomes one held draft with both (COMMIT as a commit, METERED
// as a rate), in euros; the connection's approval rule (cosell.offerApproval on the deal property /
// opportunity column setup made) holds publication back until approved, then the offer is published once,
// with who and when on the record and in the audit trail; a changed quantity updates the held draft once; a new expiry and a cancel request reach an offer
// with the buyer; the commerce side's refusal and a line outside the catalogue show on the record; a record
// in a currency other than the organization's makes its draft in that currency.
// The catalogue's CRM products are made here as the catalogue sync leaves them (mappings/*/catalogue.ts),
// with setup's catalogue properties (HubSpot) and unit group (Dynamics), by the sellers of
// test/support/offer-sellers.ts. HubSpot's account has EUR beside its USD company currency, and the deals
// are in deal_currency_code EUR; the Dynamics organization's base currency is EUR, which an opportunity
// without a transaction currency is in, with USD beside it, which an opportunity names in its Currency
// (transactioncurrencyid).
// The two CRMs run at the same time (each its own sandboxes, database, worker and task queue); each CRM's
// cases run in order, as they count what one co-sell run did.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditStore } from '../../store/audit.ts';
import { createConnectionStore } from '../../store/connections.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { OFFER_APPROVAL_RULES, offerSeller, type OfferSeller } from '../support/offer-sellers.ts';
import { commerceDump, startProductionWorker, TEST_SECRET_BOX } from '../support/sync-harness.ts';

/** Quotes, a backslash and non-Latin text: an approver's name as the CRM may hold it. */
const APPROVER = `Zoë "Deal Desk" O'Brien \\ 佐藤`;
const SEATS = `Seats "annual" \\ 日本`;

/** The commerce field naming the record on the draft (contract §2.6). */
const META_FIELD = { hubspot: 'crmBDealId', dynamics: 'crmCOpportunityId' } as const;

describe.each(['hubspot', 'dynamics'] as const)('a private offer from a %s record\'s products', { concurrent: true }, (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  let seller: OfferSeller;
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
    sandboxes = await startSandboxesFor(kind, { entitlements: 8, seed: 67 }, { sandbox: kind === 'hubspot' ? { additionalCurrencies: ['EUR'] } : { baseCurrency: 'EUR', currencies: ['USD'], keyActivationMs: 50 } } as never);
    const made = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'contact', 'offer'] });
    connectionId = made.id;
    const settings = made.settings as ConnectionSettings;
    await createConnectionStore(database.pool, TEST_SECRET_BOX).update(connectionId, { settings: { ...settings, cosell: { ...settings.cosell, offerApproval: OFFER_APPROVAL_RULES[kind] } } });
    worker = await startProductionWorker(database, { taskQueue });
    await run(WORKFLOW_TYPES.incrementalSync);
    const account = (await sandboxes.crm.accounts())[0]!;
    buyerId = account.buyerId;
    seller = await offerSeller(sandboxes.crm, account.id, kind === 'hubspot' ? { currency: 'EUR' } : { priceListCurrencies: ['EUR'] });

    const products = await commerceDump(sandboxes.commerce, 'products');
    const chosen = products.find((row) => row.status === 'PUBLIC' && row.info?.currencies?.includes('EUR') && row.info.currencies.includes('USD') && row.info.dimensions.some((d: any) => d.type === 'COMMIT') && row.info.dimensions.some((d: any) => d.type === 'METERED'))!;
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

  describe('in order', { concurrent: false }, () => {
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

    it('a record in a currency other than the organization\'s makes its draft in that currency', async () => {
      // HubSpot: a deal in euros where the company currency is the US dollar; Dynamics: an opportunity in US
      // dollars (its transaction currency) where the organization's base currency is the euro.
      const other = kind === 'hubspot' ? 'EUR' : 'USD';
      const id = await seller.opportunity(`Acme analytics in ${other}`, [[crmProducts.commit, 12, 30]], { currency: other });
      expect(await cosell()).toMatchObject({ created: 1, refused: 0 });
      const [draft, ...others] = await offersOf(id);
      expect(others).toEqual([]);
      expect(draft.info).toMatchObject({ currency: other, commits: [{ key: product.commitKey, quantity: 12, price: 30 }] });
      expect((await seller.record(id)).offerId).toBe(draft.id);
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
      const id = await seller.opportunity('Acme analytics, extend then cancel', [[crmProducts.commit, 5, 40]], { approved: true });
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
});
