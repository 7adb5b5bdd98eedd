// `crm-sync sandbox` as a script uses it: the first stdout line is JSON that finds every sandbox.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');

describe('crm-sync sandbox', () => {
  it('prints its JSON line first, serves the API it names, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--entitlements', '50', '--seed', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const firstLine = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
    const { commerce, hubspot } = JSON.parse(firstLine);
    expect(commerce).toMatchObject({ organizationId: 'org-1', tokenUrl: `${commerce.authUrl}/oauth2/token`, controlUrl: `${commerce.apiUrl}/_sandbox` });
    const client = createCommerceClient({ baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, clientSecret: commerce.clientSecret });
    expect((await client.organizations()).map((org) => org.id)).toEqual(['org-1']);
    const entitlements = [];
    for await (const page of client.entitlements.query('org-1', { pageSize: 20 })) entitlements.push(...page.records);
    expect(entitlements).toHaveLength(50);
    // The HubSpot entry answers the real client with its private-app token.
    const { Client } = await import('@hubspot/api-client');
    const crm = new Client({ accessToken: hubspot.accessToken, basePath: hubspot.baseUrl });
    const made = await crm.crm.companies.basicApi.create({ properties: { name: 'Sandbox line check' }, associations: [] });
    expect((await crm.crm.companies.basicApi.getById(made.id, ['name'])).properties.name).toBe('Sandbox line check');
    expect(hubspot.controlUrl).toBe(`${hubspot.baseUrl}/_sandbox`);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
