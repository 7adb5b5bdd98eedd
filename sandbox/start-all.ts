// Starts every sandbox on loopback and describes them in one JSON object: the first stdout line of
// `crm-sync sandbox` and of `npm start` in demo mode, so scripts can find them.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE } from './commerce/data/catalogue.ts';
import { startCommerceSandbox, type CommerceSandbox } from './commerce/index.ts';
import { readPorts, startOnRememberedPorts, writePorts, type Ports } from './remembered-ports.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from './dynamics/index.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from './hubspot/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from './salesforce/index.ts';

export type SandboxesOptions = {
  host?: string;
  commercePort?: number;
  commerceAuthPort?: number;
  salesforcePort?: number;
  hubspotPort?: number;
  dynamicsPort?: number;
  seed?: number;
  entitlements?: number;
  changesPerSecond?: number;
  /** The Salesforce sandbox's seller change driver (its README "Change driver"): changes a second, 0 (default) off. */
  salesforceChangesPerSecond?: number;
  /** That driver's PRNG seed (default 1): the same seed on the same org gives the same changes. */
  salesforceSeed?: number;
  /** The Dataverse sandbox's server time per operation (its limits.ts); default its realistic DEFAULT_OPERATION_MS. */
  dynamicsOperationMs?: number;
  /**
   * The product catalogue (issue #28) has a place for every price: the Dataverse environment and the
   * HubSpot account hold, besides USD, each currency the commerce sandbox's products are priced in
   * (Dynamics' transaction currencies, one price list each; HubSpot's account currencies, hs_price_<code>).
   * Default false: single-currency CRMs, as the tests start them.
   */
  catalogueCurrencies?: boolean;
  /**
   * A durable commerce journal of data an older version generated (a demo data directory kept across an
   * upgrade that changed the generated data) is renamed aside and a fresh one started; this is told where
   * it went (default: a line on stderr). Nothing of it could be replayed over today's data.
   */
  onJournalSetAside?: (renamedTo: string, why: string) => void;
  /**
   * Makes the sandboxes durable: their journals are <dataDir>/sandboxes/commerce.jsonl,
   * salesforce.jsonl, hubspot.jsonl and dynamics.jsonl, and the ports they chose are remembered in ports.json and taken again next
   * time when free. Started again on the same dataDir (even after SIGKILL) they hold the data they
   * had. Default: in memory only, on free ports.
   */
  dataDir?: string;
};

export type Sandboxes = {
  commerce: CommerceSandbox;
  salesforce: SalesforceSandbox;
  hubspot: HubSpotSandbox;
  dynamics: DynamicsSandbox;
  description: Record<string, Record<string, string>>;
  stop(): Promise<void>;
};

/** The currencies the commerce sandbox's catalogue prices in besides USD (the CRM sandboxes' base currency). */
export const CATALOGUE_OTHER_CURRENCIES: readonly string[] = [...new Set(CATALOGUE.flatMap((entry) => entry.currencies))].filter((code) => code !== 'USD');

export async function startAllSandboxes(options: SandboxesOptions = {}): Promise<Sandboxes> {
  const host = options.host ?? '127.0.0.1';
  const otherCurrencies = options.catalogueCurrencies ? [...CATALOGUE_OTHER_CURRENCIES] : undefined;
  const dir = options.dataDir === undefined ? undefined : path.join(options.dataDir, 'sandboxes');
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const portsFile = dir && path.join(dir, 'ports.json');
  const saved: Ports = portsFile ? readPorts(portsFile) : {};
  // A port given as an option wins over the remembered one (and is not given up when taken).
  const remembered = (option: number | undefined, port: number | undefined) => (option === undefined ? port : undefined);
  const commerce = await startOnRememberedPorts({ commerceApi: remembered(options.commercePort, saved.commerceApi), commerceAuth: remembered(options.commerceAuthPort, saved.commerceAuth) }, (ports) =>
    startCommerceSandbox({
      host,
      apiPort: options.commercePort ?? ports.commerceApi ?? 0,
      authPort: options.commerceAuthPort ?? ports.commerceAuth ?? 0,
      seed: options.seed,
      entitlements: options.entitlements,
      changesPerSecond: options.changesPerSecond,
      journalPath: dir && path.join(dir, 'commerce.jsonl'),
      setAsideStaleJournal: true,
      onJournalSetAside: options.onJournalSetAside ?? ((renamedTo, why) => process.stderr.write(`${why}; it was moved to ${renamedTo} and the commerce sandbox starts from fresh data\n`)),
    }),
  );
  let salesforce: SalesforceSandbox;
  try {
    salesforce = await startOnRememberedPorts({ salesforce: remembered(options.salesforcePort, saved.salesforce) }, (ports) =>
      startSalesforceSandbox({
        host,
        port: options.salesforcePort ?? ports.salesforce ?? 0,
        journalPath: dir && path.join(dir, 'salesforce.jsonl'),
        seed: options.salesforceSeed,
        changesPerSecond: options.salesforceChangesPerSecond,
      }),
    );
  } catch (error) {
    await commerce.stop();
    throw error;
  }
  let hubspot: HubSpotSandbox;
  try {
    // A fixed seed: a restarted HubSpot sandbox hands out the same private-app token and OAuth client.
    hubspot = await startOnRememberedPorts({ hubspot: remembered(options.hubspotPort, saved.hubspot) }, (ports) =>
      startHubSpotSandbox({ host, port: options.hubspotPort ?? ports.hubspot ?? 0, journalPath: dir && path.join(dir, 'hubspot.jsonl'), seed: options.seed ?? 1, additionalCurrencies: otherCurrencies }),
    );
  } catch (error) {
    await Promise.all([commerce.stop(), salesforce.stop()]);
    throw error;
  }
  let dynamics: DynamicsSandbox;
  try {
    // A fixed seed: a restarted Dynamics sandbox has the same tenant, client id and secret.
    dynamics = await startOnRememberedPorts({ dynamics: remembered(options.dynamicsPort, saved.dynamics) }, (ports) =>
      startDynamicsSandbox({ host, port: options.dynamicsPort ?? ports.dynamics ?? 0, journalPath: dir && path.join(dir, 'dynamics.jsonl'), seed: options.seed ?? 1, operationMs: options.dynamicsOperationMs, currencies: otherCurrencies }),
    );
  } catch (error) {
    await Promise.all([commerce.stop(), salesforce.stop(), hubspot.stop()]);
    throw error;
  }
  if (portsFile) {
    const portOf = (url: string) => Number(new URL(url).port);
    writePorts(portsFile, { commerceApi: portOf(commerce.apiUrl), commerceAuth: portOf(commerce.authUrl), salesforce: portOf(salesforce.instanceUrl), hubspot: portOf(hubspot.baseUrl), dynamics: portOf(dynamics.orgUrl) });
  }
  const description = {
    commerce: {
      apiUrl: commerce.apiUrl,
      authUrl: commerce.authUrl,
      tokenUrl: `${commerce.authUrl}/oauth2/token`,
      organizationId: commerce.organizationId,
      clientId: commerce.clientId,
      clientSecret: commerce.clientSecret,
      controlUrl: `${commerce.apiUrl}/_sandbox`,
    },
    salesforce: {
      loginUrl: salesforce.loginUrl,
      instanceUrl: salesforce.instanceUrl,
      tokenUrl: `${salesforce.loginUrl}/services/oauth2/token`,
      clientId: salesforce.clientId,
      clientSecret: salesforce.clientSecret,
      refreshToken: salesforce.refreshToken,
      controlUrl: `${salesforce.instanceUrl}/_sandbox`,
    },
    hubspot: {
      baseUrl: hubspot.baseUrl,
      accessToken: hubspot.accessToken,
      tokenUrl: `${hubspot.baseUrl}/oauth/v1/token`,
      clientId: hubspot.oauth.clientId,
      clientSecret: hubspot.oauth.clientSecret,
      refreshToken: hubspot.oauth.refreshToken,
      controlUrl: hubspot.controlUrl,
    },
    dynamics: {
      orgUrl: dynamics.orgUrl,
      tokenUrl: dynamics.tokenUrl,
      authority: dynamics.authority,
      tenantId: dynamics.tenantId,
      clientId: dynamics.clientId,
      clientSecret: dynamics.clientSecret,
      controlUrl: dynamics.controlUrl,
    },
  };
  return {
    commerce,
    salesforce,
    hubspot,
    dynamics,
    description,
    async stop() {
      await Promise.all([commerce.stop(), salesforce.stop(), hubspot.stop(), dynamics.stop()]);
    },
  };
}
