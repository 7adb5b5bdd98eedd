// The CRM a sync or co-sell test runs against, by kind: the same test runs for Salesforce and HubSpot
// (describe.each(CRMS_UNDER_TEST)). Each kind says how its sandbox starts and is made ready (HubSpot:
// `crm-sync setup`'s properties and pipelines), the connection settings and secrets, its test controls
// (calls, faults, expiring credentials), how a salesperson makes and reads opportunities (deals), and
// its witness comparison. Seller-side actions use each CRM's own client library, as a salesperson's
// tools would; the opportunity view is normalized so a test states its expectations once.
import { Client as HubSpotClient } from '@hubspot/api-client';
import { DynamicsWebApi } from 'dynamics-web-api';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import type { AuthLedgerSnapshot } from '../../sandbox/auth-ledger.ts';
import { startDynamicsSandbox, type DynamicsSandbox, type DynamicsSandboxOptions } from '../../sandbox/dynamics/index.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { DYNAMICS_TARGET, dynamicsRejections, expectDynamicsMatchesCommerce, expectOpportunityWriteBack } from './dynamics-state.ts';
import { OPPORTUNITY_ID_FIELD } from '../../commerce/crm-ids.ts';
import type { CrmKind } from '../../crm/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { COSELL_DECISION_OPTION } from '../../mappings/dynamics/schema.ts';
import type { MappingOverrides } from '../../mappings/overrides.ts';
import type { Entity } from '../../mappings/types.ts';
import { startCommerceSandbox, type CommerceSandbox, type CommerceSandboxOptions } from '../../sandbox/commerce/index.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import type { TestDatabase } from './database.ts';
import { TEST_SECRET_BOX } from './sync-harness.ts';
import { startHubSpotSandbox, type HubSpotSandbox, type HubSpotSandboxOptions } from '../../sandbox/hubspot/index.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { startSalesforceSandbox, type SalesforceSandbox, type SalesforceSandboxOptions } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control as salesforceControl } from '../../sandbox/salesforce/testing.ts';
import { TARGET, type Entity as SyncedEntity } from './expected-crm.ts';
import { expectHubSpotMatchesCommerce, expectDealWriteBack, HUBSPOT_TARGET, hubspotRejections } from './hubspot-state.ts';
import { expectedRejections, expectOfferWriteBack, expectSalesforceMatchesCommerce, salesforceDump } from './salesforce-state.ts';

export type CrmUnderTestKind = CrmKind;
/** The CRMs every parametrized sync and co-sell test runs against. */
export const CRMS_UNDER_TEST: CrmUnderTestKind[] = ['salesforce', 'hubspot', 'dynamics'];

/** An opportunity (Salesforce) or deal (HubSpot) as a co-sell test sees it. */
export type OpportunityView = {
  id: string;
  name?: string;
  /** The account (company) it is on: Salesforce's AccountId; HubSpot's first associated company. */
  accountId?: string;
  closeDate?: string;
  stage?: string;
  amount?: number;
  share?: boolean;
  partner?: string;
  referralId?: string;
  cosellStatus?: string;
  cosellStage?: string;
  cosellErrors?: string;
  /** The private-offer draft's own reasons (issue #24 item 8: apart from the referral's). */
  draftErrors?: string;
  privateOfferRequested?: boolean;
  productId?: string;
  offerId?: string;
  /** The referral's lifecycle (issue #24): the second signal to submit, the seller's decision and its reason. */
  submit?: boolean;
  decision?: CosellDecision;
  decisionReason?: string;
  /** When the partner's review ends, as an ISO 8601 instant in UTC (toISOString). */
  reviewEnds?: string;
  /** HubSpot's closed_lost_reason (Salesforce and Dynamics have no such field). */
  closedLostReason?: string;
};

/** A seller's decision on an inbound referral, by its label on every CRM (HubSpot stores accept/reject, Dynamics 100000000/100000001). */
export type CosellDecision = 'Accept' | 'Reject';

/** What a seller sets on a new or existing opportunity. */
export type OpportunityInput = {
  name?: string;
  accountId?: string;
  stage?: string;
  closeDate?: string;
  amount?: number;
  share?: boolean;
  partner?: string;
  privateOfferRequested?: boolean;
  productId?: string;
  submit?: boolean;
  /** null clears it. */
  decision?: CosellDecision | null;
  decisionReason?: string;
  /** HubSpot only. */
  closedLostReason?: string;
};

/** A stored datetime (Salesforce's +0000, HubSpot's and Dataverse's Z) as toISOString writes it. */
const instant = (value: unknown) => (typeof value === 'string' && value ? new Date(value).toISOString() : undefined);

/** `truncatedRate`: a share of calls carried out with their answer lost; `slowRate`: a share answered `slowMs` late. */
export type FaultRule = { rate500?: number; rate429?: number; latencyMs?: number; seed?: number; truncatedRate?: number; slowRate?: number; slowMs?: number };

export type CrmUnderTest = {
  kind: CrmUnderTestKind;
  name: string;
  /** The commerce field holding this CRM's opportunity (deal) id. */
  opportunityIdField: string;
  /** The stage a seller's new opportunity starts in. */
  openStage: string;
  /** The connection's `crm` settings and its CRM secrets. */
  settings(): Record<string, unknown>;
  secrets(): Record<string, string>;
  calls(): Promise<Record<string, number>>;
  resetCalls(): Promise<void>;
  /** How many of `calls` wrote to the CRM. */
  writeCalls(calls: Record<string, number>): number;
  faults(rule: FaultRule): Promise<void>;
  clearFaults(): Promise<void>;
  /** How many answers the faults replaced, by status. */
  injected(): Promise<Record<string, number>>;
  /** Every token or session issued so far stops working. */
  expireCredentials(): Promise<void>;
  /** What the sandbox's token endpoint and bearer checks saw: token requests by client id, bearer tokens refused by why. */
  authLedger(): Promise<AuthLedgerSnapshot>;
  /** The accounts (companies) synced from commerce buyers. */
  accounts(): Promise<{ id: string; buyerId: string }[]>;
  /** The contacts on an account (company) that came from the commerce side: CRM id and commerce id. */
  contactsOf(accountId: string): Promise<{ id: string; commerceId: string }[]>;
  /** Which contacts each opportunity names, as `opportunityId:contactId` (contact roles, deal associations). */
  opportunityContacts(): Promise<string[]>;
  /** The CRM contact of each commerce contact (HubSpot: the contact holding its email when it was merged). */
  contactIdsOf(commerceContacts: { id: string; email?: string }[]): Promise<Map<string, string>>;
  /** A seller names a contact on an opportunity (Salesforce: a contact role; HubSpot: an association). */
  addContact(opportunityId: string, contactId: string): Promise<void>;
  /** An account (company) a seller makes by hand: no marketplace buyer behind it. */
  createAccount(name: string): Promise<string>;
  createOpportunities(inputs: OpportunityInput[]): Promise<string[]>;
  updateOpportunity(id: string, input: OpportunityInput): Promise<void>;
  opportunities(): Promise<OpportunityView[]>;
  /** The CRM records of an entity by commerce id: their CRM id, fields as stored, and whether deleted. */
  keyed(entity: SyncedEntity): Promise<Map<string, { id: string; fields: Record<string, any>; deleted: boolean }>>;
  /**
   * Dynamics only: a seller closes an opportunity the one way Dataverse allows, with the WinOpportunity
   * (Won, status reason 3) or LoseOpportunity action (status reason 4 Canceled or 5 Out-Sold).
   */
  closeOpportunity?(id: string, outcome: { won: true } | { lost: 'Canceled' | 'Out-Sold' }): Promise<void>;
  /** The sandbox itself, for a test about one CRM's own behaviour. */
  salesforce?: SalesforceSandbox;
  hubspot?: HubSpotSandbox;
  dynamics?: DynamicsSandbox;
  /** The CRM holds exactly what the witness says; returns the records it expects rejected (`entity:id`, sorted). */
  expectMatchesCommerce(commerce: Pick<CommerceSandbox, 'apiUrl'>, synced?: SyncedEntity[]): Promise<string[]>;
  expectWriteBack(commerce: Pick<CommerceSandbox, 'apiUrl'>): Promise<void>;
  stop(): Promise<void>;
};

const WRITE_CALL = /upsert|create|update|bulk2|ingest|patch|associat.*(default|create)/i;
const countWrites = (calls: Record<string, number>) =>
  Object.entries(calls).filter(([name, count]) => WRITE_CALL.test(name) && !/token|total|read/i.test(name) && count > 0).reduce((sum, [, count]) => sum + count, 0);

export type CrmSandboxOptions = {
  /** How a HubSpot connection signs in (a private app's token, or OAuth whose tokens expire). */
  auth?: 'private-app' | 'oauth';
  /** More start options of that kind's sandbox (its credentials, id range, schema). */
  sandbox?: SalesforceSandboxOptions | HubSpotSandboxOptions | DynamicsSandboxOptions;
  /** What an admin did in the org before it was made ready (`crm-sync setup`), on the started sandbox. */
  beforeSetup?: (sandbox: SalesforceSandbox | HubSpotSandbox | DynamicsSandbox) => Promise<void>;
};

export async function startCrmSandbox(kind: CrmUnderTestKind, options: CrmSandboxOptions = {}): Promise<CrmUnderTest> {
  const prepared = async <S extends SalesforceSandbox | HubSpotSandbox | DynamicsSandbox>(sandbox: S): Promise<S> => {
    await options.beforeSetup?.(sandbox);
    return sandbox;
  };
  // Dataverse's server time per operation is 0 here unless a test asks for it (sync.test.ts runs the
  // sandbox's realistic default): thousands of records at tens of ms each would make npm test long.
  if (kind === 'dynamics') return setUp(dynamicsUnderTest(await prepared(await startDynamicsSandbox({ operationMs: 0, ...(options.sandbox as DynamicsSandboxOptions) }))));
  if (kind === 'salesforce') return salesforceUnderTest(await prepared(await startSalesforceSandbox(options.sandbox as SalesforceSandboxOptions)));
  const hubspot = await startHubSpotSandbox({ tenSecondlyLimit: 1000, dailyLimit: 10_000_000, ...(options.sandbox as HubSpotSandboxOptions) });
  return setUp(hubspotUnderTest(await prepared(hubspot), options.auth ?? 'private-app'));
}

/**
 * The org once `crm-sync setup` has finished in it, as the README asks before anything syncs: a sync
 * started while setup still creates properties, pipelines or keys meets an org that lacks them (setup
 * waits for Dataverse's keys to become Active, and makes HubSpot's custom object and property groups;
 * two orgs set up at once on a busy machine lost that race). The problems setup reports are the tests'
 * to check (a sandbox started without a privilege reports one on purpose).
 */
async function setUp({ crm, ready }: { crm: CrmUnderTest; ready: Promise<{ problems: string[] }> }): Promise<CrmUnderTest> {
  await ready;
  return crm;
}

function salesforceUnderTest(salesforce: SalesforceSandbox): CrmUnderTest {
  const connection = clientCredentialsConnection(salesforce);
  const toRecord = (input: OpportunityInput) =>
    Object.fromEntries(
      Object.entries({
        Name: input.name,
        AccountId: input.accountId,
        StageName: input.stage,
        CloseDate: input.closeDate,
        Amount: input.amount,
        Cosell_Share__c: input.share,
        Cosell_Partner__c: input.partner,
        Private_Offer_Requested__c: input.privateOfferRequested,
        Commerce_Product_Id__c: input.productId,
        Cosell_Submit__c: input.submit,
        Cosell_Decision__c: input.decision,
        Cosell_Decision_Reason__c: input.decisionReason,
      }).filter(([, value]) => value !== undefined),
    );
  return {
    kind: 'salesforce',
    name: 'Salesforce',
    opportunityIdField: OPPORTUNITY_ID_FIELD.salesforce,
    openStage: 'Prospecting',
    settings: () => ({ kind: 'salesforce', loginUrl: salesforce.loginUrl, clientId: salesforce.clientId }),
    secrets: () => ({ crmClientSecret: salesforce.clientSecret }),
    calls: async () => {
      const body = await salesforceControl(salesforce, 'GET', '/calls');
      return body.byEndpoint ?? body.counts ?? body;
    },
    resetCalls: async () => void (await salesforceControl(salesforce, 'POST', '/calls/reset')),
    writeCalls: countWrites,
    faults: async (rule) => void (await salesforceControl(salesforce, 'POST', '/faults', { endpoint: '*', ...rule })),
    clearFaults: async () => void (await salesforceControl(salesforce, 'DELETE', '/faults')),
    injected: async () => (await salesforceControl(salesforce, 'GET', '/faults')).injected,
    expireCredentials: async () => void (await salesforceControl(salesforce, 'POST', '/sessions/expire')),
    authLedger: () => salesforceControl(salesforce, 'GET', '/auth'),
    accounts: async () =>
      (await salesforceDump(salesforce, 'Account')).filter((account) => account.Commerce_Buyer_Id__c).map((account) => ({ id: account.Id, buyerId: account.Commerce_Buyer_Id__c })),
    opportunityContacts: async () => (await salesforceDump(salesforce, 'OpportunityContactRole')).map((role) => `${role.OpportunityId}:${role.ContactId}`).sort(),
    contactIdsOf: async (commerceContacts) => {
      const byId = new Map((await salesforceDump(salesforce, 'Contact')).map((row) => [row.Commerce_Contact_Id__c, row.Id]));
      return new Map(commerceContacts.flatMap((contact) => (byId.has(contact.id) ? [[contact.id, byId.get(contact.id)!]] : [])));
    },
    contactsOf: async (accountId) =>
      (await salesforceDump(salesforce, 'Contact')).filter((row) => row.AccountId === accountId && row.Commerce_Contact_Id__c).map((row) => ({ id: row.Id, commerceId: row.Commerce_Contact_Id__c })),
    async addContact(opportunityId, contactId) {
      const { conn } = await connection;
      await conn.sobject('OpportunityContactRole').create({ OpportunityId: opportunityId, ContactId: contactId, Role: 'Decision Maker' });
    },
    async createAccount(name) {
      const { conn } = await connection;
      return ((await conn.sobject('Account').create({ Name: name })) as unknown as { id: string }).id;
    },
    async createOpportunities(inputs) {
      const { conn } = await connection;
      const results = (await conn.sobject('Opportunity').create(inputs.map(toRecord) as never[], { allOrNone: true, allowRecursive: true })) as unknown as { id: string; success: boolean }[];
      if (!results.every((result) => result.success)) throw new Error(`Salesforce refused a test Opportunity: ${JSON.stringify(results)}`);
      return results.map((result) => result.id);
    },
    async updateOpportunity(id, input) {
      const { conn } = await connection;
      await conn.sobject('Opportunity').update({ Id: id, ...toRecord(input) } as never);
    },
    opportunities: async () =>
      (await salesforceDump(salesforce, 'Opportunity')).map((row) => ({
        id: row.Id,
        name: row.Name,
        accountId: row.AccountId ?? undefined,
        closeDate: row.CloseDate ?? undefined,
        stage: row.StageName,
        amount: row.Amount ?? undefined,
        share: row.Cosell_Share__c === true,
        partner: row.Cosell_Partner__c ?? undefined,
        referralId: row.Commerce_Referral_Id__c ?? undefined,
        cosellStatus: row.Cosell_Status__c ?? undefined,
        cosellStage: row.Cosell_Stage__c ?? undefined,
        cosellErrors: row.Cosell_Errors__c ?? undefined,
        draftErrors: row.Cosell_Draft_Errors__c ?? undefined,
        privateOfferRequested: row.Private_Offer_Requested__c === true,
        productId: row.Commerce_Product_Id__c ?? undefined,
        offerId: row.Commerce_Offer_Id__c ?? undefined,
        submit: row.Cosell_Submit__c === true,
        decision: row.Cosell_Decision__c ?? undefined,
        decisionReason: row.Cosell_Decision_Reason__c ?? undefined,
        reviewEnds: instant(row.Cosell_Review_Ends__c),
      })),
    keyed: async (entity) =>
      new Map((await salesforceDump(salesforce, TARGET[entity].object)).filter((row) => row[TARGET[entity].externalIdField]).map((row) => [row[TARGET[entity].externalIdField], { id: row.Id, fields: row, deleted: row.IsDeleted === true }])),
    salesforce,
    expectMatchesCommerce: async (commerce, synced) => {
      if (synced) throw new Error('The Salesforce witness compares every entity: check a subset with expectedCrmState');
      return expectedRejections(await expectSalesforceMatchesCommerce(commerce, salesforce));
    },
    expectWriteBack: (commerce) => expectOfferWriteBack(commerce, salesforce),
    stop: () => salesforce.stop(),
  };
}

function hubspotUnderTest(hubspot: HubSpotSandbox, auth: 'private-app' | 'oauth'): { crm: CrmUnderTest; ready: Promise<{ problems: string[] }> } {
  const client = new HubSpotClient({ accessToken: hubspot.accessToken, basePath: hubspot.baseUrl });
  // `crm-sync setup` before anything syncs, as the README asks of a new HubSpot account.
  const ready = setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
  let pipelines: Promise<Map<string, { id: string; stages: Map<string, string> }>> | undefined;
  const pipelineByLabel = () =>
    (pipelines ??= client.crm.pipelines.pipelinesApi.getAll('deals').then(
      (answer) => new Map(answer.results.map((pipeline) => [pipeline.label, { id: pipeline.id, stages: new Map(pipeline.stages.map((stage) => [stage.label, stage.id])) }])),
    ));
  const stageLabels = async () => new Map([...(await pipelineByLabel()).values()].flatMap((pipeline) => [...pipeline.stages].map(([label, id]) => [id, label] as const)));
  const SELLER_PIPELINE = 'Sales Pipeline';
  const toProperties = async (input: OpportunityInput) => {
    const seller = (await pipelineByLabel()).get(SELLER_PIPELINE)!;
    const stageId = input.stage === undefined ? undefined : (seller.stages.get(input.stage) ?? input.stage);
    return Object.fromEntries(
      Object.entries({
        dealname: input.name,
        dealstage: stageId,
        closedate: input.closeDate,
        amount: input.amount === undefined ? undefined : String(input.amount),
        cosell_share: input.share === undefined ? undefined : String(input.share),
        cosell_partner: input.partner,
        private_offer_requested: input.privateOfferRequested === undefined ? undefined : String(input.privateOfferRequested),
        commerce_product_id: input.productId,
        cosell_submit: input.submit === undefined ? undefined : String(input.submit),
        cosell_decision: input.decision === undefined ? undefined : input.decision === null ? '' : input.decision.toLowerCase(),
        cosell_decision_reason: input.decisionReason,
        closed_lost_reason: input.closedLostReason,
      }).filter(([, value]) => value !== undefined),
    ) as Record<string, string>;
  };
  const records = async (type: string): Promise<any[]> => {
    const body = await hubspotControl(hubspot, 'GET', `/records/${type}`);
    return Array.isArray(body) ? body : (body.records ?? body.results);
  };
  const props = (record: any): Record<string, string | undefined> => record.properties ?? record;
  const crm: CrmUnderTest = {
    kind: 'hubspot',
    name: 'HubSpot',
    opportunityIdField: OPPORTUNITY_ID_FIELD.hubspot,
    openStage: 'Appointment Scheduled',
    settings: () => ({ kind: 'hubspot', baseUrl: hubspot.baseUrl, auth, ...(auth === 'oauth' && { clientId: hubspot.oauth.clientId }) }),
    secrets: (): Record<string, string> => (auth === 'oauth' ? { crmClientSecret: hubspot.oauth.clientSecret, crmRefreshToken: hubspot.oauth.refreshToken } : { crmAccessToken: hubspot.accessToken }),
    calls: async () => {
      await ready;
      return hubspotControl(hubspot, 'GET', '/calls');
    },
    resetCalls: async () => void (await hubspotControl(hubspot, 'DELETE', '/calls')),
    writeCalls: countWrites,
    faults: async (rule) => void (await hubspotControl(hubspot, 'POST', '/faults', { endpoint: '*', ...rule })),
    clearFaults: async () => void (await hubspotControl(hubspot, 'DELETE', '/faults')),
    injected: async () => {
      const body = await hubspotControl(hubspot, 'GET', '/faults');
      return body.injected ?? body.replaced ?? {};
    },
    expireCredentials: async () => void (await hubspotControl(hubspot, 'POST', '/tokens/expire')),
    authLedger: () => hubspotControl(hubspot, 'GET', '/auth'),
    accounts: async () =>
      (await records('companies')).map((company) => ({ id: String(company.id), buyerId: props(company).commerce_buyer_id! })).filter((company) => company.buyerId),
    async createOpportunities(inputs) {
      await ready;
      const seller = (await pipelineByLabel()).get(SELLER_PIPELINE)!;
      const ids: string[] = [];
      for (let start = 0; start < inputs.length; start += 100) {
        const chunk = inputs.slice(start, start + 100);
        const created = await client.crm.deals.batchApi.create({
          inputs: await Promise.all(chunk.map(async (input) => ({ properties: { pipeline: seller.id, dealstage: seller.stages.get(input.stage ?? 'Appointment Scheduled')!, ...(await toProperties({ ...input, stage: undefined })) }, associations: [] }))),
        });
        // Batch create answers in no promised order: match by name, as a seller's tool would by its own key.
        const byName = new Map(created.results.map((deal) => [deal.properties.dealname, deal.id]));
        for (const input of chunk) ids.push(byName.get(input.name!)!);
        const companies = chunk.map((input, index) => ({ deal: byName.get(input.name!)!, company: input.accountId, index })).filter((pair) => pair.company);
        if (companies.length) {
          await client.crm.associations.v4.batchApi.createDefault('deals', 'companies', { inputs: companies.map((pair) => ({ _from: { id: pair.deal }, to: { id: pair.company! } })) });
        }
      }
      return ids;
    },
    async opportunityContacts() {
      const all: { fromType: string; fromId: string; toType: string; toId: string }[] = await hubspotControl(hubspot, 'GET', '/associations');
      return [...new Set(all.filter((a) => a.fromType === 'deals' && a.toType === 'contacts').map((a) => `${a.fromId}:${a.toId}`))].sort();
    },
    async contactIdsOf(commerceContacts) {
      const stored = await records('contacts');
      const byKey = new Map(stored.map((contact) => [props(contact).commerce_contact_id, String(contact.id)]));
      const byEmail = new Map(stored.filter((contact) => props(contact).email).map((contact) => [props(contact).email!.toLowerCase(), String(contact.id)]));
      return new Map(
        commerceContacts.flatMap((contact) => {
          const id = byKey.get(contact.id) ?? (contact.email ? byEmail.get(contact.email.toLowerCase()) : undefined);
          return id ? [[contact.id, id]] : [];
        }),
      );
    },
    async contactsOf(accountId) {
      const associated = await client.crm.associations.v4.basicApi.getPage('companies', accountId, 'contacts', undefined, 500);
      const ids = new Set(associated.results.map((row) => String(row.toObjectId)));
      return (await records('contacts')).filter((contact) => ids.has(String(contact.id)) && props(contact).commerce_contact_id).map((contact) => ({ id: String(contact.id), commerceId: props(contact).commerce_contact_id! }));
    },
    async addContact(opportunityId, contactId) {
      await client.crm.associations.v4.batchApi.createDefault('deals', 'contacts', { inputs: [{ _from: { id: opportunityId }, to: { id: contactId } }] });
    },
    async createAccount(name) {
      return (await client.crm.companies.basicApi.create({ properties: { name }, associations: [] })).id;
    },
    async updateOpportunity(id, input) {
      const properties = await toProperties(input);
      if (Object.keys(properties).length) await client.crm.deals.basicApi.update(id, { properties });
      // A seller moves a deal to another company by associating it there, then saves the deal (what
      // the refusal written on it asks: an association alone does not change the deal).
      if (input.accountId) {
        await client.crm.associations.v4.batchApi.createDefault('deals', 'companies', { inputs: [{ _from: { id }, to: { id: input.accountId } }] });
        const deal = await client.crm.deals.basicApi.getById(id, ['dealname']);
        await client.crm.deals.basicApi.update(id, { properties: { dealname: deal.properties.dealname ?? '' } });
      }
    },
    async opportunities() {
      const labels = await stageLabels();
      const associations: { fromType: string; fromId: string; toType: string; toId: string }[] = await hubspotControl(hubspot, 'GET', '/associations');
      const companyOf = new Map<string, string>();
      for (const a of associations) if (a.fromType === 'deals' && a.toType === 'companies' && !companyOf.has(a.fromId)) companyOf.set(a.fromId, a.toId);
      return (await records('deals')).map((deal) => {
        const p = props(deal);
        const flag = (value: string | undefined) => value === 'true';
        return {
          id: String(deal.id),
          name: p.dealname,
          accountId: companyOf.get(String(deal.id)),
          closeDate: p.closedate ? p.closedate.slice(0, 10) : undefined,
          stage: p.dealstage === undefined ? undefined : (labels.get(p.dealstage) ?? p.dealstage),
          amount: p.amount ? Number(p.amount) : undefined,
          share: flag(p.cosell_share),
          partner: p.cosell_partner || undefined,
          referralId: p.commerce_referral_id || undefined,
          cosellStatus: p.cosell_status || undefined,
          cosellStage: p.cosell_stage || undefined,
          cosellErrors: p.cosell_errors || undefined,
          draftErrors: p.cosell_draft_errors || undefined,
          privateOfferRequested: flag(p.private_offer_requested),
          productId: p.commerce_product_id || undefined,
          offerId: p.commerce_offer_id || undefined,
          submit: flag(p.cosell_submit),
          decision: p.cosell_decision === 'accept' ? 'Accept' : p.cosell_decision === 'reject' ? 'Reject' : undefined,
          decisionReason: p.cosell_decision_reason || undefined,
          reviewEnds: instant(p.cosell_review_ends),
          closedLostReason: p.closed_lost_reason || undefined,
        };
      });
    },
    keyed: async (entity) => {
      const { object, key } = HUBSPOT_TARGET[entity];
      return new Map((await records(object)).filter((record) => props(record)[key]).map((record) => [props(record)[key]!, { id: String(record.id), fields: props(record), deleted: record.archived === true }]));
    },
    hubspot,
    expectMatchesCommerce: async (commerce, synced) => hubspotRejections(await expectHubSpotMatchesCommerce(commerce, hubspot, synced)),
    expectWriteBack: (commerce) => expectDealWriteBack(commerce, hubspot),
    stop: () => hubspot.stop(),
  };
  return { crm, ready };
}

function dynamicsUnderTest(dynamics: DynamicsSandbox): { crm: CrmUnderTest; ready: Promise<{ problems: string[] }> } {
  const scope = `${new URL(dynamics.orgUrl).origin}/.default`;
  const credentials = { authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope };
  // `crm-sync setup` before anything syncs, as the README asks of a new environment.
  const ready = setUpDynamics({ orgUrl: dynamics.orgUrl, credentials });
  // A salesperson's tool: dynamics-web-api with its own client-credentials token (not the connector's code).
  const sellerToken = async () => {
    const response = await fetch(dynamics.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: dynamics.clientId, client_secret: dynamics.clientSecret, scope }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`Dataverse sandbox token: ${JSON.stringify(body)}`);
    return body.access_token;
  };
  const seller = () => new DynamicsWebApi({ serverUrl: dynamics.orgUrl, onTokenRefresh: sellerToken, propagateErrors: true });
  // A table's rows by entity set or logical name (the control takes either). keyed() asks by logical
  // name: an environment may give a custom table another entity set name.
  const rows = async (name: string): Promise<any[]> => {
    const body = await dynamicsControl(dynamics, 'GET', `/records/${name}`);
    return Array.isArray(body) ? body : (body.records ?? body.value);
  };
  const toData = (input: OpportunityInput) =>
    Object.fromEntries(
      Object.entries({
        name: input.name,
        'parentaccountid@odata.bind': input.accountId ? `/accounts(${input.accountId})` : undefined,
        stepname: input.stage,
        estimatedclosedate: input.closeDate,
        estimatedvalue: input.amount,
        ccs_cosellshare: input.share,
        ccs_cosellpartner: input.partner,
        ccs_privateofferrequested: input.privateOfferRequested,
        ccs_commerceproductid: input.productId,
        ccs_cosellsubmit: input.submit,
        ccs_coselldecision: input.decision === undefined || input.decision === null ? input.decision : COSELL_DECISION_OPTION[input.decision === 'Accept' ? 'accept' : 'reject'],
        ccs_coselldecisionreason: input.decisionReason,
      }).filter(([, value]) => value !== undefined),
    );
  const crm: CrmUnderTest = {
    kind: 'dynamics',
    name: 'Dynamics 365',
    opportunityIdField: OPPORTUNITY_ID_FIELD.dynamics,
    openStage: '1-Qualify',
    settings: () => ({ kind: 'dynamics', orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId }),
    secrets: () => ({ crmClientSecret: dynamics.clientSecret }),
    calls: async () => {
      await ready;
      return dynamicsControl(dynamics, 'GET', '/calls');
    },
    resetCalls: async () => void (await dynamicsControl(dynamics, 'DELETE', '/calls')),
    // Writes are the $batch calls and single POST/PATCH/DELETEs on tables (not tokens, not metadata), less
    // the $batch calls of GET parts only (lookups), which the sandbox counts apart.
    writeCalls: (calls) =>
      Object.entries(calls)
        .filter(([name, count]) => /^(POST|PATCH|DELETE) /.test(name) && !/token|Definitions/i.test(name) && count > 0)
        .reduce((sum, [, count]) => sum + count, 0) - (calls['$batch of reads only'] ?? 0),
    faults: async (rule) => void (await dynamicsControl(dynamics, 'POST', '/faults', { endpoint: '*', ...rule })),
    clearFaults: async () => void (await dynamicsControl(dynamics, 'DELETE', '/faults')),
    injected: async () => (await dynamicsControl(dynamics, 'GET', '/faults')).injected ?? {},
    expireCredentials: async () => void (await dynamicsControl(dynamics, 'POST', '/tokens/expire')),
    authLedger: () => dynamicsControl(dynamics, 'GET', '/auth'),
    accounts: async () => (await rows('accounts')).filter((account) => account.ccs_commercebuyerid).map((account) => ({ id: account.accountid, buyerId: account.ccs_commercebuyerid })),
    contactsOf: async (accountId) =>
      (await rows('contacts')).filter((contact) => contact._parentcustomerid_value === accountId && contact.ccs_commercecontactid).map((contact) => ({ id: contact.contactid, commerceId: contact.ccs_commercecontactid })),
    opportunityContacts: async () => (await rows('ccs_opportunitycontacts')).map((link) => `${link._ccs_opportunityid_value}:${link._ccs_contactid_value}`).sort(),
    async contactIdsOf(commerceContacts) {
      const stored = await rows('contacts');
      const byKey = new Map(stored.map((contact) => [contact.ccs_commercecontactid, contact.contactid]));
      const byEmail = new Map(stored.filter((contact) => contact.emailaddress1).map((contact) => [String(contact.emailaddress1).toLowerCase(), contact.contactid]));
      return new Map(
        commerceContacts.flatMap((contact) => {
          const id = byKey.get(contact.id) ?? (contact.email ? byEmail.get(contact.email.toLowerCase()) : undefined);
          return id ? [[contact.id, id]] : [];
        }),
      );
    },
    async addContact(opportunityId, contactId) {
      await ready;
      await seller().create({ collection: 'ccs_opportunitycontacts', data: { ccs_name: 'Stakeholder', 'ccs_opportunityid@odata.bind': `/opportunities(${opportunityId})`, 'ccs_contactid@odata.bind': `/contacts(${contactId})` } });
    },
    async createAccount(name) {
      return (await seller().create({ collection: 'accounts', data: { name } })) as string;
    },
    async createOpportunities(inputs) {
      await ready;
      const ids: string[] = [];
      for (let start = 0; start < inputs.length; start += 1000) {
        const client = seller();
        client.startBatch();
        for (const input of inputs.slice(start, start + 1000)) await client.create({ collection: 'opportunities', data: toData({ stage: '1-Qualify', ...input }) });
        const answers = await client.executeBatch({ inChangeSet: false });
        for (const answer of answers) {
          if (typeof answer !== 'string') throw new Error(`Dataverse refused a test opportunity: ${(answer as Error)?.message ?? JSON.stringify(answer)}`);
          ids.push(answer.toLowerCase());
        }
      }
      return ids;
    },
    async updateOpportunity(id, input) {
      await seller().update({ collection: 'opportunities', key: id, data: toData(input) });
    },
    async closeOpportunity(id, outcome) {
      const won = 'won' in outcome;
      const close = { subject: won ? 'Won' : `Lost: ${outcome.lost}`, 'opportunityid@odata.bind': `/opportunities(${id})` };
      await seller().callAction({ actionName: won ? 'WinOpportunity' : 'LoseOpportunity', action: { Status: won ? 3 : outcome.lost === 'Canceled' ? 4 : 5, OpportunityClose: close } });
    },
    opportunities: async () =>
      (await rows('opportunities')).map((row) => ({
        id: row.opportunityid,
        name: row.name ?? undefined,
        accountId: row._parentaccountid_value ?? undefined,
        closeDate: row.estimatedclosedate ? String(row.estimatedclosedate).slice(0, 10) : undefined,
        stage: row.stepname ?? undefined,
        amount: row.estimatedvalue ?? undefined,
        share: row.ccs_cosellshare === true,
        partner: row.ccs_cosellpartner || undefined,
        referralId: row.ccs_commercereferralid || undefined,
        cosellStatus: row.ccs_cosellstatus || undefined,
        cosellStage: row.ccs_cosellstage || undefined,
        cosellErrors: row.ccs_cosellerrors || undefined,
        draftErrors: row.ccs_coselldrafterrors || undefined,
        privateOfferRequested: row.ccs_privateofferrequested === true,
        productId: row.ccs_commerceproductid || undefined,
        offerId: row.ccs_commerceofferid || undefined,
        submit: row.ccs_cosellsubmit === true,
        decision: row.ccs_coselldecision === COSELL_DECISION_OPTION.accept ? 'Accept' : row.ccs_coselldecision === COSELL_DECISION_OPTION.reject ? 'Reject' : undefined,
        decisionReason: row.ccs_coselldecisionreason || undefined,
        reviewEnds: instant(row.ccs_cosellreviewends),
      })),
    keyed: async (entity) => {
      const { table, key } = DYNAMICS_TARGET[entity];
      return new Map((await rows(table)).filter((row) => row[key]).map((row) => [row[key], { id: row[`${table}id`], fields: row, deleted: row.statecode === 1 }]));
    },
    dynamics,
    expectMatchesCommerce: async (commerce, synced) => dynamicsRejections(await expectDynamicsMatchesCommerce(commerce, dynamics, synced)),
    expectWriteBack: (commerce) => expectOpportunityWriteBack(commerce, dynamics),
    stop: () => dynamics.stop(),
  };
  return { crm, ready };
}

/** The commerce sandbox and one CRM sandbox, as a sync test starts them. */
export async function startSandboxesFor(kind: CrmUnderTestKind, commerceOptions: CommerceSandboxOptions = {}, crmOptions: CrmSandboxOptions = {}) {
  const commerce = await startCommerceSandbox(commerceOptions);
  const crm = await startCrmSandbox(kind, crmOptions);
  return { commerce, crm, stop: async () => { await commerce.stop(); await crm.stop(); } };
}

/** A stored connection from the commerce sandbox to the CRM under test (production look-back unless told). */
/** `crmSettings`: more of the CRM side's settings (a Dynamics requestTimeoutMs, say); `overrides`: the mapping's, per entity. */
export async function createCrmConnection(
  database: TestDatabase,
  commerce: CommerceSandbox,
  crm: CrmUnderTest,
  extra: { name?: string; pageSize?: number; entities?: Entity[]; lookbackSeconds?: number; crmSettings?: Record<string, unknown>; commerceSettings?: Record<string, unknown>; overrides?: MappingOverrides } = {},
) {
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId, ...extra.commerceSettings },
    crm: { ...crm.settings(), ...extra.crmSettings },
    entities: extra.entities,
    overrides: extra.overrides,
    schedule: { every: '5m', pageSize: extra.pageSize ?? 1000, ...(extra.lookbackSeconds === undefined ? {} : { lookbackSeconds: extra.lookbackSeconds }) },
  });
  return createConnectionStore(database.pool, TEST_SECRET_BOX).create({
    name: extra.name ?? `sandbox-${crm.kind}-${Date.now()}`,
    crmKind: crm.kind,
    settings,
    secrets: { commerceClientSecret: commerce.clientSecret, ...crm.secrets() },
  });
}
