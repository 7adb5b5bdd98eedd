// Benchmark: freshness (issue #14). For each CRM in BENCH_CRMS (default all three): a commerce sandbox
// with BENCH_FRESHNESS_ENTITLEMENTS (default 2,000) entitlements synced once, then the connection's real
// schedules with their default intervals (incremental every 5 minutes, notifications every 30 seconds,
// co-sell every 30 seconds) while changes arrive at a steady rate on both sides for
// BENCH_FRESHNESS_SECONDS (default 240):
//   commerce -> CRM  one commerce change every BENCH_COMMERCE_CHANGE_EVERY_SECONDS (default 2) from the
//                    sandbox's change driver (statuses, usage, renewals, offers, referral stages); its
//                    delay is the time the sync recorded the CRM's answer for that record (the record
//                    link's updated_at, written right after the CRM write) minus the change's own
//                    lastUpdateTime;
//   CRM -> commerce  one opportunity shared for co-sell every BENCH_CRM_CHANGE_EVERY_SECONDS (default 6),
//                    made through the CRM's API as a seller's tool would; its delay is the referral's
//                    creationTime on the commerce side minus the moment the CRM answered the create.
// After the last change the schedules run on for up to BENCH_FRESHNESS_DRAIN_SECONDS (default 180) until
// every change has arrived. A commerce change that made no CRM write is counted apart, never left out
// silently: refused by the CRM (a dead letter) or touching nothing the mapping carries (no write due).
// A shared opportunity without its referral by the end is counted as missing.
// One JSON object per CRM with p50 / p95 / max per direction beside the 60-second target, then a summary.
// The sandboxes and the worker run in this process (freshness, not memory, is measured here).
// BENCH_FRESHNESS_DEBUG=1 prints the connection's runs and every change's delay on stderr.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createConnectionStore } from '../store/connections.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { connectionScheduleIds, ensureConnectionSchedules } from '../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import { TEST_SECRET_BOX } from '../test/support/sync-harness.ts';
import type { CrmKind } from './crm-calls.ts';
import { drain, freshnessProbe, positiveNumber as number, sleep, TARGET_SECONDS, waitForFeedPosition } from './freshness-measure.ts';
import { startInProcessStack, startServices } from './processes/in-process-stack.ts';

const entitlements = number('BENCH_FRESHNESS_ENTITLEMENTS', 2000);
const seconds = number('BENCH_FRESHNESS_SECONDS', 240);
const drainSeconds = number('BENCH_FRESHNESS_DRAIN_SECONDS', 180);
const commerceEvery = number('BENCH_COMMERCE_CHANGE_EVERY_SECONDS', 2);
const crmEvery = number('BENCH_CRM_CHANGE_EVERY_SECONDS', 6);
const crms = (process.env.BENCH_CRMS ?? 'salesforce,hubspot,dynamics').split(',').map((kind) => kind.trim()) as CrmKind[];

async function freshness(kind: CrmKind, services: { postgresUrl: string; temporalAddress: string }) {
  const stack = await startInProcessStack(kind, services, { name: 'freshness', entitlements, seed: 17 });
  const { pool, commerce, crm, connectionId, taskQueue, client } = stack;
  let probe: ReturnType<typeof freshnessProbe> | undefined;
  try {
    // The first sync and one co-sell pass (the buyers' accounts the shared opportunities go on), by hand.
    for (const type of [WORKFLOW_TYPES.incrementalSync, WORKFLOW_TYPES.cosell]) await stack.run(type);
    const accounts = await crm.accounts();
    // The intervals the connection was saved with: the defaults (connection-settings.ts).
    const defaults = connectionSettingsSchema.parse((await createConnectionStore(pool, TEST_SECRET_BOX).get(connectionId))!.settings).schedule;
    await ensureConnectionSchedules(client, { connectionId, every: defaults.every, realtimeEvery: defaults.realtimeEvery, reconcileEvery: defaults.reconcileEvery, cosellEvery: defaults.cosellEvery, taskQueue });
    // A new connection's first notification tick starts reading the feed at its end (what came before
    // is the full pass's), so changes are made once that position is stored: steady state is measured,
    // not the first half-minute, which waits for the 5-minute pass.
    await waitForFeedPosition(pool, connectionId);
    process.stderr.write(`freshness ${kind}: schedules on, changes for ${seconds} s\n`);

    probe = freshnessProbe({ pool, connectionId, commerce, crm, accounts });
    probe.start(commerceEvery, crmEvery);
    await sleep(seconds * 1000);
    probe.stop();
    // Runs on until every change has arrived (or the drain ends).
    await drain([probe], drainSeconds);
    if (process.env.BENCH_FRESHNESS_DEBUG) {
      const { rows: runs } = await pool.query(`SELECT kind, status, started_at, finished_at, counts FROM sync_runs WHERE connection_id = $1 ORDER BY started_at`, [connectionId]);
      for (const run of runs) console.error('RUN', run.kind, run.status, new Date(run.started_at).toISOString(), run.finished_at && (new Date(run.finished_at).getTime() - new Date(run.started_at).getTime()) / 1000, JSON.stringify(run.counts).slice(0, 200));
      for (const [key, at, delay] of probe.changeDelays()) console.error('CHANGE', key, at, delay);
    }
    const measured = await probe.result();
    return {
      bench: 'freshness',
      crm: kind,
      entitlements,
      schedules: { every: defaults.every, realtimeEvery: defaults.realtimeEvery, cosellEvery: defaults.cosellEvery },
      changeSeconds: seconds,
      ...measured,
    };
  } finally {
    probe?.stop();
    for (const id of connectionScheduleIds(connectionId)) await client.schedule.getHandle(id).delete().catch(() => {});
    await stack.stop();
  }
}

const results: Record<string, unknown>[] = [];
if (crms.length > 1) {
  // One process per CRM, each with services of its own, so each CRM is measured as it would run by
  // itself (nothing of an earlier CRM's stack, schedules or server state beside it).
  for (const kind of crms) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_CRMS: kind, BENCH_FRESHNESS_NO_SUMMARY: '1' }, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`freshness for ${kind} exited with ${child.status}`);
    for (const line of child.stdout.split('\n').filter((text) => text.startsWith('{'))) {
      results.push(JSON.parse(line));
      console.log(line);
    }
  }
} else {
  const services = await startServices('freshness');
  try {
    const result = await freshness(crms[0]!, services);
    results.push(result);
    console.log(JSON.stringify(result));
  } finally {
    await services.stop();
  }
}

if (!process.env.BENCH_FRESHNESS_NO_SUMMARY) {
  console.log('');
  console.log(`Freshness with default schedules, p50 / p95 / max seconds (target p95 < ${TARGET_SECONDS})`);
  for (const result of results) {
    const line = (prefix: string) => `${result[`${prefix}P50Seconds`]} / ${result[`${prefix}P95Seconds`]} / ${result[`${prefix}MaxSeconds`]}`;
    console.log(`${String(result.crm).padEnd(12)} commerce->CRM ${line('freshnessCommerceToCrm').padEnd(20)} (${result.commerceToCrmNotWritten} without a CRM write, ${result.commerceToCrmRefused} of them refused)   CRM->commerce ${line('freshnessCrmToCommerce').padEnd(20)} (${result.crmToCommerceMissing} missing)`);
  }
}
