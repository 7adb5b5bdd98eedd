// A draft offer's life in the commerce sandbox (issue #28, A19): held with subStatus DRAFT and left alone
// by the change driver, updated with dimensions, commits, installments and a duration in a currency the
// product is priced in, published by POST {O}/offer with its id, then moved on by the marketplace
// (PENDING_ACCEPTANCE with an externalID, ACCEPTED or EXPIRED); extend and cancel by §3's statuses; and
// every refusal with its field and words. Plain fetch through the sandbox probe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-03-01T12:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let buyerA: string;

const post = (path: string, body: unknown) => probe.api(`/org/org-1${path}`, { method: 'POST', body });
const offer = async (id: string) => (await probe.api(`/org/org-1/offer/${id}`)).json;
const eventsOf = async (id: string) => (await probe.records('notificationEvents')).filter((e) => e.entityID === id);

/** Insight Analytics (prod-000001, marketplace A): analyst_seats COMMIT at 37 EUR, queries_million METERED. */
const heldDraft = (extra: Record<string, unknown> = {}) => ({
  name: 'Acme "EU" rollout \\ Größe',
  productID: 'prod-000001',
  buyerID: buyerA,
  subStatus: 'DRAFT',
  expireTime: '2026-04-30T23:59:59.000Z',
  info: {
    currency: 'EUR',
    commits: [{ key: 'analyst_seats', quantity: 10, price: 370 }],
    dimensions: [{ key: 'queries_million', rate: 0.4 }],
    paymentInstallments: [
      { chargeDate: '2026-04-01T00:00:00Z', chargeAmount: 1850 },
      { chargeDate: '2027-04-01T00:00:00Z', chargeAmount: 1850, currency: 'EUR' },
    ],
    cloudAAgreementDuration: 'P24M',
  },
  metaInfo: { crmAOpportunityId: '006DRAFTLIFE000001' },
  ...extra,
});

/** Moves offers on with the change kind offerStatus until `id` leaves `status` (a bounded number of changes). */
async function driveUntilMoved(id: string, status: string) {
  for (let round = 0; round < 400; round++) {
    await probe.control('POST', '/changes', { count: 1, kinds: ['offerStatus'] });
    const current = await offer(id);
    if (current.status !== status) return current;
  }
  throw new Error(`offer ${id} stayed ${status} through 400 offer moves`);
}

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 11, entitlements: 12, now: clock.now });
  probe = probeSandbox(sandbox);
  buyerA = (await probe.records('buyers')).find((b) => b.partner === 'cloudA' && b.status === 'ACTIVE').id;
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: a draft held, updated and published (A19)', () => {
  it('holds a draft until it is published, then the marketplace moves it on: PENDING_ACCEPTANCE with an externalID, then accepted or expired', async () => {
    const created = await post('/draftOffer', heldDraft());
    expect(created.status, created.text).toBe(200);
    const id = created.json.id;
    expect(created.json).toMatchObject({ status: 'PENDING_CREATE', subStatus: 'DRAFT', partner: 'cloudA', name: 'Acme "EU" rollout \\ Größe', info: { currency: 'EUR', cloudAAgreementDuration: 'P24M' } });
    expect(created.json.externalID).toBeUndefined();
    expect((await eventsOf(id)).map((e) => [e.action, e.title])).toEqual([['CREATED', 'Draft offer saved: Acme "EU" rollout \\ Größe']]);

    // The change driver moves PENDING_CREATE offers on, but never a held draft.
    const moved = await probe.control('POST', '/changes', { count: 60, kinds: ['offerStatus'] });
    expect(moved.json.changes.length).toBeGreaterThan(0);
    expect(moved.json.changes.map((c: any) => c.id)).not.toContain(id);
    expect(await offer(id)).toMatchObject({ status: 'PENDING_CREATE', subStatus: 'DRAFT' });

    // An update (the seller changed the quantity): the commits and the installments are replaced, the draft stays held.
    clock.advance(30);
    const updated = await post('/draftOffer', { id, info: { commits: [{ key: 'analyst_seats', quantity: 12, price: 370 }], paymentInstallments: [{ chargeDate: '2026-04-01T00:00:00Z', chargeAmount: 2220 }, { chargeDate: '2027-04-01T00:00:00Z', chargeAmount: 2220 }] } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ id, status: 'PENDING_CREATE', subStatus: 'DRAFT', lastUpdateTime: clock.iso(), info: { currency: 'EUR', commits: [{ key: 'analyst_seats', quantity: 12, price: 370 }], dimensions: [{ key: 'queries_million', rate: 0.4 }] } });
    expect(updated.json.info.paymentInstallments.map((i: any) => i.chargeAmount)).toEqual([2220, 2220]);

    // Publishing sends it: subStatus goes, it waits for the marketplace in PENDING_CREATE.
    clock.advance(30);
    const published = await post('/offer', { id });
    expect(published.status, published.text).toBe(200);
    expect(published.json).toMatchObject({ id, status: 'PENDING_CREATE', lastUpdateTime: clock.iso() });
    expect(published.json.subStatus).toBeUndefined();
    const publishedEvent = (await eventsOf(id)).at(-1);
    expect(publishedEvent).toMatchObject({ action: 'UPDATED', entityStatus: 'PENDING_CREATE', title: 'Offer published: Acme "EU" rollout \\ Größe', info: { changed: 'published', previousSubStatus: 'DRAFT' } });

    const created2 = await driveUntilMoved(id, 'PENDING_CREATE');
    expect(created2.status).toBe('PENDING_ACCEPTANCE');
    expect(created2.externalID).toMatch(/^offer-/);
    expect((await probe.api(`/org/org-1/offerExternalId/${created2.externalID}`)).json.id).toBe(id);

    const decided = await driveUntilMoved(id, 'PENDING_ACCEPTANCE');
    expect(['ACCEPTED', 'EXPIRED']).toContain(decided.status);
  });

  it('sends a draft made without subStatus at once, as before: the marketplace moves it on', async () => {
    const sent = await post('/draftOffer', { name: 'Sent at once', productID: 'prod-000002', info: { commitAmount: 500, currency: 'GBP' } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json.subStatus).toBeUndefined();
    expect((await driveUntilMoved(sent.json.id, 'PENDING_CREATE')).status).toBe('PENDING_ACCEPTANCE');
  });

  it('answers a publish repeated within 60 s with the first answer (§8), and 409 naming the status after that', async () => {
    const id = (await post('/draftOffer', heldDraft())).json.id;
    const first = await post('/offer', { id });
    const again = await post('/offer', { id });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    clock.advance(61);
    const late = await post('/offer', { id });
    expect(late.status).toBe(409);
    expect(late.json).toEqual({ code: 'FAILED_PRECONDITION', status: 'PENDING_CREATE', message: `only a draft held for publishing (PENDING_CREATE, subStatus DRAFT) can be published; offer ${id} was published already and waits for the marketplace` });
  });

  it('refuses to publish an offer that is not a held draft (409 with its status), an unknown id (404) and a draft without a buyer', async () => {
    // A generated offer the buyer has (or had): ACCEPTED, ACTIVE, USED, EXPIRED...
    const accepted = (await probe.records('offers')).find((o) => !o.status.startsWith('PENDING_'));
    const refused = await post('/offer', { id: accepted.id });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ code: 'FAILED_PRECONDITION', status: accepted.status, message: `only a draft held for publishing (PENDING_CREATE, subStatus DRAFT) can be published; offer ${accepted.id} is ${accepted.status}` });
    // Fields sent along with a publish are not merged into an offer that is no held draft either.
    const withFields = await post('/offer', { id: accepted.id, name: 'renamed' });
    expect(withFields.status).toBe(409);
    expect((await offer(accepted.id)).name).toBe(accepted.name);

    const unknown = await post('/offer', { id: 'offer-999999' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toBe('offer offer-999999 not found');

    const noBuyer = (await post('/draftOffer', heldDraft({ buyerID: undefined }))).json;
    const unbought = await post('/offer', { id: noBuyer.id });
    expect(unbought.status).toBe(409);
    expect(unbought.json).toEqual({ code: 'FAILED_PRECONDITION', status: 'PENDING_CREATE', message: `offer ${noBuyer.id} has no buyerID; a private offer is published to one buyer: set buyerID with POST draftOffer first` });
    // A refused publish changes nothing, not even the fields sent with it.
    const renamed = await post('/offer', { id: noBuyer.id, name: 'Renamed' });
    expect(renamed.status).toBe(409);
    expect(await offer(noBuyer.id)).toEqual(noBuyer);
    // Publishing with the buyer in the same body merges it, then publishes: one event for the two.
    const before = (await eventsOf(noBuyer.id)).length;
    const fixed = await post('/offer', { id: noBuyer.id, buyerID: buyerA });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.json).toMatchObject({ buyerID: buyerA, status: 'PENDING_CREATE' });
    expect((await eventsOf(noBuyer.id)).length).toBe(before + 1);
  });
});

describe('commerce sandbox: extend and cancel through a draft\'s life (§3, A9)', () => {
  it('refuses both while the offer is a draft, allows both once the buyer has it, and refuses updates then', async () => {
    const id = (await post('/draftOffer', heldDraft())).json.id;
    const cancelHeld = await post(`/offer/${id}/cancel`, {});
    expect(cancelHeld.status).toBe(409);
    expect(cancelHeld.json).toMatchObject({ code: 'FAILED_PRECONDITION', status: 'PENDING_CREATE' });
    const extendHeld = await post(`/offer/${id}/extendExpiryDate`, { expireTime: '2026-06-30T00:00:00Z' });
    expect(extendHeld.status).toBe(409);
    expect(extendHeld.json).toMatchObject({ code: 'FAILED_PRECONDITION', status: 'PENDING_CREATE' });

    await post('/offer', { id });
    expect((await driveUntilMoved(id, 'PENDING_CREATE')).status).toBe('PENDING_ACCEPTANCE');
    const extended = await post(`/offer/${id}/extendExpiryDate`, { expireTime: '2026-06-30T00:00:00Z' });
    expect(extended.status, extended.text).toBe(200);
    expect(extended.json).toMatchObject({ status: 'PENDING_ACCEPTANCE', expireTime: '2026-06-30T00:00:00.000Z' });
    const update = await post('/draftOffer', { id, name: 'Too late' });
    expect(update.status).toBe(409);
    expect(update.json).toMatchObject({ code: 'FAILED_PRECONDITION', status: 'PENDING_ACCEPTANCE' });
    const cancelled = await post(`/offer/${id}/cancel`, {});
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json.status).toBe('PENDING_CANCEL');
  });
});

describe('commerce sandbox: a draft refused, with its field and words (A19)', () => {
  const refusal = async (body: unknown, path = '/draftOffer') => {
    const response = await post(path, body);
    expect(response.status, response.text).toBe(400);
    return response.json;
  };
  const withInfo = (info: Record<string, unknown>, extra: Record<string, unknown> = {}) => heldDraft({ info: { ...heldDraft().info, ...info }, ...extra });

  it('refuses an unknown product and a DELETED one', async () => {
    expect(await refusal(heldDraft({ productID: 'prod-"x\\ü' }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'productID', message: 'productID must name an existing product, got "prod-\\"x\\\\ü"' });
    expect(await refusal(heldDraft({ productID: 'prod-000009', info: {} }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'productID', message: 'productID: product prod-000009 (Ledger Reports Classic) is DELETED; an offer is made on a listed product' });
  });

  it('refuses a dimension the product does not have, and one of the other kind', async () => {
    expect(await refusal(withInfo({ commits: [{ key: 'seats "x" \\ ü', quantity: 1, price: 1 }], paymentInstallments: undefined }))).toEqual({
      code: 'INVALID_ARGUMENT', field: 'info.commits[0].key', message: 'info.commits[0].key: product prod-000001 (Insight Analytics) has no dimension "seats \\"x\\" \\\\ ü"; its dimensions are analyst_seats, queries_million, storage_gb',
    });
    expect(await refusal(withInfo({ dimensions: [{ key: 'analyst_seats', rate: 1 }] }))).toEqual({
      code: 'INVALID_ARGUMENT', field: 'info.dimensions[0].key', message: 'info.dimensions[0].key: dimension analyst_seats of product prod-000001 (Insight Analytics) is bought up front; price it in info.commits',
    });
    expect(await refusal(withInfo({ commits: [{ key: 'storage_gb', quantity: 1, price: 1 }], paymentInstallments: undefined }))).toMatchObject({ field: 'info.commits[0].key', message: expect.stringContaining('is metered usage; price it in info.dimensions') });
    expect(await refusal(withInfo({ dimensions: [{ key: 'queries_million', rate: 1 }, { key: 'queries_million', rate: 2 }] }))).toMatchObject({ field: 'info.dimensions[1].key', message: 'info.dimensions[1].key: dimension "queries_million" is named twice; name each dimension once' });
  });

  it('refuses a currency the product is not priced in, and one that is no ISO 4217 code', async () => {
    expect(await refusal(withInfo({ currency: 'JPY', paymentInstallments: undefined }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'info.currency', message: 'info.currency: product prod-000001 (Insight Analytics) is priced in USD, EUR, not in JPY; price the offer in one of those' });
    expect(await refusal(withInfo({ currency: 'euro' }))).toMatchObject({ field: 'info.currency', message: 'info.currency must be an ISO 4217 code of three capital letters such as USD, got "euro"' });
    // Without a currency the offer is in USD (§2), which Vault Backup is priced in; EUR it is not.
    const vault = { name: 'Vault', productID: 'prod-000002', subStatus: 'DRAFT', info: { commits: [{ key: 'protected_tb', quantity: 4, price: 300 }] } };
    expect((await post('/draftOffer', vault)).status).toBe(200);
    expect(await refusal({ ...vault, info: { ...vault.info, currency: 'EUR' } })).toMatchObject({ field: 'info.currency', message: 'info.currency: product prod-000002 (Vault Backup) is priced in USD, not in EUR; price the offer in one of those' });
  });

  it('refuses a negative price, rate or quantity, and a quantity that is not whole', async () => {
    expect(await refusal(withInfo({ commits: [{ key: 'analyst_seats', quantity: 10, price: -370 }], paymentInstallments: undefined }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'info.commits[0].price', message: 'info.commits[0].price must be a price per unit of at least 0, got -370' });
    expect(await refusal(withInfo({ dimensions: [{ key: 'queries_million', rate: -0.4 }] }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'info.dimensions[0].rate', message: 'info.dimensions[0].rate must be a price per unit of at least 0, got -0.4' });
    expect(await refusal(withInfo({ commits: [{ key: 'analyst_seats', quantity: -3, price: 370 }], paymentInstallments: undefined }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'info.commits[0].quantity', message: 'info.commits[0].quantity must be a whole number of units of at least 0, got -3' });
    expect(await refusal(withInfo({ commits: [{ key: 'analyst_seats', quantity: 2.5, price: 370 }], paymentInstallments: undefined }))).toMatchObject({ field: 'info.commits[0].quantity' });
    expect(await refusal(withInfo({ commitAmount: -1 }))).toMatchObject({ field: 'info.commitAmount', message: 'info.commitAmount must be an amount of at least 0, got -1' });
  });

  it('refuses installments that do not add up to the total, have no total, or are in another currency', async () => {
    expect(await refusal(withInfo({ paymentInstallments: [{ chargeDate: '2026-04-01T00:00:00Z', chargeAmount: 1850 }, { chargeDate: '2027-04-01T00:00:00Z', chargeAmount: 1000 }] }))).toEqual({
      code: 'INVALID_ARGUMENT', field: 'info.paymentInstallments', message: "info.paymentInstallments add up to 2850.00 EUR, not the offer's total 3700.00 EUR (the commits, quantity times price); make the installments add up to the total",
    });
    expect(await refusal(withInfo({ commitAmount: 5000 }))).toMatchObject({ field: 'info.paymentInstallments', message: "info.paymentInstallments add up to 3700.00 EUR, not the offer's total 5000.00 EUR (info.commitAmount); make the installments add up to the total" });
    expect(await refusal(withInfo({ commits: undefined }))).toMatchObject({ field: 'info.paymentInstallments', message: 'info.paymentInstallments need a total to add up to: give info.commitAmount or info.commits' });
    expect(await refusal(withInfo({ paymentInstallments: [{ chargeDate: '2026-04-01T00:00:00Z', chargeAmount: 3700, currency: 'USD' }] }))).toMatchObject({ field: 'info.paymentInstallments[0].currency', message: 'info.paymentInstallments[0].currency must be the offer\'s currency EUR, got "USD"' });
    expect(await refusal(withInfo({ paymentInstallments: [{ chargeDate: '1 April', chargeAmount: 3700 }] }))).toMatchObject({ field: 'info.paymentInstallments[0].chargeDate' });
    expect(await refusal(withInfo({ paymentInstallments: [{ chargeDate: '2026-04-01T00:00:00Z', chargeAmount: -3700 }] }))).toMatchObject({ field: 'info.paymentInstallments[0].chargeAmount' });
    // Cents add up exactly: 0.1 + 0.2 is 0.3.
    const cents = withInfo({ commits: [{ key: 'analyst_seats', quantity: 1, price: 0.3 }], paymentInstallments: [{ chargeDate: '2026-04-01T00:00:00Z', chargeAmount: 0.1 }, { chargeDate: '2026-05-01T00:00:00Z', chargeAmount: 0.2 }] });
    expect((await post('/draftOffer', cents)).status).toBe(200);
  });

  it('refuses a contract duration that is not an ISO 8601 duration, or on another marketplace than A', async () => {
    expect(await refusal(withInfo({ cloudAAgreementDuration: 'twelve months' }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'info.cloudAAgreementDuration', message: 'info.cloudAAgreementDuration must be an ISO 8601 duration longer than zero such as P12M or P36M, got "twelve months"' });
    expect(await refusal(withInfo({ cloudAAgreementDuration: 'P0M' }))).toMatchObject({ field: 'info.cloudAAgreementDuration' });
    expect(await refusal({ name: 'ETL', productID: 'prod-000003', info: { currency: 'GBP', cloudAAgreementDuration: 'P12M' } })).toEqual({ code: 'INVALID_ARGUMENT', field: 'info.cloudAAgreementDuration', message: "info.cloudAAgreementDuration is marketplace A's (cloudA); product prod-000003 (Streamline ETL) is on cloudC" });
  });

  it('refuses a subStatus other than DRAFT, and the same terms on an update, leaving the draft as it was', async () => {
    expect(await refusal(heldDraft({ subStatus: 'LIVE' }))).toEqual({ code: 'INVALID_ARGUMENT', field: 'subStatus', message: 'subStatus may only be DRAFT (hold the draft until it is published), got "LIVE"' });
    const draft = (await post('/draftOffer', heldDraft())).json;
    const events = (await eventsOf(draft.id)).length;
    expect(await refusal({ id: draft.id, info: { commits: [{ key: 'analyst_seats', quantity: -1, price: 370 }] } })).toMatchObject({ field: 'info.commits[0].quantity' });
    expect(await refusal({ id: draft.id, info: { currency: 'GBP' } })).toMatchObject({ field: 'info.currency' });
    expect(await offer(draft.id)).toEqual(draft);
    expect((await eventsOf(draft.id)).length).toBe(events);
    // A publish whose merged fields are refused publishes nothing.
    expect(await refusal({ id: draft.id, info: { currency: 'GBP' } }, '/offer')).toMatchObject({ field: 'info.currency' });
    expect((await offer(draft.id)).subStatus).toBe('DRAFT');
  });
});
