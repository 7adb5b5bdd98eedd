// What a seller does for a private offer from the CRM (issue #28 section 2), on each CRM in its own client
// library (never the connector's code): makes catalogue products as the catalogue sync leaves them (keyed by
// the commerce product id and dimension key), a record asking for a private offer with product lines,
// changes a line's quantity, approves, asks for a new expiry or a cancel, and reads back what the worker
// wrote. Shared by the private-offer tests (private-offer-kill, private-offer-products-hubspot-dynamics).
import { Client as HubSpotClient } from '@hubspot/api-client';
import { DynamicsWebApi } from 'dynamics-web-api';
import { expect } from 'vitest';
import type { OfferApprovalRule } from '../../mappings/canonical/draft-offer-ask.ts';
import { setUpDynamicsCatalogue } from '../../crm/dynamics/catalogue-setup.ts';
import { dynamicsCredentials } from '../../crm/dynamics/connector.ts';
import { createDynamicsTransport } from '../../crm/dynamics/transport.ts';
import { setUpHubSpotCatalogue } from '../../crm/hubspot/catalogue-setup.ts';
import { createHubSpotTransport } from '../../crm/hubspot/transport.ts';
import type { DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import type { HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import type { CrmUnderTest, CrmUnderTestKind } from './crm-sandbox.ts';

/** What a seller does in one CRM. */
export type OfferSeller = {
  /** The catalogue's CRM product of one dimension (the catalogue sync's keys), or one outside it; its handle for `lines`. */
  product(name: string, keys?: { productId: string; dimensionKey: string }): Promise<string>;
  /**
   * A record asking for a private offer, approved or not yet, with lines [product, quantity, unit price], in
   * `currency` or else the seller's (HubSpot's deal currency when one is named, else the company currency; a
   * Dynamics transaction currency when one is named, else the base currency; Salesforce's CurrencyIsoCode in
   * a multi-currency org, else the org's currency).
   */
  opportunity(name: string, lines: [string, number, number][], options?: { approved?: boolean; currency?: string }): Promise<string>;
  /**
   * A line's quantity changed, and the record with it: Salesforce rolls the line up into the Amount itself;
   * HubSpot's line item editor updates the deal's amount; on Dynamics the seller saves the opportunity (its
   * estimated revenue), which the worker sees (docs/cosell.md).
   */
  changeQuantity(id: string, product: string, quantity: number, amount: number): Promise<void>;
  approve(id: string, by: string): Promise<void>;
  newExpiry(id: string, day: string): Promise<void>;
  cancel(id: string): Promise<void>;
  /** The record's offer id, Approved At and draft errors as stored. */
  record(id: string): Promise<{ offerId?: string; approvedAt?: string; errors?: string }>;
};

/** The approval rule each connection saves, on the fields setup made; Dynamics names the choice by its label. */
export const OFFER_APPROVAL_RULES: Record<CrmUnderTestKind, OfferApprovalRule> = {
  salesforce: { field: 'Offer_Approval_Status__c', approvedValue: 'Approved', approvedByField: 'Offer_Approved_By__c' },
  hubspot: { field: 'offer_approval_status', approvedValue: 'Approved', approvedByField: 'offer_approved_by' },
  dynamics: { field: 'ccs_offerapprovalstatus', approvedValue: 'Approved', approvedByField: 'ccs_offerapprovedby' },
};

const CLOSE_DATE = '2027-03-31';
const list = (body: any): any[] => (Array.isArray(body) ? body : (body.records ?? body.value ?? body.results));

/**
 * The seller of `crm`, on the account (company) `accountId`. `currency`: the records' currency where the
 * CRM keeps one per record (HubSpot's deal_currency_code, a Dynamics transaction currency; a Dynamics
 * opportunity without one is in the organization's base currency); `priceListCurrencies`: the Dynamics
 * catalogue's price lists (setup makes one per currency).
 */
export function offerSeller(crm: CrmUnderTest, accountId: string, options: { currency?: string; priceListCurrencies?: string[] } = {}): Promise<OfferSeller> {
  if (crm.kind === 'salesforce') return salesforceSeller(crm.salesforce!, accountId);
  if (crm.kind === 'hubspot') return hubspotSeller(crm.hubspot!, accountId, options.currency);
  return dynamicsSeller(crm.dynamics!, accountId, options);
}

async function salesforceSeller(sandbox: SalesforceSandbox, accountId: string): Promise<OfferSeller> {
  const { conn } = await clientCredentialsConnection(sandbox);
  const idOf = (result: unknown) => (result as { id: string }).id;
  const standard = (await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true')).records[0]!.Id;
  const update = (id: string, fields: Record<string, unknown>) => conn.sobject('Opportunity').update({ Id: id, ...fields });
  /** Each Opportunity's line item of each price book entry. */
  const lineOf = new Map<string, string>();
  return {
    async product(name, keys) {
      const fields: Record<string, unknown> = { Name: name, IsActive: true };
      if (keys) Object.assign(fields, { Commerce_Product_Id__c: keys.productId, Commerce_Dimension_Key__c: keys.dimensionKey, Commerce_Price_Key__c: `${keys.productId}|${keys.dimensionKey}` });
      const product = idOf(await conn.sobject('Product2').create(fields));
      return idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product, UnitPrice: 1, IsActive: true }));
    },
    async opportunity(name, lines, { approved = false, currency } = {}) {
      const fields = { Name: name, AccountId: accountId, StageName: 'Prospecting', CloseDate: CLOSE_DATE, Private_Offer_Requested__c: true, Offer_Approval_Status__c: approved ? 'Approved' : 'Pending', ...(currency && { CurrencyIsoCode: currency }) };
      const id = idOf(await conn.sobject('Opportunity').create(fields));
      for (const [entry, quantity, price] of lines) lineOf.set(`${id}:${entry}`, idOf(await conn.sobject('OpportunityLineItem').create({ OpportunityId: id, PricebookEntryId: entry, Quantity: quantity, UnitPrice: price })));
      return id;
    },
    // The line's roll-up moves the Opportunity's Amount (and SystemModstamp) by itself.
    changeQuantity: async (id, entry, quantity) => void (await conn.sobject('OpportunityLineItem').update({ Id: lineOf.get(`${id}:${entry}`)!, Quantity: quantity })),
    approve: async (id, by) => void (await update(id, { Offer_Approval_Status__c: 'Approved', Offer_Approved_By__c: by })),
    newExpiry: async (id, day) => void (await update(id, { Offer_New_Expiry_Date__c: day })),
    cancel: async (id) => void (await update(id, { Offer_Cancel_Requested__c: true })),
    async record(id) {
      const row = (await conn.sobject('Opportunity').retrieve(id)) as Record<string, any>;
      return { offerId: row.Commerce_Offer_Id__c || undefined, approvedAt: row.Offer_Approved_At__c || undefined, errors: row.Cosell_Draft_Errors__c || undefined };
    },
  };
}

/** `currency`: the deal's and its line items' in an account with several currencies; none: the company currency (the properties exist only with several). */
async function hubspotSeller(sandbox: HubSpotSandbox, companyId: string, defaultCurrency: string | undefined): Promise<OfferSeller> {
  const client = new HubSpotClient({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
  const report = { created: [] as string[], present: [] as string[], problems: [] as string[] };
  await setUpHubSpotCatalogue(createHubSpotTransport({ baseUrl: sandbox.baseUrl, credentials: { auth: 'private-app', accessToken: sandbox.accessToken } }), report);
  expect(report.problems).toEqual([]);
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
    async opportunity(name, lines, { approved = false, currency = defaultCurrency } = {}) {
      const deal = await client.crm.deals.basicApi.create({
        properties: { dealname: name, pipeline: seller.id, dealstage: seller.stages[0]!.id, closedate: `${CLOSE_DATE}T00:00:00.000Z`, ...(currency && { deal_currency_code: currency }), private_offer_requested: 'true', offer_approval_status: approved ? 'Approved' : 'Pending' },
        associations: [],
      });
      await client.crm.associations.v4.batchApi.createDefault('deals', 'companies', { inputs: [{ _from: { id: deal.id }, to: { id: companyId } }] });
      for (const [product, quantity, price] of lines) {
        const line = await client.crm.lineItems.basicApi.create({ properties: { hs_product_id: product, quantity: String(quantity), price: String(price), ...(currency && { hs_line_item_currency_code: currency }) }, associations: [] });
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

async function dynamicsSeller(sandbox: DynamicsSandbox, accountId: string, options: { currency?: string; priceListCurrencies?: string[] }): Promise<OfferSeller> {
  const transport = createDynamicsTransport({ orgUrl: sandbox.orgUrl, credentials: dynamicsCredentials({ orgUrl: sandbox.orgUrl, authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId }, { crmClientSecret: sandbox.clientSecret }) });
  const report = { created: [] as string[], present: [] as string[], problems: [] as string[], notes: [] as string[] };
  const catalogue = await setUpDynamicsCatalogue(transport, report, { priceBook: 'Commerce Marketplace Products', currencies: options.priceListCurrencies ?? [options.currency ?? 'USD'], keyWaitMs: 10_000 });
  expect(report.problems).toEqual([]);
  const scope = `${new URL(sandbox.orgUrl).origin}/.default`;
  const token = async () => {
    const response = await fetch(sandbox.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret, scope }) });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const api = new DynamicsWebApi({ serverUrl: sandbox.orgUrl, onTokenRefresh: token, propagateErrors: true });
  const update = (id: string, data: Record<string, unknown>) => api.update({ collection: 'opportunities', key: id, data });
  // The transaction currency a seller picks in the opportunity's Currency field, by its ISO code (none: left empty).
  const currencyBind = async (code: string | undefined): Promise<Record<string, string>> => {
    if (!code) return {};
    const currencies = (await api.retrieveMultiple({ collection: 'transactioncurrencies', select: ['isocurrencycode'] })).value as { transactioncurrencyid: string; isocurrencycode: string }[];
    const chosen = currencies.find((row) => row.isocurrencycode === code);
    if (!chosen) throw new Error(`the Dynamics organization has no transaction currency ${code}`);
    return { 'transactioncurrencyid@odata.bind': `/transactioncurrencies(${chosen.transactioncurrencyid})` };
  };
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
    async opportunity(name, lines, { approved = false, currency = options.currency } = {}) {
      const id = String(
        await api.create({
          collection: 'opportunities',
          data: { name, 'parentaccountid@odata.bind': `/accounts(${accountId})`, estimatedclosedate: CLOSE_DATE, ccs_privateofferrequested: true, ccs_offerapprovalstatus: approved ? 100_000_001 : 100_000_000, ...(await currencyBind(currency)) },
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
