// The org's default currency in the co-sell asks, against each CRM's sandbox through the real connector
// (issue #25 section 5): an org whose default currency is EUR (Salesforce's DefaultCurrencyIsoCode,
// HubSpot's company currency, Dataverse's base currency) and an opportunity (deal) naming no currency of
// its own ask for a referral and a private-offer draft in EUR; the org is read once per connector,
// however many pages and sides ask (counted at the sandbox); a Salesforce multi-currency org's
// Opportunities keep their own CurrencyIsoCode and the org is not read at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import { createConnector } from '../../crm/registry.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import { opportunityDraftOfferSide as dynamicsDraft, opportunityReferralSide as dynamicsReferral } from '../../mappings/dynamics/opportunity-cosell.ts';
import { dealDraftOfferSide, dealReferralSide } from '../../mappings/hubspot/deal-cosell.ts';
import { opportunityDraftOfferSide as salesforceDraft } from '../../mappings/salesforce/opportunity-draft-offer.ts';
import { opportunityReferralSide as salesforceReferral } from '../../mappings/salesforce/opportunity-referral.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { clientCredentialsConnection, control as salesforceControl } from '../../sandbox/salesforce/testing.ts';
import { connectionSettingsSchema, type ConnectionSettings } from '../../sync/connection-settings.ts';
import { startCrmSandbox, type CrmUnderTest, type CrmUnderTestKind } from '../support/crm-sandbox.ts';

type Sides = { referral: CrmSide<unknown>; draft: CrmSide<unknown> };
const SIDES: Record<CrmUnderTestKind, Sides> = {
  salesforce: { referral: salesforceReferral as CrmSide<unknown>, draft: salesforceDraft as CrmSide<unknown> },
  hubspot: { referral: dealReferralSide as CrmSide<unknown>, draft: dealDraftOfferSide as CrmSide<unknown> },
  dynamics: { referral: dynamicsReferral as CrmSide<unknown>, draft: dynamicsDraft as CrmSide<unknown> },
};
/** The account's (company's) external id: the marketplace buyer, as the sync writes it. */
const BUYER_FIELD: Record<CrmUnderTestKind, { object: string; field: string; name: string }> = {
  salesforce: { object: 'Account', field: 'Commerce_Buyer_Id__c', name: 'Name' },
  hubspot: { object: 'companies', field: 'commerce_buyer_id', name: 'name' },
  dynamics: { object: 'account', field: 'ccs_commercebuyerid', name: 'name' },
};

/** How many times the sandbox was asked for the org's default currency (its own count of those reads). */
async function orgReads(crm: CrmUnderTest): Promise<number> {
  if (crm.salesforce) return (await salesforceControl(crm.salesforce, 'GET', '/calls'))['query-organization'] ?? 0;
  if (crm.hubspot) return (await hubspotControl(crm.hubspot, 'GET', '/calls'))['account.details'] ?? 0;
  return (await dynamicsControl(crm.dynamics!, 'GET', '/calls'))['GET organizations'] ?? 0;
}

/** The org's default currency set as an admin would (Company Information, the account's currency, an organization made with it). */
async function setOrgCurrency(crm: CrmUnderTest, code: string): Promise<void> {
  if (crm.salesforce) await salesforceControl(crm.salesforce, 'POST', '/organization', { defaultCurrencyIsoCode: code });
  else if (crm.hubspot) await hubspotControl(crm.hubspot, 'POST', '/account', { companyCurrency: code });
  else await dynamicsControl(crm.dynamics!, 'POST', '/currencies', { base: code });
}

function connectionFor(crm: CrmUnderTest): { settings: ConnectionSettings; connect: () => CrmConnector } {
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: 'http://commerce.invalid', authUrl: 'http://commerce.invalid/token', clientId: 'c', organizationId: 'org-1' },
    crm: crm.settings(),
    cosell: { enabled: true },
  });
  return { settings, connect: () => createConnector(settings, { commerceClientSecret: 'unused', ...crm.secrets() } as never) };
}

/** A seller's opportunity on the buyer's account, shared with a partner and asking for a private offer. */
async function sellerOpportunities(crm: CrmUnderTest, connector: CrmConnector, names: string[]): Promise<string[]> {
  const buyer = BUYER_FIELD[crm.kind];
  const [account] = await connector.upsert(buyer.object, [{ sourceId: 'buyer-eu', externalIdField: buyer.field, externalId: 'buyer-eu', fields: { [buyer.name]: 'Euro Buyer GmbH' } }]);
  if (!account?.ok) throw new Error(`the buyer's account was not made: ${JSON.stringify(account)}`);
  return crm.createOpportunities(names.map((name) => ({ name, accountId: account.crmId, stage: crm.openStage, closeDate: '2027-03-31', amount: 24000, share: true, partner: 'Marketplace A', privateOfferRequested: true, productId: 'prod-eu' })));
}

/** One page as the CRM-to-commerce activity handles it: `related` for the page, then `ask` per record. */
async function askPage(side: CrmSide<unknown>, connector: CrmConnector, settings: ConnectionSettings, ids: string[], extraFields: string[] = []): Promise<unknown[]> {
  const page = await connector.findWhereIn(side.object, connector.idField, ids, [...side.fields(settings), ...extraFields]);
  const related = side.related ? await side.related(connector, page) : undefined;
  const byId = new Map(page.map((record: CrmRecord) => [String(record[connector.idField]).toLowerCase(), record]));
  return ids.map((id) => {
    const record = byId.get(id.toLowerCase())!;
    return side.ask(record, settings, related?.get(String(record[connector.idField])));
  });
}

const currencyOf = (ask: unknown): string | undefined => {
  const answer = ask as { request?: { currency?: string; info?: { currency?: string } }; refused?: string };
  if (answer.refused) throw new Error(`the ask was refused: ${answer.refused}`);
  return answer.request?.currency ?? answer.request?.info?.currency;
};

describe.each(['salesforce', 'hubspot', 'dynamics'] as const)('%s: an org whose default currency is EUR', (kind) => {
  let crm: CrmUnderTest;
  beforeAll(async () => {
    crm = await startCrmSandbox(kind);
  });
  afterAll(() => crm?.stop());

  it('the sandbox org starts in USD and takes EUR as an admin sets it', async () => {
    const { settings, connect } = connectionFor(crm);
    const connector = connect();
    const [id] = await sellerOpportunities(crm, connector, [`${kind} USD deal`]);
    expect((await askPage(SIDES[kind].referral, connector, settings, [id!])).map(currencyOf)).toEqual(['USD']);
    await setOrgCurrency(crm, 'EUR');
  });

  it('an opportunity without a currency of its own asks for its referral and its draft in EUR; the org is read once per connector, not per page', async () => {
    const before = await orgReads(crm);
    const { settings, connect } = connectionFor(crm);
    const connector = connect();
    const ids = await sellerOpportunities(crm, connector, [`${kind} EUR deal 1`, `${kind} EUR deal 2`]);

    // Two pages of the referral flow and one of the draft flow, as one connector's life sees them.
    expect((await askPage(SIDES[kind].referral, connector, settings, [ids[0]!])).map(currencyOf)).toEqual(['EUR']);
    expect((await askPage(SIDES[kind].referral, connector, settings, [ids[1]!])).map(currencyOf)).toEqual(['EUR']);
    expect((await askPage(SIDES[kind].draft, connector, settings, ids)).map(currencyOf)).toEqual(['EUR', 'EUR']);
    // One read for this connector (HubSpot: the one read of the account's details its first call makes for the time zone serves the currency too).
    expect((await orgReads(crm)) - before).toBe(1);

    // A new connector (the connection edited, the worker restarted) reads it afresh, once.
    const fresh = connect();
    expect((await askPage(SIDES[kind].referral, fresh, settings, ids)).map(currencyOf)).toEqual(['EUR', 'EUR']);
    expect((await orgReads(crm)) - before).toBe(2);
  });
});

describe('Salesforce multi-currency org: an Opportunity keeps its own CurrencyIsoCode', () => {
  let crm: CrmUnderTest;
  beforeAll(async () => {
    crm = await startCrmSandbox('salesforce', { sandbox: { multiCurrency: { corporate: 'EUR', active: ['EUR', 'GBP', 'USD'] } } });
  });
  afterAll(() => crm?.stop());

  it('GBP on the Opportunity is the ask\'s currency, and the org default is never read', async () => {
    const { settings, connect } = connectionFor(crm);
    const connector = connect();
    const [id] = await sellerOpportunities(crm, connector, ['Pound deal']);
    // The seller picks the Opportunity's currency (a create leaving it out got the user's, EUR).
    const { conn } = await clientCredentialsConnection(crm.salesforce!);
    await conn.sobject('Opportunity').update({ Id: id, CurrencyIsoCode: 'GBP' } as never);
    expect((await askPage(salesforceReferral as CrmSide<unknown>, connector, settings, [id!], ['CurrencyIsoCode'])).map(currencyOf)).toEqual(['GBP']);
    expect((await askPage(salesforceDraft as CrmSide<unknown>, connector, settings, [id!], ['CurrencyIsoCode'])).map(currencyOf)).toEqual(['GBP']);
    expect(await orgReads(crm)).toBe(0);
  });
});
