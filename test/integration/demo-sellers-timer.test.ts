// The demo sellers' timer (cli/demo-sellers.ts): each tick a move on every seller's CRM, only while the
// CRM is set up and the Salesforce sandbox's change driver runs (its GET /changes/rate says running), so
// setting that rate to 0 quiets the HubSpot and Dynamics sellers too. The control is a small stand-in server counting its reads,
// so the test waits for ticks to happen rather than for time to pass. stop() is a clearInterval (not tested:
// an absence needs a fixed wait).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Logger } from '../../config/logger.ts';
import { startDemoSellers, type SellerCrm } from '../../cli/demo-sellers.ts';
import { waitFor } from '../support/start-process.ts';

let running = true;
let rateReads = 0;
let server: http.Server;
let controlUrl: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/_sandbox/changes/rate') rateReads++;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ changesPerSecond: running ? 0.2 : 0, running, lastError: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  controlUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_sandbox`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const warnings: unknown[] = [];
const logger = { debug: () => {}, info: () => {}, warn: (...args: unknown[]) => warnings.push(args), error: () => {} } as unknown as Logger;

/** A CRM with nothing to change: each tick reads it once. */
function countingSeller(crm: string) {
  const seller = { crm, reads: 0 } as SellerCrm & { reads: number };
  seller.read = async () => {
    seller.reads++;
    return { deals: [], accounts: [], newDealStages: [] };
  };
  return seller;
}

it('moves on every seller\'s CRM once set up, while the Salesforce driver runs, not while it is stopped, and again once it runs', async () => {
  const hubspot = countingSeller('hubspot');
  const dynamics = countingSeller('dynamics');
  const sellers = startDemoSellers({ sellers: [hubspot, dynamics], changesPerSecond: 20, seed: 1, salesforceControlUrl: controlUrl, logger });
  // Only a CRM that is set up moves.
  sellers.setUp('hubspot');
  await waitFor('three ticks on HubSpot', () => hubspot.reads >= 3, 10_000, 20);
  expect(dynamics.reads).toBe(0);
  sellers.setUp('dynamics');
  await waitFor('three ticks on both CRMs', () => hubspot.reads >= 3 && dynamics.reads >= 3, 10_000, 20);

  running = false;
  const asked = rateReads;
  await waitFor('a tick that saw the driver stopped', () => rateReads > asked, 10_000, 20);
  const quiet = hubspot.reads;
  const dynamicsQuiet = dynamics.reads;
  const seen = rateReads;
  await waitFor('three more ticks', () => rateReads >= seen + 3, 10_000, 20);
  expect(hubspot.reads).toBe(quiet);
  expect(dynamics.reads).toBe(dynamicsQuiet);

  running = true;
  await waitFor('moves again once the driver runs', () => hubspot.reads > quiet, 10_000, 20);
  sellers.stop();
  expect(warnings).toEqual([]);
});
