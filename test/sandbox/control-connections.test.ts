// Every sandbox answers its /_sandbox controls with `Connection: close` (a test's control call never
// reuses a socket the server may be closing), and keeps its API connections alive as the real services do.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startCommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startDynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { startHubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { startSalesforceSandbox } from '../../sandbox/salesforce/index.ts';

/** The Connection header of the answer to a GET (node:http, so the header is seen as sent). */
function connectionHeader(url: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers.connection));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sandbox control connections', () => {
  it.each([
    ['commerce', async () => { const s = await startCommerceSandbox(); return { control: `${s.apiUrl}/_sandbox/calls`, api: `${s.apiUrl}/org/nobody/offer`, stop: () => s.stop() }; }],
    ['salesforce', async () => { const s = await startSalesforceSandbox(); return { control: `${s.instanceUrl}/_sandbox/calls`, api: `${s.instanceUrl}/services/data/v62.0/limits`, stop: () => s.stop() }; }],
    ['hubspot', async () => { const s = await startHubSpotSandbox(); return { control: `${s.controlUrl}/calls`, api: `${s.baseUrl}/crm/v3/objects/deals`, stop: () => s.stop() }; }],
    ['dynamics', async () => { const s = await startDynamicsSandbox(); return { control: `${s.controlUrl}/calls`, api: `${s.orgUrl}api/data/v9.2/accounts`, stop: () => s.stop() }; }],
  ])('%s: controls close their connection, the API keeps it', async (_kind, start) => {
    const sandbox = await start();
    try {
      expect(await connectionHeader(sandbox.control)).toBe('close');
      expect(await connectionHeader(sandbox.api)).toBe('keep-alive');
    } finally {
      await sandbox.stop();
    }
  });
});
