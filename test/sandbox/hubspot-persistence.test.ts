// HubSpot sandbox journal: a sandbox process killed with SIGKILL right after its answers comes back
// (same file, same seed) with every acknowledged write; a torn last line is dropped; a file that is
// not a HubSpot sandbox journal is refused with a message saying so.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox } from '../../sandbox/hubspot/index.ts';

const INDEX = path.resolve(import.meta.dirname, '../../sandbox/hubspot/index.ts');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hubspot-persistence-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sandbox in a process of its own; resolves with its URL and token once it listens. */
function sandboxProcess(journalPath: string) {
  const script = `const { startHubSpotSandbox } = await import(${JSON.stringify(INDEX)});
const hs = await startHubSpotSandbox({ journalPath: ${JSON.stringify(journalPath)}, seed: 11 });
console.log(JSON.stringify({ baseUrl: hs.baseUrl, accessToken: hs.accessToken }));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<{ baseUrl: string; accessToken: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`sandbox process exited with ${code} before listening`)));
  });
  return { child, ready };
}

describe('HubSpot sandbox journal', () => {
  it('keeps every acknowledged write across a SIGKILL of the sandbox process', async () => {
    const journalPath = path.join(dir, 'killed.jsonl');
    const { child, ready } = sandboxProcess(journalPath);
    const { baseUrl, accessToken } = await ready;
    const client = new Client({ accessToken, basePath: baseUrl });
    await client.crm.properties.coreApi.create('deals', { name: 'commerce_offer_id', label: 'Offer', type: 'string' as any, fieldType: 'text' as any, groupName: 'dealinformation', hasUniqueValue: true });
    const inputs = Array.from({ length: 100 }, (_, i) => ({ idProperty: 'commerce_offer_id', id: `o-${i}`, properties: { dealname: `Deal ${i}` } }));
    const upserted = await client.crm.deals.batchApi.upsert({ inputs });
    const updated = await client.crm.deals.basicApi.update(upserted.results[0]!.id, { properties: { amount: '42' } });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const again = await startHubSpotSandbox({ journalPath, seed: 11 });
    try {
      expect(again.accessToken).toBe(accessToken);
      const c2 = new Client({ accessToken: again.accessToken, basePath: again.baseUrl });
      const read: any = await c2.crm.deals.batchApi.read({ idProperty: 'commerce_offer_id', inputs: inputs.map((i) => ({ id: i.id })), properties: ['dealname', 'amount'], propertiesWithHistory: [] });
      expect(read.numErrors ?? 0).toBe(0);
      expect(read.results.map((r: any) => r.id).sort()).toEqual(upserted.results.map((r) => r.id).sort());
      expect(read.results.find((r: any) => r.id === updated.id).properties.amount).toBe('42');
      // The unique property survived too: upserting the same key updates, it does not duplicate.
      const twice = await c2.crm.deals.batchApi.upsert({ inputs: [inputs[5]!] });
      expect(twice.results[0]!._new).toBe(false);
    } finally {
      await again.stop();
    }
  });

  it('drops a torn last line (a write never acknowledged) and goes on from the rest', async () => {
    const journalPath = path.join(dir, 'torn.jsonl');
    const first = await startHubSpotSandbox({ journalPath });
    const made = await new Client({ accessToken: first.accessToken, basePath: first.baseUrl }).crm.companies.basicApi.create({ properties: { name: 'Kept' }, associations: [] });
    await first.stop();
    appendFileSync(journalPath, '{"op":"record","type":"companies","record":{"id":"99');
    const second = await startHubSpotSandbox({ journalPath });
    try {
      const records = (await (await fetch(`${second.controlUrl}/records/companies`)).json()) as { id: string }[];
      expect(records.map((r) => r.id)).toEqual([made.id]);
    } finally {
      await second.stop();
    }
  });

  it('refuses a file that is not a HubSpot sandbox journal', async () => {
    const journalPath = path.join(dir, 'foreign.jsonl');
    writeFileSync(journalPath, '{"journal":"salesforce-sandbox","version":1,"idCounter":3}\n');
    await expect(startHubSpotSandbox({ journalPath })).rejects.toThrow('is not a HubSpot sandbox journal');
  });
});
