// Multi-currency Salesforce orgs (issue #23 item 5): amounts are read in each record's CurrencyIsoCode,
// which defaults to the integration user's currency (docs/crm-wire-behaviour.md "Multi-currency orgs").
// Every record the sync writes with an amount carries its commerce record's currency; requests made from
// Opportunities (referrals, private-offer drafts) carry the Opportunity's; a currency the org has not
// activated is a dead letter of that record alone, in Salesforce's words. A single-currency org has no
// CurrencyIsoCode, and the sync sends none. Real Temporal, real PostgreSQL, the sandboxes, the production worker.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, salesforceDump, startProductionWorker } from '../support/sync-harness.ts';

const MULTI_CURRENCY = { corporate: 'USD', active: ['USD', 'EUR', 'GBP', 'JPY'], userCurrency: 'USD' };
const put = (apiUrl: string, kind: string, records: unknown[]) =>
  fetch(`${apiUrl}/_sandbox/records/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records }) });

let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startProductionWorker>>;
const taskQueue = `multi-currency-${Date.now()}`;

beforeAll(async () => {
  database = await createTestDatabase();
  worker = await startProductionWorker(database, { taskQueue });
});
afterAll(async () => {
  await worker?.stop();
  await database?.drop();
});

/** The sandboxes and a connection between them, with the commerce records `prepare` changes before the first sync. */
async function orgUnder(name: string, crmSandbox: Record<string, unknown>) {
  const sandboxes = await startSandboxesFor('salesforce', { entitlements: 16, seed: 73 }, { sandbox: crmSandbox });
  const connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'contact', 'offer', 'entitlement', 'referral'] })).id;
  const run = (type: string): Promise<any> =>
    new Client({ connection: worker.connection }).workflow.execute(type, { taskQueue, workflowId: `${name}-${type}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, args: [{ connectionId }] });
  return { sandboxes, connectionId, run, salesforce: sandboxes.crm.salesforce! };
}

/** Commerce records set in other currencies than the contract's default (USD) before anything syncs. */
async function inOtherCurrencies(apiUrl: string) {
  const entitlements = await commerceDump({ apiUrl }, 'entitlements');
  const offers = await commerceDump({ apiUrl }, 'offers');
  const referrals = await commerceDump({ apiUrl }, 'referrals');
  const inEuros = entitlements.find((row) => row.offerID && offers.some((offer) => offer.id === row.offerID))!;
  const offerInEuros = offers.find((offer) => offer.id === inEuros.offerID)!;
  // Swiss francs are a real currency this org has not activated.
  const inFrancs = entitlements.find((row) => row.id !== inEuros.id && row.offerID !== inEuros.offerID)!;
  // One a cloud partner sent that no CRM record holds yet: co-sell makes an Opportunity of it.
  const inPounds = referrals.find((row) => row.direction === 'INBOUND' && !row.crmAOpportunityId && !row.crmBDealId && !row.crmCOpportunityId)!;
  expect(inPounds).toBeDefined();
  expect((await put(apiUrl, 'entitlements', [{ ...inEuros, info: { ...inEuros.info, currency: 'EUR' } }, { ...inFrancs, info: { ...inFrancs.info, currency: 'CHF' } }])).ok).toBe(true);
  expect((await put(apiUrl, 'offers', [{ ...offerInEuros, info: { ...offerInEuros.info, currency: 'EUR' } }])).ok).toBe(true);
  expect((await put(apiUrl, 'referrals', [{ ...inPounds, currency: 'GBP' }])).ok).toBe(true);
  return { inEuros, offerInEuros, inFrancs, inPounds, entitlements };
}

describe('a multi-currency Salesforce org', () => {
  let org: Awaited<ReturnType<typeof orgUnder>>;
  let changed: Awaited<ReturnType<typeof inOtherCurrencies>>;

  beforeAll(async () => {
    org = await orgUnder('multi', { multiCurrency: MULTI_CURRENCY });
    changed = await inOtherCurrencies(org.sandboxes.commerce.apiUrl);
  }, 120_000);
  afterAll(() => org?.sandboxes.stop());

  it('records with amounts carry their commerce currency; an inactive currency is a dead letter of that record alone', async () => {
    await org.run(WORKFLOW_TYPES.incrementalSync);
    const entitlements = new Map((await salesforceDump(org.salesforce, 'Marketplace_Entitlement__c')).map((row) => [row.Commerce_Entitlement_Id__c, row]));
    const opportunities = new Map((await salesforceDump(org.salesforce, 'Opportunity')).map((row) => [row.Commerce_Offer_Id__c, row]));
    const referrals = new Map((await salesforceDump(org.salesforce, 'Cosell_Referral__c')).map((row) => [row.Commerce_Referral_Id__c, row]));

    expect(entitlements.get(changed.inEuros.id)).toMatchObject({ CurrencyIsoCode: 'EUR', Currency__c: 'EUR' });
    expect(opportunities.get(changed.offerInEuros.id)).toMatchObject({ CurrencyIsoCode: 'EUR' });
    expect(referrals.get(changed.inPounds.id)).toMatchObject({ CurrencyIsoCode: 'GBP', Currency__c: 'GBP' });
    // Every other record in its own currency (the generated data holds some in EUR), or in the
    // contract's default, USD, when it names none: said, not left to the integration user's currency.
    const others = changed.entitlements.filter((row) => row.id !== changed.inEuros.id && row.id !== changed.inFrancs.id);
    expect(others.length).toBeGreaterThan(5);
    for (const row of others) expect(entitlements.get(row.id)?.CurrencyIsoCode, row.id).toBe(row.info?.currency || 'USD');
    const offers = await commerceDump(org.sandboxes.commerce, 'offers');
    for (const offer of offers.filter((row) => opportunities.has(row.id))) expect(opportunities.get(offer.id).CurrencyIsoCode, offer.id).toBe(offer.info?.currency || 'USD');
    expect(new Set([...opportunities.values()].map((row) => row.CurrencyIsoCode))).toContain('EUR');

    // CHF is not one of the org's active currencies: that entitlement alone is refused, in Salesforce's words.
    expect(entitlements.has(changed.inFrancs.id)).toBe(false);
    const letters = await createDeadLetterStore(database.pool).listOpen(org.connectionId);
    expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`)).toEqual([`entitlement:${changed.inFrancs.id}`]);
    expect(letters[0]!.reason).toBe(
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST: Currency ISO Code: bad value for restricted picklist field: CHF (CHF is not an active currency of this Salesforce org: an admin activates it in Setup > Manage Currencies, then crm-sync retry sends the record again)',
    );
  }, 180_000);

  it('referrals and private-offer drafts asked from Opportunities carry the Opportunity currency', async () => {
    const { conn } = await clientCredentialsConnection(org.salesforce);
    const [account] = (await salesforceDump(org.salesforce, 'Account')).filter((row) => row.Commerce_Buyer_Id__c);
    const opportunity = (fields: Record<string, unknown>) => ({ AccountId: account.Id, StageName: 'Prospecting', CloseDate: '2027-03-31', ...fields });
    const made = (await conn.sobject('Opportunity').create(
      [
        opportunity({ Name: 'Shared in euros', Amount: 25000, CurrencyIsoCode: 'EUR', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B' }),
        opportunity({ Name: 'Draft in yen', Amount: 3000000, CurrencyIsoCode: 'JPY', Private_Offer_Requested__c: true, Commerce_Product_Id__c: 'prod-000003' }),
        opportunity({ Name: 'Shared in the user currency', Amount: 900, Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace B' }),
      ] as never[],
      { allOrNone: true },
    )) as unknown as { id: string; success: boolean }[];
    expect(made.every((result) => result.success)).toBe(true);
    const [shared, draft, plain] = made.map((result) => result.id);

    const outcome = await org.run(WORKFLOW_TYPES.cosell);
    expect(outcome.flows['opportunity-referral']).toMatchObject({ created: 2, refused: 0 });
    expect(outcome.flows['opportunity-draft-offer']).toMatchObject({ created: 1, refused: 0 });
    const referrals = await commerceDump(org.sandboxes.commerce, 'referrals');
    expect(referrals.find((row) => row.crmAOpportunityId === shared)).toMatchObject({ dealValue: 25000, currency: 'EUR' });
    // Left out on create, the Opportunity took the integration user's currency.
    expect(referrals.find((row) => row.crmAOpportunityId === plain)).toMatchObject({ dealValue: 900, currency: 'USD' });
    const offers = await commerceDump(org.sandboxes.commerce, 'offers');
    expect(offers.find((row) => row.metaInfo?.crmAOpportunityId === draft)?.info).toMatchObject({ commitAmount: 3000000, currency: 'JPY' });

    // The inbound referral in pounds became an Opportunity in pounds.
    const inbound = (await salesforceDump(org.salesforce, 'Opportunity')).find((row) => row.Commerce_Referral_Id__c === changed.inPounds.id);
    expect(inbound).toMatchObject({ CurrencyIsoCode: 'GBP', Amount: changed.inPounds.dealValue });
  }, 180_000);
});

describe('a single-currency Salesforce org', () => {
  let org: Awaited<ReturnType<typeof orgUnder>>;
  let changed: Awaited<ReturnType<typeof inOtherCurrencies>>;

  beforeAll(async () => {
    org = await orgUnder('single', {});
    changed = await inOtherCurrencies(org.sandboxes.commerce.apiUrl);
  }, 120_000);
  afterAll(() => org?.sandboxes.stop());

  it('is sent no CurrencyIsoCode: every record is written as before, with its currency in Currency__c', async () => {
    await org.run(WORKFLOW_TYPES.incrementalSync);
    // The org has no such field: a record naming it would be refused with INVALID_FIELD.
    expect(await createDeadLetterStore(database.pool).listOpen(org.connectionId)).toEqual([]);
    const entitlements = new Map((await salesforceDump(org.salesforce, 'Marketplace_Entitlement__c')).map((row) => [row.Commerce_Entitlement_Id__c, row]));
    expect(entitlements.size).toBe(changed.entitlements.length);
    expect(entitlements.get(changed.inEuros.id)).toMatchObject({ Currency__c: 'EUR' });
    expect(entitlements.get(changed.inFrancs.id)).toMatchObject({ Currency__c: 'CHF' });
    expect(entitlements.get(changed.inEuros.id)).not.toHaveProperty('CurrencyIsoCode');
  }, 180_000);
});
