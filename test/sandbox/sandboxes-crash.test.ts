// Both sandboxes durable in a data directory (startAllSandboxes({dataDir})), in a process that is
// killed with SIGKILL in the middle of writes: started again on the same directory they serve the same
// URLs and hold every write they acknowledged and everything a client had read from them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';
import { startAllSandboxes } from '../../sandbox/start-all.ts';

const SCRIPT = path.join(import.meta.dirname, 'fixtures', 'sandboxes-process.ts');
const KINDS = ['offers', 'entitlements', 'entitlementTerms', 'referrals', 'notificationEvents'];
const SF_OBJECTS = ['Account', 'Contact', 'Opportunity'];

type Description = { commerce: Record<string, string>; salesforce: Record<string, string> };
type Running = { child: ChildProcess; description: Description; probe: SandboxProbe; salesforce: SalesforceSandbox };

let dataDir: string;
const children: ChildProcess[] = [];

async function startProcess(changesPerSecond: number): Promise<Running> {
  const child = spawn(process.execPath, [SCRIPT], { env: { ...process.env, DATA_DIR: dataDir, CHANGES_PER_SECOND: String(changesPerSecond) }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandboxes process exited early with code ${code}`)));
  });
  const description = JSON.parse(line) as Description;
  const { commerce, salesforce } = description;
  return {
    child,
    description,
    probe: probeSandbox({ apiUrl: commerce.apiUrl!, authUrl: commerce.authUrl!, clientId: commerce.clientId!, clientSecret: commerce.clientSecret!, organizationId: commerce.organizationId!, stop: async () => undefined } satisfies CommerceSandbox),
    salesforce: { loginUrl: salesforce.loginUrl!, instanceUrl: salesforce.instanceUrl!, clientId: salesforce.clientId!, clientSecret: salesforce.clientSecret!, refreshToken: salesforce.refreshToken!, stop: async () => undefined },
  };
}

function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

async function everything(running: Running) {
  const commerce: Record<string, any[]> = {};
  for (const kind of KINDS) commerce[kind] = await running.probe.records(kind);
  const salesforce: Record<string, any[]> = {};
  for (const object of SF_OBJECTS) salesforce[object] = await control(running.salesforce, 'GET', `/records/${object}?includeDeleted=true`);
  return { commerce, salesforce };
}

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sandboxes-crash-'));
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('sandboxes in a data directory, killed with SIGKILL', () => {
  it('come back on the same URLs with every acknowledged write and everything read before the kill', async () => {
    // 1. Writes to both sandboxes from several clients at once while the change driver runs; kill -9 midway.
    const first = await startProcess(40);
    const { conn } = await clientCredentialsConnection(first.salesforce);
    const offers = (await first.probe.records('offers')).slice(0, 4).map((o) => o.id as string);
    const ackedPatch = new Map<string, number>(); // offer id -> highest metaInfo.seq acknowledged
    const ackedAccounts = new Map<string, string>(); // external id -> Id acknowledged
    let stop = false;
    const commerceWriter = async (offerId: string) => {
      for (let seq = 1; !stop; seq++) {
        const response = await first.probe.api(`/org/org-1/offer/${offerId}/metaInfo`, { method: 'PATCH', body: { customMetaInfo: { seq } } }).catch(() => undefined);
        if (response?.status !== 200) return;
        ackedPatch.set(offerId, seq);
      }
    };
    const salesforceWriter = async (writer: number) => {
      for (let n = 1; !stop; n++) {
        const key = `crash-${writer}-${n}`;
        const results = await conn.sobject('Account').upsert([{ Name: `Crash ${key}`, Commerce_Buyer_Id__c: key }], 'Commerce_Buyer_Id__c', { allOrNone: false }).catch(() => undefined);
        if (!results || !(results[0] as any).success) return;
        ackedAccounts.set(key, (results[0] as any).id);
      }
    };
    const writers = [...offers.map(commerceWriter), salesforceWriter(1), salesforceWriter(2)];
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const seenEvents = await first.probe.records('notificationEvents');
    await kill9(first.child);
    stop = true;
    await Promise.all(writers);
    expect(ackedPatch.size).toBe(4);
    expect(ackedAccounts.size).toBeGreaterThan(10);

    // 2. Started again on the same data directory: same URLs, nothing acknowledged or read is missing.
    const second = await startProcess(0);
    expect(second.description).toEqual(first.description);
    const after = await everything(second);
    for (const [offerId, seq] of ackedPatch) {
      const offer = after.commerce.offers!.find((o) => o.id === offerId)!;
      // The last write may have landed without its answer arriving: seq or seq + 1, never less.
      expect(offer.metaInfo.customMetaInfo.seq - seq, offerId).toBeGreaterThanOrEqual(0);
      expect(offer.metaInfo.customMetaInfo.seq - seq, offerId).toBeLessThanOrEqual(1);
    }
    const accounts = new Map(after.salesforce.Account!.map((a) => [a.Commerce_Buyer_Id__c, a.Id]));
    for (const [key, id] of ackedAccounts) expect(accounts.get(key), key).toBe(id);
    const eventsAfter = new Map(after.commerce.notificationEvents!.map((e) => [e.eventID, e]));
    for (const event of seenEvents) expect(eventsAfter.get(event.eventID)).toEqual(event);
    // Every event names a record that exists: no change was half kept.
    for (const event of after.commerce.notificationEvents!.filter((e) => e.entityType === 'OFFER')) expect(after.commerce.offers!.some((o) => o.id === event.entityID)).toBe(true);

    // 3. A quiet round: more writes, kill -9 again, and the third start holds exactly the same.
    await second.probe.control('POST', '/changes', { count: 25 });
    const { conn: conn2 } = await clientCredentialsConnection(second.salesforce);
    await conn2.sobject('Contact').upsert([{ LastName: 'Doe', Commerce_Contact_Id__c: 'c-1', Account: { Commerce_Buyer_Id__c: 'crash-1-1' } } as any], 'Commerce_Contact_Id__c', { allOrNone: false });
    const before = await everything(second);
    await kill9(second.child);
    const third = await startProcess(0);
    expect(third.description).toEqual(first.description);
    expect(await everything(third)).toEqual(before);
    await kill9(third.child);
  });

  it('take the remembered ports again, and a free one for a port that is taken now', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sandboxes-ports-'));
    try {
      const first = await startAllSandboxes({ dataDir: dir, entitlements: 20 });
      const { conn } = await clientCredentialsConnection(first.salesforce);
      await conn.sobject('Account').create({ Name: 'Kept' });
      await first.stop();
      expect(statSync(path.join(dir, 'sandboxes')).mode & 0o777).toBe(0o700);
      const ports = JSON.parse(readFileSync(path.join(dir, 'sandboxes', 'ports.json'), 'utf8'));
      expect(ports).toEqual({ commerceApi: expect.any(Number), commerceAuth: expect.any(Number), salesforce: Number(new URL(first.salesforce.instanceUrl).port), hubspot: Number(new URL(first.hubspot.baseUrl).port), dynamics: Number(new URL(first.dynamics.orgUrl).port) });

      const squatter = net.createServer();
      await new Promise<void>((resolve) => squatter.listen(ports.salesforce, '127.0.0.1', resolve));
      try {
        const second = await startAllSandboxes({ dataDir: dir, entitlements: 20 });
        expect(second.commerce.apiUrl).toBe(first.commerce.apiUrl);
        expect(second.commerce.authUrl).toBe(first.commerce.authUrl);
        expect(second.salesforce.instanceUrl).not.toBe(first.salesforce.instanceUrl);
        // The HubSpot sandbox takes its port again, with the same token (a fixed seed).
        expect(second.hubspot.baseUrl).toBe(first.hubspot.baseUrl);
        expect(second.hubspot.accessToken).toBe(first.hubspot.accessToken);
        expect((await control(second.salesforce, 'GET', '/records/Account')).map((a: any) => a.Name)).toEqual(['Kept']);
        await second.stop();
        expect(JSON.parse(readFileSync(path.join(dir, 'sandboxes', 'ports.json'), 'utf8')).salesforce).toBe(Number(new URL(second.salesforce.instanceUrl).port));
      } finally {
        squatter.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
