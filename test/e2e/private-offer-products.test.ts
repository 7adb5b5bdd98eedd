// Private offers from a Salesforce Opportunity's products (issue #28 section 2), end to end on real
// Temporal, real PostgreSQL, the production worker and both sandboxes: an Opportunity in euros with two
// products of one marketplace product becomes one held draft with both (COMMIT as a commit, METERED as a
// rate), in euros; the connection's approval rule holds publication back until the Opportunity is
// approved, then the offer is published once, with who and when on the record and in the audit trail; a
// changed quantity updates the draft once; a new expiry and a cancel request reach an offer with the
// buyer, and the offer's later states come back onto that same Opportunity; the commerce side's refusals (409 naming the status, 400 naming the field) and a line outside the
// catalogue show on the record, and a refusal is not sent again until the record changes.
import { Client } from '@temporalio/client';
import type { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createAuditStore } from '../../store/audit.ts';
import { createConnectionStore } from '../../store/connections.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, salesforceDump, startProductionWorker, TEST_SECRET_BOX } from '../support/sync-harness.ts';

const MULTI_CURRENCY = { corporate: 'USD', active: ['USD', 'EUR', 'GBP', 'JPY'], userCurrency: 'USD' };
const RULE = { field: 'Offer_Approval_Status__c', approvedValue: 'Approved', approvedByField: 'Offer_Approved_By__c' };
/** Quotes, a backslash and non-Latin text: an approver's name as the org may hold it. */
const APPROVER = `Zoë "Deal Desk" O'Brien \\ 佐藤`;
const idOf = (result: unknown) => (result as { id: string }).id;

let database: TestDatabase;
let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
let worker: Awaited<ReturnType<typeof startProductionWorker>>;
let conn: Connection;
let connectionId: string;
const taskQueue = `offer-products-${Date.now()}`;
const run = (type: string): Promise<any> =>
  new Client({ connection: worker.connection }).workflow.execute(type, { taskQueue, workflowId: `offer-products-${type}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, args: [{ connectionId }] });

/** A marketplace product with a COMMIT and a METERED dimension, priced in euros (the sandbox's catalogue, A18). */
let product: { id: string; commitKey: string; meteredKey: string };
let accountId: string;
let buyerId: string;
/** The org's Product2 per dimension key, with its euro price in the standard price book. */
const entries = new Map<string, string>();

beforeAll(async () => {
  database = await createTestDatabase();
  sandboxes = await startSandboxesFor('salesforce', { entitlements: 8, seed: 67 }, { sandbox: { multiCurrency: MULTI_CURRENCY } });
  const made = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'contact', 'offer'] });
  connectionId = made.id;
  const connections = createConnectionStore(database.pool, TEST_SECRET_BOX);
  const settings = made.settings as ConnectionSettings;
  await connections.update(connectionId, { settings: { ...settings, cosell: { ...settings.cosell, offerApproval: RULE } } });
  worker = await startProductionWorker(database, { taskQueue });
  await run(WORKFLOW_TYPES.incrementalSync);
  ({ conn } = await clientCredentialsConnection(sandboxes.crm.salesforce!));

  const products = await commerceDump(sandboxes.commerce, 'products');
  const chosen = products.find((row) => row.status === 'PUBLIC' && row.info?.currencies?.includes('EUR') && row.info.dimensions.some((d: any) => d.type === 'COMMIT') && row.info.dimensions.some((d: any) => d.type === 'METERED'))!;
  product = { id: chosen.id, commitKey: chosen.info.dimensions.find((d: any) => d.type === 'COMMIT').key, meteredKey: chosen.info.dimensions.find((d: any) => d.type === 'METERED').key };
  const account = (await salesforceDump(sandboxes.crm.salesforce!, 'Account')).find((row) => row.Commerce_Buyer_Id__c)!;
  accountId = account.Id;
  buyerId = account.Commerce_Buyer_Id__c;

  // The catalogue as the catalogue sync leaves it: one Product2 per dimension, with its price in the standard price book.
  const standard = (await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true')).records[0]!.Id;
  const dimensions = [
    { key: product.commitKey, name: `Seats "annual" \\ 日本`, price: 40 },
    { key: product.meteredKey, name: 'Usage per unit', price: 0.5 },
  ];
  for (const dimension of dimensions) {
    const product2 = idOf(await conn.sobject('Product2').create({ Name: dimension.name, IsActive: true, Commerce_Product_Id__c: product.id, Commerce_Dimension_Key__c: dimension.key, Commerce_Price_Key__c: `${product.id}|${dimension.key}` }));
    entries.set(dimension.key, idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product2, UnitPrice: dimension.price, IsActive: true, CurrencyIsoCode: 'EUR' })));
  }
  const workshop = idOf(await conn.sobject('Product2').create({ Name: 'Onboarding workshop', IsActive: true }));
  entries.set('workshop', idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: workshop, UnitPrice: 900, IsActive: true, CurrencyIsoCode: 'EUR' })));
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await sandboxes?.stop();
  await database?.drop();
});

/** An Opportunity in euros asking for a private offer, with line items [dimension key, quantity, unit price]. */
async function opportunityWith(name: string, lines: [string, number, number][], extra: Record<string, unknown> = {}) {
  const id = idOf(await conn.sobject('Opportunity').create({ Name: name, AccountId: accountId, StageName: 'Prospecting', CloseDate: '2027-03-31', CurrencyIsoCode: 'EUR', Private_Offer_Requested__c: true, Offer_Approval_Status__c: 'Pending', ...extra }));
  for (const [key, quantity, unitPrice] of lines) await conn.sobject('OpportunityLineItem').create({ OpportunityId: id, PricebookEntryId: entries.get(key)!, Quantity: quantity, UnitPrice: unitPrice });
  return id;
}
const offersOf = async (opportunityId: string) => (await commerceDump(sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.crmAOpportunityId === opportunityId);
const opportunity = async (id: string) => (await conn.sobject('Opportunity').retrieve(id)) as Record<string, any>;
const lineOf = async (opportunityId: string, key: string) =>
  (await conn.query<{ Id: string }>(`SELECT Id FROM OpportunityLineItem WHERE OpportunityId = '${opportunityId}' AND PricebookEntryId = '${entries.get(key)}'`)).records[0]!.Id;
const calls = async () => ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> }).operations;
/** The offer, moved by the marketplace to the buyer (PENDING_ACCEPTANCE with its marketplace id), as the change driver would. */
async function withTheBuyer(offer: Record<string, any>) {
  const { subStatus: _held, ...rest } = offer;
  const response = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/offers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ ...rest, status: 'PENDING_ACCEPTANCE', externalID: `mkt-${offer.id}`, lastUpdateTime: new Date().toISOString() }] }) });
  expect(response.ok).toBe(true);
}

describe('a private offer from a Salesforce Opportunity\'s products', () => {
  it('two products become one held draft with both, in euros; approval publishes it once, with who and when', async () => {
    const id = await opportunityWith('Acme analytics, two products', [
      [product.commitKey, 25, 35],
      [product.meteredKey, 1, 0.45],
    ]);
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ created: 1, refused: 0 });
    const [draft, ...others] = await offersOf(id);
    expect(others).toEqual([]);
    expect(draft).toMatchObject({ productID: product.id, buyerID: buyerId, status: 'PENDING_CREATE', subStatus: 'DRAFT', expireTime: '2027-03-31T23:59:59.000Z' });
    expect(draft.info).toMatchObject({ currency: 'EUR', commits: [{ key: product.commitKey, quantity: 25, price: 35 }], dimensions: [{ key: product.meteredKey, rate: 0.45 }] });
    expect(draft.info.commitAmount).toBeUndefined();
    expect((await opportunity(id)).Commerce_Offer_Id__c).toBe(draft.id);

    // Not approved yet: nothing is published, however often co-sell runs.
    await run(WORKFLOW_TYPES.cosell);
    expect((await offersOf(id)).map((offer) => offer.subStatus)).toEqual(['DRAFT']);

    await conn.sobject('Opportunity').update({ Id: id, Offer_Approval_Status__c: 'Approved', Offer_Approved_By__c: APPROVER });
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ advanced: 1, created: 0 });
    const [published, ...more] = await offersOf(id);
    expect(more).toEqual([]);
    expect(published.id).toBe(draft.id);
    expect(published.subStatus).toBeUndefined();
    expect(published.status).toBe('PENDING_CREATE');
    const record = await opportunity(id);
    // The publication's stamp, to the second (a Salesforce date-time keeps no milliseconds).
    expect(Date.parse(record.Offer_Approved_At__c)).toBe(Math.floor(Date.parse(published.lastUpdateTime) / 1000) * 1000);
    expect(record.Cosell_Draft_Errors__c ?? null).toBeNull();

    const { events } = await createAuditStore(database.pool).list({ connectionId, limit: 10 });
    expect(events.map((event) => [event.action, event.actorLabel, event.via, event.target])).toEqual([
      ['offer-published', 'worker', 'worker', `Opportunity ${id}`],
      ['offer-approved', APPROVER, 'worker', `Opportunity ${id}`],
    ]);
    expect(events[1]!.detail).toEqual({ flow: 'opportunity-draft-offer', offerId: draft.id });

    // Our own write-back, read back, is no news: no second publication.
    const publishes = (await calls())['POST /org/{orgId}/offer'];
    await run(WORKFLOW_TYPES.cosell);
    expect((await calls())['POST /org/{orgId}/offer']).toBe(publishes);
    expect((await createAuditStore(database.pool).list({ connectionId, limit: 10 })).total).toBe(2);
  }, 120_000);

  it('a changed quantity updates the held draft once, never a second offer', async () => {
    const id = await opportunityWith('Acme analytics, more seats', [[product.commitKey, 10, 36]]);
    await run(WORKFLOW_TYPES.cosell);
    const [draft] = await offersOf(id);
    await conn.sobject('OpportunityLineItem').update({ Id: await lineOf(id, product.commitKey), Quantity: 40 });
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ advanced: 1, created: 0 });
    const offers = await offersOf(id);
    expect(offers.map((offer) => offer.id)).toEqual([draft.id]);
    expect(offers[0].info.commits).toEqual([{ key: product.commitKey, quantity: 40, price: 36 }]);
    expect(offers[0].subStatus).toBe('DRAFT');
    const updates = (await calls())['POST /org/{orgId}/draftOffer'];
    await run(WORKFLOW_TYPES.cosell);
    expect((await calls())['POST /org/{orgId}/draftOffer']).toBe(updates);
  }, 120_000);

  it('a new expiry extends an offer with the buyer, a cancel request cancels it', async () => {
    const id = await opportunityWith('Acme analytics, extend then cancel', [[product.commitKey, 5, 40]], { Offer_Approval_Status__c: 'Approved' });
    await run(WORKFLOW_TYPES.cosell);
    const [offer] = await offersOf(id);
    expect(offer.subStatus).toBeUndefined();
    await withTheBuyer(offer);

    await conn.sobject('Opportunity').update({ Id: id, Offer_New_Expiry_Date__c: '2027-06-30' });
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ advanced: 1, refused: 0 });
    expect((await offersOf(id))[0]).toMatchObject({ status: 'PENDING_ACCEPTANCE', expireTime: '2027-06-30T23:59:59.000Z' });

    await conn.sobject('Opportunity').update({ Id: id, Offer_Cancel_Requested__c: true });
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ advanced: 1, refused: 0 });
    const [cancelled, ...more] = await offersOf(id);
    expect(more).toEqual([]);
    expect(cancelled.status).toBe('PENDING_CANCEL');
    const actions = (await createAuditStore(database.pool).list({ connectionId, limit: 50 })).events.filter((event) => event.target === `Opportunity ${id}`).map((event) => event.action);
    // Approved when it was made (the rule held at once, with no approver named: the worker's row), newest first.
    expect(actions).toEqual(['offer-cancelled', 'offer-extended', 'offer-published', 'offer-approved']);

    // Its later states come back as before: the offer sync updates this same Opportunity, and no other.
    await run(WORKFLOW_TYPES.incrementalSync);
    const holding = (await salesforceDump(sandboxes.crm.salesforce!, 'Opportunity')).filter((row) => row.Commerce_Offer_Id__c === offer.id);
    expect(holding.map((row) => [row.Id, row.Offer_Status__c, row.CurrencyIsoCode])).toEqual([[id, 'PENDING_CANCEL', 'EUR']]);
  }, 120_000);

  it('a publication refused after the held draft was made: the draft is kept, and published at the record\'s next read once it can be', async () => {
    const faults = `${sandboxes.commerce.apiUrl}/_sandbox/faults`;
    const refusePublish = { operation: 'POST /org/{orgId}/offer', status: 409, body: { code: 'FAILED_PRECONDITION', message: 'the marketplace is closed for maintenance' } };
    expect((await fetch(faults, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(refusePublish) })).ok).toBe(true);
    const id = await opportunityWith('Acme analytics, published later', [[product.commitKey, 3, 40]], { Offer_Approval_Status__c: 'Approved' });
    try {
      expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ created: 1 });
      expect((await offersOf(id)).map((offer) => offer.subStatus)).toEqual(['DRAFT']);
    } finally {
      await fetch(faults, { method: 'DELETE' });
    }
    // Our write-back of the offer id brings the record back: its publication is the next step.
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ advanced: 1, created: 0 });
    const [offer, ...more] = await offersOf(id);
    expect(more).toEqual([]);
    expect(offer.subStatus).toBeUndefined();
    expect((await opportunity(id)).Offer_Approved_At__c).toBeTruthy();
  }, 120_000);

  it('the commerce side\'s refusals and a line outside the catalogue show on the record, and wait for its next change', async () => {
    // A cancel request on a draft the buyer has not got: 409 naming PENDING_CREATE (A19).
    const held = await opportunityWith('Acme analytics, cancelled too early', [[product.commitKey, 5, 40]]);
    await run(WORKFLOW_TYPES.cosell);
    await conn.sobject('Opportunity').update({ Id: held, Offer_Cancel_Requested__c: true });
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ refused: 1 });
    expect((await opportunity(held)).Cosell_Draft_Errors__c).toMatch(/^the marketplace refused the change to offer .+: .*PENDING_CREATE.*\(POST \/org\/\{orgId\}\/offer\/\{offerId\}\/cancel, HTTP 409\)$/);
    const cancels = (await calls())['POST /org/{orgId}/offer/{offerId}/cancel'];
    await run(WORKFLOW_TYPES.cosell);
    await run(WORKFLOW_TYPES.cosell);
    expect((await calls())['POST /org/{orgId}/offer/{offerId}/cancel']).toBe(cancels);

    // A part of a unit of a COMMIT dimension: 400 naming the field, and no offer.
    const fractional = await opportunityWith('Acme analytics, half a seat', [[product.commitKey, 2.5, 40]]);
    expect((await run(WORKFLOW_TYPES.cosell)).flows['opportunity-draft-offer']).toMatchObject({ refused: 1, created: 0 });
    expect((await opportunity(fractional)).Cosell_Draft_Errors__c).toContain('info.commits[0].quantity');
    expect(await offersOf(fractional)).toEqual([]);

    // A line of a product outside the marketplace catalogue, named so the seller finds it.
    const workshop = await opportunityWith('Acme analytics with a workshop', [[product.commitKey, 5, 40], ['workshop', 1, 900]]);
    await run(WORKFLOW_TYPES.cosell);
    expect((await opportunity(workshop)).Cosell_Draft_Errors__c).toBe(
      `products: "Onboarding workshop" is not from the marketplace catalogue (no Commerce Product Id and Commerce Dimension Key on the product); replace it with the catalogue's products`,
    );
    expect(await offersOf(workshop)).toEqual([]);
  }, 120_000);
});
