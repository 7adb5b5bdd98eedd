// `crm-sync sandbox` starts the CRM sandboxes as the demo does for the product catalogue (issue #28): the
// Dataverse environment has a transaction currency, and the HubSpot account a product price property
// (hs_price_<code>), for each currency the commerce catalogue prices in besides USD, read here from the
// commerce API's own products.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { DynamicsWebApi } from 'dynamics-web-api';
import { createCommerceClient } from '../../commerce/index.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');

describe('crm-sync sandbox and the catalogue currencies', () => {
  it("gives Dynamics and HubSpot every currency the commerce products are priced in", async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--entitlements', '5'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const { commerce, dynamics, hubspot } = JSON.parse(await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)));
      // The currencies the commerce side prices its products in, as its API lists them.
      const client = createCommerceClient({ baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, clientSecret: commerce.clientSecret });
      const currencies = new Set<string>();
      for await (const page of client.products.list(commerce.organizationId)) for (const product of page.records) for (const code of (product.info as { currencies?: string[] } | undefined)?.currencies ?? []) currencies.add(code);
      const priced = [...currencies].sort();
      expect(priced).toEqual(expect.arrayContaining(['EUR', 'USD']));

      const dynamicsToken = (await (await fetch(dynamics.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: dynamics.clientId, client_secret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` }) })).json()) as { access_token: string };
      const api = new DynamicsWebApi({ serverUrl: dynamics.orgUrl, onTokenRefresh: async () => dynamicsToken.access_token });
      const rows: any = await api.retrieveMultiple({ collection: 'transactioncurrencies', select: ['isocurrencycode'] });
      expect(rows.value.map((row: any) => row.isocurrencycode).sort()).toEqual(priced);

      const properties = (await (await fetch(`${hubspot.baseUrl}/crm/v3/properties/products`, { headers: { authorization: `Bearer ${hubspot.accessToken}` } })).json()) as { results: { name: string }[] };
      const names = properties.results.map((property) => property.name);
      for (const code of priced.filter((code) => code !== 'USD')) expect(names).toContain(`hs_price_${code.toLowerCase()}`);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
