// Liveness and readiness for an orchestrator (Kubernetes probes, compose healthchecks), answered without
// the admin token: /healthz says the process answers HTTP; /readyz says this worker can do work now:
// PostgreSQL answers a query, the Temporal connection answers a call, and the worker polls (RUNNING).
// Every answer is JSON naming each check as ok or failing and, when not ready, why in fixed words: no
// error text, host name, URL or identity, so a stranger who can reach the port learns nothing of use.
import type http from 'node:http';
import type pg from 'pg';

export type CheckState = 'ok' | 'failing' | 'waiting';
export type Readiness = { ready: boolean; checks: Record<'postgres' | 'temporal' | 'worker', CheckState>; reason?: string };

export type ReadinessProbe = {
  /** The Temporal connection, once it exists: a call that rejects when the cluster does not answer. */
  watchTemporal(ping: (signal: AbortSignal) => Promise<unknown>): void;
  /** The worker, once created: its state (Temporal's Worker.getState(): RUNNING while it polls). */
  watchWorker(state: () => string): void;
  check(): Promise<Readiness>;
};

/** Each check gets this long: a probe must answer before the orchestrator's own timeout (1 s by default in Kubernetes is too short for a cold pool). */
export const CHECK_TIMEOUT_MS = 3_000;

export function createReadinessProbe(pool: pg.Pool, timeoutMs = CHECK_TIMEOUT_MS): ReadinessProbe {
  let temporal: ((signal: AbortSignal) => Promise<unknown>) | undefined;
  let worker: (() => string) | undefined;
  return {
    watchTemporal: (ping) => void (temporal = ping),
    watchWorker: (state) => void (worker = state),
    async check() {
      const [postgres, temporalState] = await Promise.all([
        passes((signal) => queryWithin(pool, signal), timeoutMs),
        temporal ? passes(temporal, timeoutMs) : Promise.resolve<CheckState>('waiting'),
      ]);
      const workerState = worker?.();
      const checks: Readiness['checks'] = { postgres, temporal: temporalState, worker: workerState === undefined ? 'waiting' : workerState === 'RUNNING' ? 'ok' : 'failing' };
      if (postgres !== 'ok') return { ready: false, checks, reason: `PostgreSQL did not answer a query within ${timeoutMs / 1000} s` };
      if (temporalState === 'waiting') return { ready: false, checks, reason: 'the Temporal connection is not open yet (the worker is starting)' };
      if (temporalState !== 'ok') return { ready: false, checks, reason: `the Temporal cluster did not answer within ${timeoutMs / 1000} s` };
      if (workerState === undefined) return { ready: false, checks, reason: 'the worker is starting (bundling the workflows)' };
      // Temporal's states are fixed words (INITIALIZED, RUNNING, STOPPING, DRAINING, DRAINED, STOPPED, FAILED): safe to say.
      if (workerState !== 'RUNNING') return { ready: false, checks, reason: `the worker is ${workerState}, not polling for tasks` };
      return { ready: true, checks };
    },
  };
}

async function passes(check: (signal: AbortSignal) => Promise<unknown>, timeoutMs: number): Promise<CheckState> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'failing'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('failing');
    }, timeoutMs);
  });
  try {
    return await Promise.race([check(controller.signal).then((): CheckState => 'ok', (): CheckState => 'failing'), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A query on a pooled connection. A pool that is full waits for a connection: that counts against the timeout, as a busy worker is still alive but should not be sent more. */
async function queryWithin(pool: pg.Pool, signal: AbortSignal): Promise<void> {
  const client = await pool.connect();
  // Given back broken when the timeout passed meanwhile: a query stuck on a dead server must not be reused.
  let broken = false;
  try {
    await client.query('SELECT 1');
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.release(broken || signal.aborted);
  }
}

/**
 * Answers GET /healthz and GET /readyz (HEAD too); false for any other request. Called before the
 * admin server asks for its token: a probe carries none.
 */
export function answerHealth(pathname: string, method: string, probe: ReadinessProbe | undefined, response: http.ServerResponse): boolean | Promise<boolean> {
  if (pathname !== '/healthz' && pathname !== '/readyz') return false;
  if (method !== 'GET' && method !== 'HEAD') {
    json(response, 405, { error: `${pathname} answers GET only` }, { allow: 'GET, HEAD' });
    return true;
  }
  if (pathname === '/healthz') {
    json(response, 200, { live: true });
    return true;
  }
  if (!probe) {
    json(response, 503, { ready: false, reason: 'this process does not track readiness (only `crm-sync worker` does)' });
    return true;
  }
  return probe.check().then((readiness) => {
    json(response, readiness.ready ? 200 : 503, readiness);
    return true;
  });
}

function json(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  response.end(`${JSON.stringify(body)}\n`);
}
