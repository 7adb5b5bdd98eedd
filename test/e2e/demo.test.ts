// `crm-sync start` in demo mode, as `npm start` runs it on a fresh machine: the sandboxes' JSON line
// first, the demo CRM filled from the changing commerce sandbox; after the whole process group is
// SIGKILLed and started again on the same data directory, it converges again with no duplicate.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');

function start(env: NodeJS.ProcessEnv): { child: ChildProcess; firstLine: Promise<string>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stderr!.resume();
  const firstLine = new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine, exited };
}

async function entitlementsInCrm(instanceUrl: string): Promise<{ total: number; distinct: number }> {
  const body: any = await (await fetch(`${instanceUrl}/_sandbox/records/Marketplace_Entitlement__c`)).json();
  const rows: any[] = Array.isArray(body) ? body : body.records;
  return { total: rows.length, distinct: new Set(rows.map((row) => row.Commerce_Entitlement_Id__c)).size };
}

async function converged(description: any) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const state = await entitlementsInCrm(description.salesforce.instanceUrl).catch(() => ({ total: 0, distinct: 0 }));
    if (state.total === 1000) return state;
    if (Date.now() > deadline) throw new Error(`the demo CRM holds ${state.total} entitlements, not 1000`);
    await sleep(500);
  }
}

describe('npm start in demo mode', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-demo-'));
  chmodSync(dataDir, 0o755);
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the sandboxes first, fills the demo CRM, and converges again after a SIGKILL of everything', { timeout: 300_000 }, async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CRM_SYNC_DATA_DIR: dataDir,
      CRM_SYNC_EMBEDDED_PG_PORT: String(await freePort()),
      CRM_SYNC_TEMPORAL_PORT: String(await freePort()),
      CRM_SYNC_TEMPORAL_UI_PORT: String(await freePort()),
      LOG_FORMAT: 'json',
    };
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;
    delete env.CRM_SYNC_DEMO;

    const first = start(env);
    children.push(first.child);
    const description = JSON.parse(await first.firstLine);
    expect(Object.keys(description)).toEqual(['commerce', 'salesforce']);
    expect(await converged(description)).toEqual({ total: 1000, distinct: 1000 });

    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exited;
    const second = start(env);
    children.push(second.child);
    const again = JSON.parse(await second.firstLine);
    expect(await converged(again)).toEqual({ total: 1000, distinct: 1000 });
    process.kill(-second.child.pid!, 'SIGINT');
    expect(await second.exited).toBe(0);
  });
});
