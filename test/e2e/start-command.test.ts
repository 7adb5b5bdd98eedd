// `crm-sync start` (what `npm start` runs) as a user runs it: embedded PostgreSQL, a local Temporal dev
// server, the schedule and the worker; heartbeats accumulate; Ctrl-C stops everything; a second start
// resumes on the same data.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedJobEnv, processesUsing, startJob as start, waitFor, type StartedJob as Started } from '../support/start-process.ts';

describe('crm-sync start', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-start-'));
  chmodSync(dataDir, 0o755);
  const running: Started[] = [];
  afterAll(() => {
    for (const { child } of running) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the heartbeat loop, stops cleanly on Ctrl-C, and resumes on the same data', async () => {
    const env = await embeddedJobEnv(dataDir, { CRM_SYNC_HEARTBEAT_EVERY: '2s', CRM_SYNC_DEMO: 'off' });

    const first = start(env);
    running.push(first);
    const ready = await waitFor('the worker to run', () => first.logs.find((entry) => String(entry.msg).startsWith('Worker running')));
    expect(ready.webUi).toBe(`http://127.0.0.1:${env.CRM_SYNC_TEMPORAL_UI_PORT}`);
    expect(String(ready.msg)).toContain(`Temporal Web UI: http://127.0.0.1:${env.CRM_SYNC_TEMPORAL_UI_PORT}`);
    // The console's address with the Web UI's; its login page answers, the rest wants the token.
    const consoleUrl = `http://127.0.0.1:${env.CRM_SYNC_ADMIN_PORT}/`;
    expect(String(ready.msg)).toContain(`Console: ${consoleUrl} (admin token in ${path.join(dataDir, 'admin-token')})`);
    expect((await fetch(`${consoleUrl}login`)).status).toBe(200);
    expect((await fetch(consoleUrl, { redirect: 'manual' })).status).toBe(303);
    // Ready as a cluster worker is: PostgreSQL, Temporal and the polling worker all checked.
    // (Each check has 3 s to answer: on a loaded machine one probe may miss that, so wait for a ready one.)
    const readiness = await waitFor('/readyz to answer 200', async () => {
      const answer = await fetch(`${consoleUrl}readyz`);
      return answer.status === 200 ? answer.json() : undefined;
    });
    expect(readiness).toEqual({ ready: true, checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } });
    expect(JSON.stringify(first.logs)).not.toContain(readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim());

    const password = readFileSync(path.join(dataDir, 'postgres', 'password'), 'utf8').trim();
    const url = `postgres://postgres:${password}@127.0.0.1:${env.CRM_SYNC_EMBEDDED_PG_PORT}/postgres`;
    const countHeartbeats = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query('SELECT count(*)::int AS n FROM heartbeats')).rows[0].n as number;
      } finally {
        await client.end();
      }
    };
    await waitFor('two heartbeat rows', async () => ((await countHeartbeats()) >= 2 ? true : undefined));

    // Ctrl-C in a terminal: SIGINT to the whole process group.
    process.kill(-first.child.pid!, 'SIGINT');
    expect(await first.exited).toBe(0);
    await waitFor('no process left on the data directory', () => (processesUsing(dataDir).length === 0 ? true : undefined), 15_000);

    const second = start(env);
    running.push(second);
    const scheduleReady = await waitFor('the schedule', () => second.logs.find((entry) => entry.msg === 'Heartbeat schedule ready'));
    expect(scheduleReady.outcome).toBe('updated'); // the schedule survived in Temporal's SQLite file
    await waitFor('the worker to run again', () => second.logs.find((entry) => String(entry.msg).startsWith('Worker running')));
    const before = await countHeartbeats();
    expect(before).toBeGreaterThanOrEqual(2); // the rows survived in PostgreSQL
    await waitFor('the heartbeat table to grow again', async () => ((await countHeartbeats()) > before ? true : undefined));

    // A service manager's stop: SIGTERM to the main process only.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);
  });
});
