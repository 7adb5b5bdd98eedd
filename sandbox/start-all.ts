// Starts every sandbox on loopback and describes them in one JSON object: the first stdout line of
// `crm-sync sandbox` and of `npm start` in demo mode, so scripts can find them.
import { startCommerceSandbox, type CommerceSandbox } from './commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from './salesforce/index.ts';

export type SandboxesOptions = {
  host?: string;
  commercePort?: number;
  commerceAuthPort?: number;
  salesforcePort?: number;
  seed?: number;
  entitlements?: number;
  changesPerSecond?: number;
};

export type Sandboxes = {
  commerce: CommerceSandbox;
  salesforce: SalesforceSandbox;
  description: Record<string, Record<string, string>>;
  stop(): Promise<void>;
};

export async function startAllSandboxes(options: SandboxesOptions = {}): Promise<Sandboxes> {
  const host = options.host ?? '127.0.0.1';
  const commerce = await startCommerceSandbox({
    host,
    apiPort: options.commercePort ?? 0,
    authPort: options.commerceAuthPort ?? 0,
    seed: options.seed,
    entitlements: options.entitlements,
    changesPerSecond: options.changesPerSecond,
  });
  const salesforce = await startSalesforceSandbox({ host, port: options.salesforcePort ?? 0 });
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
  };
  return {
    commerce,
    salesforce,
    description,
    async stop() {
      await Promise.all([commerce.stop(), salesforce.stop()]);
    },
  };
}
