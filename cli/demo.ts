// Demo mode of `crm-sync start`: the sandboxes (a changing commerce organization, a Salesforce org, a
// HubSpot account and a Dataverse environment) and a connection to each CRM chosen by CRM_SYNC_DEMO_CRMS
// (default salesforce; HubSpot and Dynamics are set up as `crm-sync setup` would), kept in step by the ordinary schedules. The sandboxes keep their
// data in journals under <data dir>/sandboxes, so a restart (even after SIGKILL) finds the same org
// and the sync resumes from its cursors and record links. Only when a demo CRM starts empty (first
// start, or its journal removed) are that demo connection's links and cursors forgotten.
// Co-sell moves both ways: sellers share Opportunities, share existing ones, ask for private-offer
// drafts, decide the partner's referrals and close deals (the Salesforce sandbox's change driver; in
// HubSpot and Dynamics the same moves through their APIs, demo-sellers.ts), and the partner moves referrals on and sends its own
// (demo-partner.ts); the connection's co-sell schedule runs every 30 seconds.
// The timeline and alerts (issue #27): the demo connections sync the `timeline` too (each marketplace event
// an activity on its CRM record), and their alert routes post to a local Slack/Teams-style receiver the
// demo starts, which prints each alert as one line on stdout (demo-alerts-receiver.ts, demo-alerts.ts).
// The product catalogue (issue #28): the demo connections sync the `catalogue` into the default price book
// (price lists), whose ids the catalogue part of setup finds and the connection keeps (crm.catalogueIds),
// as `crm-sync setup` does; the Dynamics and HubSpot sandboxes hold every currency the catalogue prices in.
// Private offers from products (issue #28 acceptance): the sellers add catalogue products to deals that ask
// for an offer, and each demo connection has a deal desk's approval rule (cosell.offerApproval on the CRM's
// own approval status field, docs/cosell.md), so a draft is held until the sellers' deal desk approves it,
// then published to the buyer.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { setUpDynamics } from '../crm/dynamics/setup.ts';
import { setUpHubSpot } from '../crm/hubspot/setup.ts';
import { addCatalogueSetup } from '../crm/salesforce/catalogue-setup.ts';
import { openSalesforceSession } from '../crm/salesforce/session.ts';
import type { SalesforceSetupReport } from '../crm/salesforce/setup.ts';
import { ensureDemoAlertRoutes } from './demo-alerts.ts';
import { startDemoAlertsReceiver, type DemoAlertsReceiver } from './demo-alerts-receiver.ts';
import { startDemoPartner } from './demo-partner.ts';
import { startDemoSellers, type DemoSellers, type SellerCrm } from './demo-sellers.ts';
import { dynamicsSeller } from './demo-sellers-dynamics.ts';
import { hubSpotSeller } from './demo-sellers-hubspot.ts';
import { startAllSandboxes, type Sandboxes } from '../sandbox/start-all.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createRecordLinkStore } from '../store/record-links.ts';
import { resolveSecretBox, type SecretBox } from '../store/secret-box.ts';
import { ENTITIES } from '../mappings/types.ts';
import { connectionSettingsSchema, DEFAULT_CATALOGUE_PRICE_BOOK, type ConnectionSecrets } from '../sync/connection-settings.ts';
import type pg from 'pg';

export const DEMO_CONNECTION_NAME = 'demo';
/** The demo connection of each sandbox CRM (Salesforce keeps the name it always had). */
export const DEMO_CONNECTION_NAMES: Record<DemoCrm, string> = { salesforce: DEMO_CONNECTION_NAME, hubspot: 'demo-hubspot', dynamics: 'demo-dynamics' };
type DemoCrm = AppConfig['demoCrms'][number];

/** Sellers at work: one change every five seconds (new shared deals, shares, draft requests, stage moves). */
const SELLER_CHANGES_PER_SECOND = 0.2;
/** The partner: one move (a stage on, or an inbound referral) every 15 seconds while the sellers work. */
const PARTNER_MOVE_EVERY_SECONDS = 15;

/** `resumed`: per CRM, whether it and the commerce sandbox start on saved data (else that connection starts afresh). */
/** The demo connections sync the default entities, the timeline and the product catalogue (opt-in elsewhere: docs/timeline.md). */
export const DEMO_ENTITIES = [...ENTITIES, 'timeline', 'catalogue'] as const;
/** The demo connections' catalogue: the default price book (price lists "<it> (<ISO code>)" on Dynamics). */
const DEMO_CATALOGUE = { priceBook: DEFAULT_CATALOGUE_PRICE_BOOK };
/** Each demo connection's approval rule: the approval status field setup makes, Approved, and who approved (docs/cosell.md). */
export const DEMO_OFFER_APPROVAL: Record<DemoCrm, { field: string; approvedValue: string; approvedByField: string }> = {
  salesforce: { field: 'Offer_Approval_Status__c', approvedValue: 'Approved', approvedByField: 'Offer_Approved_By__c' },
  hubspot: { field: 'offer_approval_status', approvedValue: 'Approved', approvedByField: 'offer_approved_by' },
  dynamics: { field: 'ccs_offerapprovalstatus', approvedValue: 'Approved', approvedByField: 'ccs_offerapprovedby' },
};

/**
 * `resumed`: per CRM, whether it and the commerce sandbox start on saved data (else that connection starts afresh).
 * `alerts`: the local receiver the demo connections' alert routes post to, and the key that seals those routes.
 */
export type DemoSandboxes = Sandboxes & { resumed: Record<DemoCrm, boolean>; crms: DemoCrm[]; sellers: DemoSellers; alerts: { receiver: DemoAlertsReceiver; secretBox: SecretBox } };

export async function startDemoSandboxes(config: AppConfig, logger: Logger): Promise<DemoSandboxes> {
  const saved = (name: string) => existsSync(path.join(config.dataDir, 'sandboxes', `${name}.jsonl`));
  const resumed = { salesforce: saved('commerce') && saved('salesforce'), hubspot: saved('commerce') && saved('hubspot'), dynamics: saved('commerce') && saved('dynamics') };
  const sandboxes = await startAllSandboxes({ entitlements: 1000, seed: 1, changesPerSecond: 0.2, salesforceChangesPerSecond: SELLER_CHANGES_PER_SECOND, salesforceSeed: 1, dataDir: config.dataDir, catalogueCurrencies: true });
  // First stdout line, as `crm-sync sandbox` prints it; also kept in the data directory for scripts.
  const line = JSON.stringify(sandboxes.description);
  process.stdout.write(`${line}\n`);
  writeFileSync(path.join(config.dataDir, 'sandboxes.json'), `${line}\n`, { mode: 0o600 });
  // Alerts are printed on stdout after the sandboxes line, one line each ("[alert → slack] ...").
  const receiver = await startDemoAlertsReceiver((alert) => process.stdout.write(`${alert}\n`));
  logger.info(
    { commerce: sandboxes.commerce.apiUrl, salesforce: sandboxes.salesforce.instanceUrl, hubspot: sandboxes.hubspot.baseUrl, dynamics: sandboxes.dynamics.orgUrl, crms: config.demoCrms, resumed, alertsReceiver: receiver.urls },
    `Demo sandboxes running. The demo connections (${config.demoCrms.join(', ')}) sync ${DEMO_ENTITIES.join(', ')}: marketplace events become activities on the CRM records; their alerts go to a local Slack/Teams-style receiver and are printed here as "[alert → slack] ..." lines`,
  );
  const stopPartner = startDemoPartner({
    commerceControlUrl: sandboxes.description.commerce!.controlUrl!,
    salesforceControlUrl: sandboxes.description.salesforce!.controlUrl!,
    everySeconds: PARTNER_MOVE_EVERY_SECONDS,
    logger,
  });
  // Salesforce's sellers are its sandbox's change driver; the other CRMs' work through their APIs.
  const sellers = config.demoCrms.flatMap((crm) => (crm === 'salesforce' ? [] : [DEMO_SELLERS[crm](sandboxes)]));
  const demoSellers = startDemoSellers({
    sellers,
    changesPerSecond: SELLER_CHANGES_PER_SECOND,
    seed: 1,
    salesforceControlUrl: sandboxes.description.salesforce!.controlUrl!,
    salesforceOfferDesk: config.demoCrms.includes('salesforce'),
    logger,
  });
  return {
    ...sandboxes,
    resumed,
    crms: config.demoCrms,
    sellers: demoSellers,
    alerts: { receiver, secretBox: resolveSecretBox(config) },
    async stop() {
      demoSellers.stop();
      stopPartner();
      await receiver.stop();
      await sandboxes.stop();
    },
  };
}

/** The sellers of the CRMs whose sandbox has no change driver of its own. */
const DEMO_SELLERS: Record<Exclude<DemoCrm, 'salesforce'>, (s: Sandboxes) => SellerCrm> = {
  hubspot: (s) => hubSpotSeller({ baseUrl: s.hubspot.baseUrl, accessToken: s.hubspot.accessToken }),
  dynamics: (s) => dynamicsSeller({ orgUrl: s.dynamics.orgUrl, tokenUrl: s.dynamics.tokenUrl, clientId: s.dynamics.clientId, clientSecret: s.dynamics.clientSecret }),
};

/** The demo connection to each chosen sandbox CRM; returns their ids. */
export async function ensureDemoConnections(pool: pg.Pool, connections: ConnectionStore, sandboxes: DemoSandboxes, logger: Logger): Promise<string[]> {
  const ids: string[] = [];
  for (const kind of sandboxes.crms) ids.push(await ensureDemoConnection(pool, connections, sandboxes, kind, logger));
  return ids;
}

/** What the demo keeps of a setup in the connection, as `crm-sync setup` keeps it. */
type DemoSetUp = { created: string[]; problems: string[]; entitlementObjectTypeId?: string; catalogueIds?: Record<string, string> };

/** Each sandbox CRM's demo connection: its CRM settings and secret, and what `crm-sync setup` would do first. */
const DEMO_CRMS: Record<DemoCrm, { crm(s: Sandboxes): Record<string, unknown>; secrets(s: Sandboxes): Partial<ConnectionSecrets>; setUp(s: Sandboxes): Promise<DemoSetUp> }> = {
  salesforce: {
    crm: (s) => ({ kind: 'salesforce', loginUrl: s.salesforce.loginUrl, clientId: s.salesforce.clientId }),
    secrets: (s) => ({ crmClientSecret: s.salesforce.clientSecret }),
    // The org has the project's fields from the start: only the catalogue's part, for its price books' ids.
    setUp: async (s) => {
      const { connection, userInfo } = await openSalesforceSession({ loginUrl: s.salesforce.loginUrl }, { clientId: s.salesforce.clientId, clientSecret: s.salesforce.clientSecret });
      const report: SalesforceSetupReport = { created: [], present: [], problems: [], notes: [] };
      await addCatalogueSetup(report, connection, userInfo.id, DEMO_CATALOGUE.priceBook);
      return report;
    },
  },
  hubspot: {
    crm: (s) => ({ kind: 'hubspot', baseUrl: s.hubspot.baseUrl, auth: 'private-app' }),
    secrets: (s) => ({ crmAccessToken: s.hubspot.accessToken }),
    // The custom object, the project's properties and pipelines, the catalogue's product properties (safe to repeat).
    setUp: (s) => setUpHubSpot({ baseUrl: s.hubspot.baseUrl, accessToken: s.hubspot.accessToken }, { catalogue: true }),
  },
  dynamics: {
    crm: (s) => ({ kind: 'dynamics', orgUrl: s.dynamics.orgUrl, authority: s.dynamics.authority, tenantId: s.dynamics.tenantId, clientId: s.dynamics.clientId }),
    secrets: (s) => ({ crmClientSecret: s.dynamics.clientSecret }),
    // The project's tables, columns, lookups and keys, and the catalogue's unit group and price lists (safe to repeat).
    setUp: (s) =>
      setUpDynamics(
        {
          orgUrl: s.dynamics.orgUrl,
          credentials: { authority: s.dynamics.authority, tenantId: s.dynamics.tenantId, clientId: s.dynamics.clientId, clientSecret: s.dynamics.clientSecret, scope: `${new URL(s.dynamics.orgUrl).origin}/.default` },
        },
        undefined,
        { timeline: true, catalogue: DEMO_CATALOGUE },
      ),
  },
};

async function ensureDemoConnection(pool: pg.Pool, connections: ConnectionStore, sandboxes: DemoSandboxes, kind: DemoCrm, logger: Logger): Promise<string> {
  const demo = DEMO_CRMS[kind];
  const report = await demo.setUp(sandboxes);
  if (report.created.length) logger.info({ created: report.created }, `Demo ${kind} set up`);
  if (report.problems.length) logger.warn({ problems: report.problems }, `Demo ${kind} setup found problems`);
  // Its sellers start once the co-sell fields they write exist (Salesforce's org has them from the start).
  sandboxes.sellers.setUp(kind);
  // What `crm-sync setup` keeps in the connection: HubSpot's custom object's objectTypeId, the catalogue's ids.
  const crm = {
    ...demo.crm(sandboxes),
    ...(report.entitlementObjectTypeId && { entitlementObjectTypeId: report.entitlementObjectTypeId }),
    ...(report.catalogueIds && Object.keys(report.catalogueIds).length > 0 && { catalogueIds: report.catalogueIds }),
  };
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, organizationId: sandboxes.commerce.organizationId },
    crm,
    entities: DEMO_ENTITIES,
    catalogue: DEMO_CATALOGUE,
    cosell: { offerApproval: DEMO_OFFER_APPROVAL[kind] },
    schedule: { every: '1m', realtimeEvery: '15s', lookbackSeconds: 0, pageSize: 500, cosellEvery: '30s' },
  });
  const secrets: ConnectionSecrets = { commerceClientSecret: sandboxes.commerce.clientSecret, ...demo.secrets(sandboxes) };
  const name = DEMO_CONNECTION_NAMES[kind];
  const existing = (await connections.list()).find((connection) => connection.name === name);
  const unchanged = existing && JSON.stringify(connectionSettingsSchema.parse(existing.settings)) === JSON.stringify(settings);
  // Saved again only when the sandboxes moved (another port) or the demo's settings did (a demo connection
  // saved before the timeline gets it here): an unchanged row keeps the workers' cached sessions.
  const saved = unchanged ? existing : existing ? await connections.update(existing.id, { settings, secrets }) : await connections.create({ name, crmKind: kind, settings, secrets });
  if (!sandboxes.resumed[kind]) {
    // Fresh sandboxes: what the links and cursors remember is gone on the other side.
    await createRecordLinkStore(pool).forget(saved.id);
    await createCursorStore(pool).reset(saved.id);
  }
  await ensureDemoAlertRoutes(pool, sandboxes.alerts.secretBox, saved.id, sandboxes.alerts.receiver.urls, logger);
  return saved.id;
}
