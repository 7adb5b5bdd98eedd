// The commands revenue ops reads a connection with, run as processes against a real PostgreSQL, a real
// Temporal server and both sandboxes: connections (health), show, runs, errors, retry, mapping (and
// --edit checked against Salesforce's describe), doctor, tables for a person and JSON for scripts, and
// the exit codes the README promises.
import { execFile, spawn } from 'node:child_process';
import readline from 'node:readline';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../store/secret-box.ts';
import { syncScheduleId } from '../../temporal/sync-schedules.ts';
import { cliEnv, CRM_SYNC_BIN } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { waitFor } from '../support/start-process.ts';
import { commerceDump, startProductionWorker, startSandboxes } from '../support/sync-harness.ts';

const BIN = CRM_SYNC_BIN;
const run = promisify(execFile);

type Outcome = { code: number; stdout: string; stderr: string };

describe('operator commands (real PostgreSQL, real Temporal, both sandboxes)', () => {
  const key = randomBytes(32);
  const taskQueue = `ops-${Date.now()}`;
  const files = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-ops-'));
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 30, seed: 33 });
    env = cliEnv({
      databaseUrl: database.url,
      secretKey: key.toString('base64'),
      taskQueue,
      commerceClientSecret: sandboxes.commerce.clientSecret,
      salesforceClientSecret: sandboxes.salesforce.clientSecret,
      output: 'human',
    });
    worker = await startProductionWorker(database, { taskQueue, secretBox: new SecretBox(key) });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  /** The command's exit code and output, whatever the code. */
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Outcome> =>
    run(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const json = async (args: string[]) => {
    const outcome = await cli([...args, '--json']);
    expect(outcome.code, outcome.stderr).toBe(0);
    return JSON.parse(outcome.stdout);
  };
  const secrets = () => [sandboxes.commerce.clientSecret, sandboxes.salesforce.clientSecret];
  const schedule = () => new Client({ connection: worker.connection }).schedule.getHandle(syncScheduleId(connectionId));
  let connectionId = '';
  let foreign: string[] = [];

  it('connect in a script names every missing flag and exits 2; with them it saves the connection, paused as asked', async () => {
    const missing = await cli(['connect', '--name', 'acme']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--commerce-url, --commerce-auth-url, --commerce-client-id, --commerce-org, --salesforce-login-url, --salesforce-client-id');
    const saved = await json([
      'connect', '--name', 'acme',
      '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl,
      '--commerce-client-id', sandboxes.commerce.clientId, '--commerce-org', sandboxes.commerce.organizationId,
      '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
      '--paused', // only what the tests start runs
    ]);
    connectionId = saved.connection;
  });

  it('connections shows a paused connection that never ran, as a table for a person and JSON for a script', async () => {
    const human = await cli(['connections']);
    expect(human.code).toBe(0);
    const [header, row] = human.stdout.split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'CRM', 'STATUS', 'LAST RUN', 'LAG', 'DEAD LETTERS', 'API BUDGET', 'COMMERCE QUOTA', 'WRITES BACK']);
    expect(row!.split(/\s{2,}/).slice(0, 4)).toEqual(['acme', 'Salesforce', 'paused', 'none']);
    expect(human.stdout).toContain('acme: Its schedules are paused: crm-sync resume acme');
    expect(human.stdout).not.toMatch(/\x1b\[/); // no colours when stdout is not a terminal
    const [listed] = await json(['connections']);
    expect(listed).toMatchObject({ id: connectionId, name: 'acme', writesBack: true, health: { status: 'paused', paused: true, lastRun: null, lagSeconds: null, openDeadLetters: 0 } });
    for (const secret of secrets()) expect(human.stdout + JSON.stringify(listed)).not.toContain(secret);
  });

  it('runs and errors after a backfill: counts per entity, and what Salesforce refused in its own words', async () => {
    // Salesforce refuses the referrals naming another org's Opportunity: a backfill with failed records exits 4.
    const backfill = await cli(['backfill', 'acme', '--json']);
    expect(backfill.code, backfill.stderr).toBe(4);
    const summary = JSON.parse(backfill.stdout);
    foreign = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.crmAOpportunityId).map((referral) => referral.id).sort();
    expect(foreign.length).toBeGreaterThan(0);
    const buyers = (await commerceDump(sandboxes.commerce, 'buyers')).length;

    const runs = await json(['runs', 'acme']);
    expect(runs[0]).toMatchObject({ kind: 'backfill', status: 'completed', counts: { created: summary.created, failed: foreign.length } });
    expect(runs[0].entities.buyer).toMatchObject({ records: buyers, created: buyers, failed: 0 });
    expect(runs[0].entities.referral.failed).toBe(foreign.length);
    expect(runs[0].seconds).toBeGreaterThan(0);
    const table = (await cli(['runs', 'acme', '--entities'])).stdout;
    expect(table).toMatch(/STARTED\s+KIND\s+STATUS\s+DURATION\s+READ\s+CREATED\s+UPDATED\s+UNCHANGED\s+FAILED/);
    expect(table).toMatch(new RegExp(`backfill\\s+completed\\s+\\S+ s\\s+${summary.records}\\s+${summary.created}`));
    expect(table).toMatch(new RegExp(`buyer\\s+${buyers}\\s+${buyers}\\s+0\\s+0\\s+0`));

    const letters = await json(['errors', 'acme']);
    expect(letters.map((letter: { sourceId: string }) => letter.sourceId).sort()).toEqual(foreign);
    expect(letters[0].payload).toBeUndefined();
    const withPayload = await json(['errors', 'acme', '--payload', '--id', foreign[0]!]);
    expect(withPayload).toHaveLength(1);
    expect(withPayload[0].payload).toBeTruthy();
    const human = (await cli(['errors', 'acme'])).stdout;
    expect(human).toMatch(/reason\s+.*(INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY|MALFORMED_ID)/);
    expect(human).toContain(`referral ${foreign[0]}`);
    expect(human).toContain(`${foreign.length} open. Retry them: crm-sync retry acme`);
  }, 120_000); // a backfill and six more commands as processes: over a minute on a loaded machine

  it('retry answers in a sentence, or JSON; a connection that does not exist exits 3', async () => {
    const none = await cli(['retry', 'acme', '--id', 'no-such-referral']);
    expect(none).toMatchObject({ code: 0, stdout: 'No open dead letters (id no-such-referral) for acme: nothing to retry\n' });
    const missing = await cli(['retry', 'nobody']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('No connection named or numbered "nobody"; known: acme');
    const usage = await cli(['runs', 'acme', '--no-such-flag']);
    expect(usage.code).toBe(2);
  });

  it('mapping prints what is in effect; --edit refuses overrides the org does not fit (exit 4, nothing saved) and saves ones it does', async () => {
    const shown = (await cli(['mapping', 'acme'])).stdout;
    expect(shown).toContain('offer -> Opportunity  key Commerce_Offer_Id__c');
    expect(shown).toMatch(/StageName\s+offer\.status through the stage map/);
    expect(shown).toContain('the stage is owned by the side that changed it last');

    const bad = path.join(files, 'bad.json');
    writeFileSync(bad, JSON.stringify({ offer: { rename: { Amount: 'Contract_Value__c' } } }));
    const refused = await cli(['mapping', 'acme', '--edit', bad]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("Opportunity has no field 'Contract_Value__c'");
    expect(refused.stderr).toContain('nothing was saved');
    expect((await json(['mapping', 'acme'])).overrides).toEqual({});

    const notJson = path.join(files, 'broken.json');
    writeFileSync(notJson, '{"offer": {');
    expect((await cli(['mapping', 'acme', '--edit', notJson])).code).toBe(2);
    const unknownKey = path.join(files, 'unknown.json');
    writeFileSync(unknownKey, JSON.stringify({ offer: { renames: {} } }));
    const shape = await cli(['mapping', 'acme', '--edit', unknownKey]);
    expect(shape.code).toBe(2);
    expect(shape.stderr).toContain('renames');

    const good = path.join(files, 'good.json');
    writeFileSync(good, JSON.stringify({ offer: { disable: ['Amount'] } }));
    const saved = await cli(['mapping', 'acme', '--edit', good, '--json']);
    expect(saved.code, saved.stderr).toBe(0);
    const view = JSON.parse(saved.stdout);
    expect(view.overrides).toEqual({ offer: { disable: ['Amount'] } });
    const offer = view.commerceToCrm.find((entity: { entity: string }) => entity.entity === 'offer');
    expect(offer.disabled).toEqual(['Amount']);
    expect(offer.fields.map((field: { field: string }) => field.field)).not.toContain('Amount');
    expect((await cli(['mapping', 'acme'])).stdout).toContain('not written: Amount');
  });

  it('doctor names what needs attention and what to do (exit 4), then says all is well (exit 0)', async () => {
    const paused = await cli(['doctor']);
    expect(paused.code).toBe(4);
    expect(paused.stdout).toMatch(/ok\s+PostgreSQL: reachable/);
    expect(paused.stdout).toMatch(/ok\s+Temporal: reachable; 1 worker polling/);
    expect(paused.stdout).toMatch(/ok\s+acme: credentials and mapping/);
    expect(paused.stdout).toMatch(/!!\s+acme: schedules: paused: .*\n\s+-> crm-sync resume acme/);
    await cli(['resume', 'acme']);
    const resumed = await cli(['doctor', '--json']);
    expect(JSON.parse(resumed.stdout).checks.filter((check: { ok: boolean }) => !check.ok)).toEqual([]);
    expect(resumed.code).toBe(0);
    expect((await cli(['doctor'])).stdout).toContain('Everything checked is working.');
    await schedule().pause('quiet again');
  });

  it('after an incremental run the connection is current, with its dead letters counted; show has it all and no secret', async () => {
    await schedule().trigger();
    const deadline = Date.now() + 60_000;
    let health: { status: string; paused: boolean | null; lastRun: { kind: string; status: string } | null; lagSeconds: number | null; openDeadLetters: number } | undefined;
    while (Date.now() < deadline) {
      [{ health }] = await json(['connections']);
      if (health!.lastRun?.kind === 'incremental' && health!.lastRun.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health, JSON.stringify(health)).toMatchObject({ lastRun: { kind: 'incremental', status: 'completed' }, openDeadLetters: foreign.length, paused: true });
    expect(health!.lagSeconds).toBeLessThan(120);
    // The API budget Salesforce reported to the run: the sandbox org's daily limit, and some of it used.
    const budget = (health as unknown as { apiBudget: { used: number; limit: number } | null }).apiBudget;
    expect(budget?.limit).toBe(100_000);
    expect(budget!.used).toBeGreaterThan(0);
    expect((await cli(['connections'])).stdout).toMatch(/acme\s+Salesforce\s+.*\d+% of 100000/);
    // Paused again by the last test: the pause is the most urgent thing to say.
    expect(health!.status, JSON.stringify(health)).toBe('paused');

    const shown = await cli(['show', 'acme']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/status\s+paused/);
    expect(shown.stdout).toMatch(new RegExp(`dead letters\\s+${foreign.length}`));
    expect(shown.stdout).toMatch(/incremental\s+completed/);
    const asJson = await json(['show', 'acme']);
    expect(asJson.runs[0].kind).toBe('incremental');
    for (const secret of secrets()) expect(shown.stdout + JSON.stringify(asJson)).not.toContain(secret);
  });

  it('backfill: Ctrl-C detaches and leaves it running, the same command attaches again, --cancel stops it', async () => {
    // Salesforce holds the offers' write (the sandbox's hold, released when the test clears the faults),
    // so the backfill is still running, its buyers written and counted, for as long as detaching,
    // attaching and cancelling take, however slow the machine.
    const held = await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: 'composite-*', sobject: 'Opportunity', hold: true }) });
    expect(held.status).toBe(200);
    try {
      const args = ['backfill', 'acme', '--entities', 'buyer,offer', '--forget-links'];
      const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: string[] = [];
      readline.createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await waitFor('progress lines', () => lines.some((line) => /^\[\w+ page \d+\] pages \d+, read [1-9]/.test(line)), 150_000, 100).catch((error: Error) => {
        throw new Error(`${error.message} (the command wrote: ${lines.join(' / ')})`);
      });
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(lines.join('\n')).toContain('Detached: the backfill goes on');
      const workflowId = `backfill-${connectionId}-buyer+offer-beginning-now`;
      const handle = new Client({ connection: worker.connection }).workflow.getHandle(workflowId);
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const attached = await cli([...args, '--no-wait']);
      expect(attached.code).toBe(0);
      expect(attached.stderr).toContain(`Attached to the running backfill ${workflowId}`);
      const cancelled = await cli([...args, '--cancel']);
      expect(cancelled).toMatchObject({ code: 0, stdout: `Cancelled ${workflowId}\n` });
      // The offers' write was held all along: the backfill was running until the cancel, never done.
      expect((await handle.describe()).status.name).not.toBe('COMPLETED');
      // Salesforce lets the held write through, so the cancelled activity's call returns and it stops.
      await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'DELETE' });
      await waitFor('the backfill cancelled', async () => (await handle.describe()).status.name === 'CANCELLED', 150_000);
    } finally {
      await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/faults`, { method: 'DELETE' });
    }
  }, 420_000);

  it('connect on a terminal asks for what is missing and never shows the secret typed', async () => {
    // `script` gives the command a pseudo-terminal, as a person's shell would.
    const command = [
      process.execPath, BIN, 'connect', '--name', 'acme-terminal', '--paused',
      '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl, '--commerce-client-id', sandboxes.commerce.clientId,
      '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
    ].map((arg) => `'${arg}'`).join(' ');
    const { COMMERCE_CLIENT_SECRET: _secret, CRM_SYNC_OUTPUT: _output, ...terminalEnv } = env;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...terminalEnv, TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor('the organization question', () => screen.includes('Commerce organization id'), 60_000, 100);
    child.stdin!.write(`${sandboxes.commerce.organizationId}\r`);
    await waitFor('the secret question', () => screen.includes('Commerce client secret (not shown; or set COMMERCE_CLIENT_SECRET)'), 30_000, 100);
    child.stdin!.write(`${sandboxes.commerce.clientSecret}\r`);
    expect(await exited).toBe(0);
    expect(screen).toContain('Saved acme-terminal');
    expect(screen).not.toContain(sandboxes.commerce.clientSecret);
    const saved = (await json(['connections'])).find((connection: { name: string }) => connection.name === 'acme-terminal');
    expect(saved.settings.commerce.organizationId).toBe(sandboxes.commerce.organizationId);
  });

  it('a command exits 5 when Temporal or PostgreSQL cannot be reached', async () => {
    const unreachable = await cli(['sync', 'acme'], { TEMPORAL_ADDRESS: '127.0.0.1:9' });
    expect(unreachable.code).toBe(5);
    expect(unreachable.stderr).toContain('Temporal is not reachable at 127.0.0.1:9');
    const noDatabase = await cli(['doctor'], { DATABASE_URL: 'postgres://crm:secret-pw@127.0.0.1:9/none' });
    expect(noDatabase.code).toBe(5);
    expect(noDatabase.stderr).toContain('PostgreSQL is not reachable at DATABASE_URL');
    expect(noDatabase.stderr).not.toContain('secret-pw');
  });
});
