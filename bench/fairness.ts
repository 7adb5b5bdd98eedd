// Benchmark: fairness across connections on one fleet (issue #29 part 3). BENCH_FAIRNESS_CONNECTIONS
// (default 20) connections on one production worker (a process of its own, BENCH_FAIRNESS_ACTIVITY_SLOTS activity slots, default 24), one Temporal dev server and
// one PostgreSQL, each between its own commerce organization (a commerce sandbox of its own, org-N) and
// its own CRM org (Salesforce, HubSpot and Dynamics sandboxes in turn), each with its real schedules at
// their default intervals:
//   - the first connection (Salesforce unless BENCH_FAIRNESS_BACKFILL_CRM says otherwise; its sandboxes
//     in a process of their own, with the shared-org conditions of bench/processes/stack.ts) backfills
//     BENCH_FAIRNESS_ENTITLEMENTS (default 100,000) entitlements with their buyers, contacts, offers and
//     referrals (`crm-sync backfill`'s workflow, started as that command starts it);
//   - the other connections (BENCH_FAIRNESS_OTHER_ENTITLEMENTS each, default 200, synced once first)
//     meet a commerce change every BENCH_FAIRNESS_COMMERCE_CHANGE_EVERY_SECONDS (default 10) and an
//     opportunity shared for co-sell every BENCH_FAIRNESS_CRM_CHANGE_EVERY_SECONDS (default 20) while the
//     backfill runs, and their freshness is measured both ways as bench/freshness.ts measures it
//     (bench/freshness-measure.ts), draining for up to BENCH_FAIRNESS_DRAIN_SECONDS (default 180) after it.
// With BENCH_FAIRNESS_ALONE (default 1) the same backfill first runs alone (a fresh commerce organization
// and CRM org of the same size, nothing else on the worker), for the one-connection figures beside it.
// BENCH_FAIRNESS_PRIORITY=0 runs the server's default matcher (temporal/matching-config.ts left out): the
// same priorities and fairness keys are sent and recorded, but tasks are dispatched in arrival order.
// Prints one JSON object: per connection p50 / p95 / max both ways, the backfill's seconds and records
// per second beside the alone run's, and the machine's load average through the run (2 shared cores).
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { createLogger } from '../config/logger.ts';
import { WORKER_ENV, WORKER_NODE_FLAGS } from '../config/node-flags.ts';
import { startEmbeddedPostgres } from '../infra/embedded-postgres.ts';
import { startTemporalDevServer } from '../infra/temporal-dev-server.ts';
import { ENTITIES } from '../mappings/types.ts';
import { DEFAULT_OPERATION_MS } from '../sandbox/dynamics/index.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../sandbox/commerce/index.ts';
import { createConnectionStore } from '../store/connections.ts';
import { createPool } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { MATCHING_PRIORITY_CONFIG } from '../temporal/matching-config.ts';
import { connectionScheduleIds, ensureConnectionSchedules, startBackfill } from '../temporal/sync-schedules.ts';
import { scheduledPriority } from '../temporal/sync-priority.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { createCrmConnection, startCrmSandbox, type CrmUnderTest } from '../test/support/crm-sandbox.ts';
import { TEST_SECRET_BOX } from '../test/support/sync-harness.ts';
import { freePort } from '../test/support/free-port.ts';
import type { CrmKind } from './crm-calls.ts';
import { drain, freshnessProbe, percentile, positiveNumber as number, round, sleep, TARGET_SECONDS, waitForFeedPosition, type FreshnessProbe } from './freshness-measure.ts';
import { startChild, type BenchChild } from './processes/ipc.ts';
import { connectionPasses, passFigures, whereTheTimeWent } from './processes/pass-timings.ts';
import { benchConnection, prepareCrm, type SandboxesDescription } from './processes/stack.ts';

const backfillEntitlements = number('BENCH_FAIRNESS_ENTITLEMENTS', 100_000);
const connectionCount = Math.max(2, Math.round(number('BENCH_FAIRNESS_CONNECTIONS', 20)));
const otherEntitlements = number('BENCH_FAIRNESS_OTHER_ENTITLEMENTS', 200);
const commerceEvery = number('BENCH_FAIRNESS_COMMERCE_CHANGE_EVERY_SECONDS', 10);
const crmEvery = number('BENCH_FAIRNESS_CRM_CHANGE_EVERY_SECONDS', 20);
const drainSeconds = number('BENCH_FAIRNESS_DRAIN_SECONDS', 180);
const maxSeconds = number('BENCH_FAIRNESS_MAX_SECONDS', 7200);
const backfillCrm = (process.env.BENCH_FAIRNESS_BACKFILL_CRM ?? 'salesforce') as CrmKind;
const priorityMatching = process.env.BENCH_FAIRNESS_PRIORITY !== '0';
const alone = process.env.BENCH_FAIRNESS_ALONE !== '0';
// The worker's activity slots (CRM_SYNC_MAX_CONCURRENT_ACTIVITIES; its default is 8). Each connection
// runs a notification pass and a co-sell pass every 30 s: 20 connections on 8 slots queue behind each
// other (not behind the backfill, which holds one slot), so the fleet is sized for them (docs/deployment.md).
const activitySlots = number('BENCH_FAIRNESS_ACTIVITY_SLOTS', 24);
/** The other connections' CRMs, in turn. */
const OTHER_KINDS: CrmKind[] = ['hubspot', 'dynamics', 'salesforce'];
const TASK_QUEUE = 'fairness';
const logger = createLogger({ level: 'warn', format: 'json' });
const say = (message: string) => process.stderr.write(`fairness: ${message}\n`);

/** The 1-minute load average, sampled every 10 s, against the machine's cores. */
function loadSampler() {
  const samples: number[] = [os.loadavg()[0]!];
  const timer = setInterval(() => samples.push(os.loadavg()[0]!), 10_000);
  return {
    stop() {
      clearInterval(timer);
      const sorted = [...samples].sort((a, b) => a - b);
      return { cores: os.cpus().length, loadAverage1mMin: round(sorted[0]!), loadAverage1mP50: round(percentile(sorted, 0.5)!), loadAverage1mMax: round(sorted.at(-1)!), samples: samples.length };
    },
  };
}

type Other = { index: number; kind: CrmKind; commerce: CommerceSandbox; crm: CrmUnderTest; connectionId: string; probe?: FreshnessProbe };

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-fairness-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const cleanups: (() => Promise<unknown> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const load = loadSampler();
  try {
    const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger });
    cleanups.push(() => postgres.stop());
    const temporal = await startTemporalDevServer({ port: await freePort(), logger, priorityMatching });
    cleanups.push(() => temporal.stop());
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const databaseName = `crm_sync_fairness_${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const url = new URL(postgres.url);
    url.pathname = `/${databaseName}`;
    const pool = createPool(url.toString());
    cleanups.push(() => pool.end());
    await migrate(pool, logger);
    const database = { url: url.toString(), pool, drop: async () => {} };

    // The production worker in a process of its own (the sandboxes' work is not its CPU).
    const worker = await startChild<{ pid: number }>(path.join(import.meta.dirname, 'processes', 'worker.ts'), {
      env: { ...WORKER_ENV, BENCH_TEMPORAL_ADDRESS: temporal.address, BENCH_DATABASE_URL: url.toString(), BENCH_TASK_QUEUE: TASK_QUEUE, BENCH_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'), BENCH_WORKER_ACTIVITY_SLOTS: String(activitySlots) },
      execArgv: [...WORKER_NODE_FLAGS],
    });
    cleanups.push(() => worker.kill());
    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });

    /** A commerce organization and CRM org of the backfill's size, in a process of their own, and its stored connection. */
    const bigConnection = async (name: string, seed: number) => {
      const sandboxes = await startChild<SandboxesDescription>(path.join(import.meta.dirname, 'processes', 'sandboxes.ts'), { args: [String(backfillEntitlements), String(seed)] });
      cleanups.push(() => sandboxes.kill());
      await prepareCrm(sandboxes.info, backfillCrm);
      const { settings, secrets } = benchConnection(sandboxes.info, backfillCrm);
      const { id } = await createConnectionStore(pool, TEST_SECRET_BOX).create({ name, crmKind: backfillCrm, settings, secrets });
      return { sandboxes, connectionId: id, entities: (settings.entities ?? ENTITIES) as (typeof ENTITIES)[number][] };
    };
    /** Starts the connection's backfill as `crm-sync backfill` does; its seconds and records written once it ends. */
    const backfill = async (big: { sandboxes: BenchChild<SandboxesDescription>; connectionId: string; entities: (typeof ENTITIES)[number][] }) => {
      const started = performance.now();
      const handle = await startBackfill(client, TASK_QUEUE, { connectionId: big.connectionId, entities: big.entities });
      return {
        handle,
        finished: (async () => {
          const progress: SyncProgress = await worker.whileAlive(big.sandboxes.whileAlive(handle.result()));
          const seconds = (performance.now() - started) / 1000;
          const recordsWritten = progress.totals.created + progress.totals.updated;
          return { seconds: round(seconds), recordsRead: progress.totals.records, recordsWritten, recordsPerSecond: Math.round(recordsWritten / seconds), failed: progress.totals.failed };
        })(),
      };
    };

    let aloneFigures: Record<string, unknown> | undefined;
    if (alone) {
      say(`the backfill alone: ${backfillEntitlements} entitlements into ${backfillCrm}`);
      const big = await bigConnection('fairness-alone', 2);
      aloneFigures = await (await backfill(big)).finished;
      big.sandboxes.kill();
      say(`alone: ${JSON.stringify(aloneFigures)}`);
    }

    // The other connections: each its own commerce organization and CRM org, synced once by hand.
    const others: Other[] = [];
    for (let index = 1; index < connectionCount; index += 1) {
      const kind = OTHER_KINDS[(index - 1) % OTHER_KINDS.length]!;
      const commerce = await startCommerceSandbox({ entitlements: otherEntitlements, seed: 100 + index, organizationId: `org-${index + 1}`, clientId: `seller-${index + 1}`, clientSecret: `seller-${index + 1}-secret` });
      cleanups.push(() => commerce.stop());
      const crm = await startCrmSandbox(kind, kind === 'dynamics' ? { sandbox: { operationMs: DEFAULT_OPERATION_MS } } : {});
      cleanups.push(() => crm.stop());
      const { id } = await createCrmConnection(database, commerce, crm, { name: `fairness-${index + 1}-${kind}` });
      others.push({ index: index + 1, kind, commerce, crm, connectionId: id });
    }
    say(`${others.length} other connections: first sync and co-sell pass`);
    await Promise.all(
      others.map(async (other) => {
        for (const type of [WORKFLOW_TYPES.incrementalSync, WORKFLOW_TYPES.cosell]) {
          await worker.whileAlive(client.workflow.execute(type, { taskQueue: TASK_QUEUE, workflowId: `fairness-first-${type}-${other.connectionId}`, args: [{ connectionId: other.connectionId }], priority: scheduledPriority(other.connectionId) }));
        }
      }),
    );
    const big = await bigConnection('fairness-backfill', 1);
    // Every connection's real schedules, at the intervals it was saved with (the defaults).
    const schedulesSince = new Date();
    const all = [big.connectionId, ...others.map((other) => other.connectionId)];
    for (const connectionId of all) {
      const schedule = connectionSettingsSchema.parse((await createConnectionStore(pool, TEST_SECRET_BOX).get(connectionId))!.settings).schedule;
      await ensureConnectionSchedules(client, { connectionId, every: schedule.every, realtimeEvery: schedule.realtimeEvery, reconcileEvery: schedule.reconcileEvery, cosellEvery: schedule.cosellEvery, taskQueue: TASK_QUEUE });
      cleanups.push(async () => {
        for (const id of connectionScheduleIds(connectionId)) await client.schedule.getHandle(id).delete().catch(() => {});
      });
    }
    // Changes are made once each notification pass has stored its feed position (bench/freshness.ts says why).
    await Promise.all(others.map((other) => waitForFeedPosition(pool, other.connectionId, 180)));

    say(`backfill of ${backfillEntitlements} entitlements on ${backfillCrm} beside ${others.length} connections under change`);
    const running = await backfill(big);
    for (const other of others) {
      other.probe = freshnessProbe({ pool, connectionId: other.connectionId, commerce: other.commerce, crm: other.crm, accounts: await other.crm.accounts(), label: String(other.index) });
      // Spread over the interval, so the connections' changes do not all land in the same second.
      setTimeout(() => other.probe!.start(commerceEvery, crmEvery), Math.round(Math.random() * commerceEvery * 1000)).unref();
    }
    const described = await running.handle.describe();
    const deadline = sleep(maxSeconds * 1000).then(() => undefined);
    const backfillFigures = await Promise.race([running.finished, deadline]);
    for (const other of others) other.probe!.stop();
    say(backfillFigures ? `backfill done: ${JSON.stringify(backfillFigures)}; draining` : `backfill still running after ${maxSeconds} s; draining`);
    await drain(others.map((other) => other.probe!), drainSeconds);

    const perConnection: (Record<string, unknown> & { connection: string; crm: CrmKind })[] = [];
    for (const other of others) {
      const measured = await other.probe!.result();
      // Where the time went: the connection's passes as Temporal ran them, and for its slowest changes
      // the pass that carried each and those that ran in between without it.
      const { passes, schedules } = await connectionPasses({ client, pool, connectionId: other.connectionId, since: schedulesSince, withHistory: ['realtime', 'incremental'] });
      const arrived = other.probe!.changeTimes().flatMap((change) => (change.arrivedAt === null ? [] : [{ ...change, arrivedAt: change.arrivedAt }]));
      const explained = (change: (typeof arrived)[number]) => ({ record: change.key, type: change.type, seconds: round((change.arrivedAt - change.at) / 1000), ...whereTheTimeWent(passes, change) });
      const slowest = [...arrived].sort((a, b) => b.arrivedAt - b.at - (a.arrivedAt - a.at)).slice(0, 3).map(explained);
      // Records written again after their change arrived: what wrote them (an end-only reading took the last write).
      const rewritten = arrived.filter((change) => change.rewrittenAt.length > 0).map(explained);
      perConnection.push({ connection: `fairness-${other.index}`, crm: other.kind, ...measured, passes: passFigures(passes), schedules, slowestCommerceToCrm: slowest, rewrittenCommerceToCrm: rewritten });
    }
    const backfillPasses = await connectionPasses({ client, pool, connectionId: big.connectionId, since: schedulesSince });
    const worst = (key: string) => Math.max(...perConnection.map((result) => (result[key] as number | null) ?? Infinity));
    const met = perConnection.filter((result) => result.freshnessCommerceToCrmP95Met && result.freshnessCrmToCommerceP95Met).length;
    const result = {
      bench: 'fairness',
      priorityMatching,
      activitySlots,
      matchingConfig: priorityMatching ? MATCHING_PRIORITY_CONFIG : 'server default (arrival order)',
      connections: connectionCount,
      backfill: {
        crm: backfillCrm,
        entitlements: backfillEntitlements,
        priority: described.raw.workflowExecutionInfo?.priority ?? null,
        ...(backfillFigures ?? { unfinishedAfterSeconds: maxSeconds }),
        alone: aloneFigures ?? 'not run (BENCH_FAIRNESS_ALONE=0): compare with docs/benchmarks.md\'s scenarios figures',
        throughputVsAlone: backfillFigures && aloneFigures ? Number((backfillFigures.recordsPerSecond / (aloneFigures.recordsPerSecond as number)).toFixed(2)) : null,
        // The backfilling connection's own scheduled passes (they leave its entities to the backfill).
        passes: passFigures(backfillPasses.passes),
        schedules: backfillPasses.schedules,
      },
      others: {
        entitlementsEach: otherEntitlements,
        commerceChangeEverySeconds: commerceEvery,
        crmChangeEverySeconds: crmEvery,
        worstCommerceToCrmP95Seconds: worst('freshnessCommerceToCrmP95Seconds'),
        worstCrmToCommerceP95Seconds: worst('freshnessCrmToCommerceP95Seconds'),
        targetP95Seconds: TARGET_SECONDS,
        connectionsMeetingTargetBothWays: met,
        of: perConnection.length,
        // Per connection, its notification passes' seconds (start to close) and the ticks its schedule skipped.
        notificationPasses: perConnection.map((result) => {
          const realtime = (result.passes as Record<string, { seconds: { p95?: number; max?: number }; activityQueueSeconds?: { p95?: number } }>).realtime;
          const skipped = (result.schedules as Record<string, { skippedOverlap: number; missedCatchupWindow: number }>).realtime!;
          return { connection: result.connection, rewrittenRecords: result.commerceToCrmRewritten, p95Seconds: realtime?.seconds.p95 ?? null, maxSeconds: realtime?.seconds.max ?? null, activityQueueP95Seconds: realtime?.activityQueueSeconds?.p95 ?? null, skippedOverlap: skipped.skippedOverlap, missedCatchupWindow: skipped.missedCatchupWindow };
        }),
      },
      load: load.stop(),
      perConnection: perConnection.map(({ commerceToCrmByChangeType: _byType, ...rest }) => rest),
    };
    console.log(JSON.stringify(result));
  } finally {
    load.stop();
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
  }
}

await main();
// The Temporal runtime's threads and the sandboxes' sockets must not keep the bench alive.
process.exit(process.exitCode ?? 0);
