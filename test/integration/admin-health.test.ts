// /healthz and /readyz (admin/health.ts): answered without the admin token, as an orchestrator's probes
// are; /readyz is 200 only while PostgreSQL answers, the Temporal connection answers and the worker is
// RUNNING, else 503 with a fixed reason; neither reveals anything secret. First on the real `crm-sync
// worker` (real PostgreSQL and Temporal dev server), then each failing check on its own.
import type { ChildProcess } from 'node:child_process';
import { NativeConnection } from '@temporalio/worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createReadinessProbe } from '../../admin/health.ts';
import { startAdminServer } from '../../admin/server.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/start-process.ts';
import { startCliWorker, waitForExit } from '../support/worker-process.ts';

const TOKEN = 'health-test-admin-token-0123456789abcdef';

describe('/healthz and /readyz on `crm-sync worker` (real PostgreSQL and Temporal)', () => {
  let database: TestDatabase;
  let worker: ChildProcess;
  let adminPort = 0;
  const lines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    worker = await startCliWorker({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      taskQueue: `health-${Date.now()}`,
      freePort: async () => (adminPort = await freePort()),
      onLine: (line) => lines.push(line),
    });
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGKILL');
      await waitForExit(worker);
    }
    await database?.drop();
  });

  it('/healthz answers 200 without a token; /metrics still asks for one', async () => {
    const live = await fetch(`http://127.0.0.1:${adminPort}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await live.json()).toEqual({ live: true });
    expect((await fetch(`http://127.0.0.1:${adminPort}/metrics`)).status).toBe(401);
  });

  it('/readyz answers 200 with every check ok once the worker runs, and names no secret', async () => {
    const ready = await waitFor('/readyz to answer 200', async () => {
      const answer = await fetch(`http://127.0.0.1:${adminPort}/readyz`);
      return answer.status === 200 ? answer.text() : undefined;
    }, 60_000);
    expect(JSON.parse(ready)).toEqual({ ready: true, checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } });
    const url = new URL(database.url);
    for (const secret of [database.url, url.password || 'postgres', url.hostname, inject('temporalAddress'), Buffer.alloc(32, 5).toString('base64')]) expect(ready).not.toContain(secret);
  });

  it('/readyz refuses other methods', async () => {
    const answer = await fetch(`http://127.0.0.1:${adminPort}/readyz`, { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD');
  });

  it('SIGTERM: the worker drains and exits 0', async () => {
    worker.kill('SIGTERM');
    await waitForExit(worker);
    expect(worker.exitCode).toBe(0);
    expect(lines.some((line) => line.includes('SIGTERM received'))).toBe(true);
  });
});

describe('/readyz when a check fails (the probe on the admin server)', () => {
  let connection: NativeConnection;
  beforeAll(async () => {
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await connection?.close().catch(() => undefined);
  });

  async function readyz(probe: ReturnType<typeof createReadinessProbe>) {
    const server = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: createSyncMetrics(), readiness: probe });
    try {
      const answer = await fetch(`${server.url}/readyz`);
      return { status: answer.status, body: (await answer.json()) as { ready: boolean; checks: Record<string, string>; reason?: string } };
    } finally {
      await server.stop();
    }
  }
  const temporalPing = (conn: NativeConnection) => (signal: AbortSignal) => conn.withAbortSignal(signal, () => conn.workflowService.getSystemInfo({}));

  it('PostgreSQL refusing connections: 503, postgres failing, and the database address is not told', async () => {
    const deadPort = await freePort();
    const pool = new pg.Pool({ connectionString: `postgres://sync:hunter2-secret@127.0.0.1:${deadPort}/sync` });
    try {
      const probe = createReadinessProbe(pool, 2_000);
      probe.watchTemporal(temporalPing(connection));
      probe.watchWorker(() => 'RUNNING');
      const { status, body } = await readyz(probe);
      expect(status).toBe(503);
      expect(body).toEqual({ ready: false, checks: { postgres: 'failing', temporal: 'ok', worker: 'ok' }, reason: 'PostgreSQL did not answer a query within 2 s' });
      expect(JSON.stringify(body)).not.toMatch(/hunter2|127\.0\.0\.1|ECONNREFUSED/);
    } finally {
      await pool.end();
    }
  });

  it('before the Temporal connection and the worker exist, and while the worker stops: 503 with the reason', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      const probe = createReadinessProbe(database.pool);
      expect(await readyz(probe)).toEqual({ status: 503, body: { ready: false, checks: { postgres: 'ok', temporal: 'waiting', worker: 'waiting' }, reason: 'the Temporal connection is not open yet (the worker is starting)' } });
      probe.watchTemporal(temporalPing(connection));
      expect(await readyz(probe)).toEqual({ status: 503, body: { ready: false, checks: { postgres: 'ok', temporal: 'ok', worker: 'waiting' }, reason: 'the worker is starting (bundling the workflows)' } });
      let state = 'RUNNING';
      probe.watchWorker(() => state);
      expect(await readyz(probe)).toEqual({ status: 200, body: { ready: true, checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } } });
      state = 'STOPPING';
      expect(await readyz(probe)).toEqual({ status: 503, body: { ready: false, checks: { postgres: 'ok', temporal: 'ok', worker: 'failing' }, reason: 'the worker is STOPPING, not polling for tasks' } });
    } finally {
      await database.drop();
    }
  });

  it('a Temporal connection that no longer answers: 503, temporal failing', async () => {
    const database = await createTestDatabase({ migrate: false });
    const closed = await NativeConnection.connect({ address: inject('temporalAddress') });
    await closed.close();
    try {
      const probe = createReadinessProbe(database.pool, 2_000);
      probe.watchTemporal(temporalPing(closed));
      probe.watchWorker(() => 'RUNNING');
      expect(await readyz(probe)).toEqual({ status: 503, body: { ready: false, checks: { postgres: 'ok', temporal: 'failing', worker: 'ok' }, reason: 'the Temporal cluster did not answer within 2 s' } });
    } finally {
      await database.drop();
    }
  });

  it('a Temporal call that hangs counts as failing once the timeout passes', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      const probe = createReadinessProbe(database.pool, 300);
      probe.watchTemporal(() => new Promise(() => undefined));
      probe.watchWorker(() => 'RUNNING');
      const { status, body } = await readyz(probe);
      expect(status).toBe(503);
      expect(body.checks).toEqual({ postgres: 'ok', temporal: 'failing', worker: 'ok' });
    } finally {
      await database.drop();
    }
  });

  it('without a readiness probe (not `crm-sync worker`): /readyz 503, /healthz 200', async () => {
    const server = await startAdminServer({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: createSyncMetrics() });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
