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
import { createCommerceClient, q } from '../commerce/index.ts';
import { OPPORTUNITY_ID_FIELD } from '../commerce/crm-ids.ts';
import { createConnectionStore } from '../store/connections.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { connectionScheduleIds, ensureConnectionSchedules } from '../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import { TEST_SECRET_BOX } from '../test/support/sync-harness.ts';
import type { CrmKind } from './crm-calls.ts';
import { startInProcessStack, startServices } from './processes/in-process-stack.ts';

const number = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(process.env[name])}`);
  return value;
};
const entitlements = number('BENCH_FRESHNESS_ENTITLEMENTS', 2000);
const seconds = number('BENCH_FRESHNESS_SECONDS', 240);
const drainSeconds = number('BENCH_FRESHNESS_DRAIN_SECONDS', 180);
const commerceEvery = number('BENCH_COMMERCE_CHANGE_EVERY_SECONDS', 2);
const crmEvery = number('BENCH_CRM_CHANGE_EVERY_SECONDS', 6);
const crms = (process.env.BENCH_CRMS ?? 'salesforce,hubspot,dynamics').split(',').map((kind) => kind.trim()) as CrmKind[];
// Changes the incremental and notification passes carry to the CRM (a term's own change without its
// entitlement's is the daily reconciliation's business, and is left out here).
const COMMERCE_KINDS = ['entitlementStatus', 'termUsage', 'renewal', 'offerStatus', 'referralStage', 'newOffer'];
const ENTITY_OF: Record<string, string> = { ENTITLEMENT: 'entitlement', ENTITLEMENT_TERM: 'entitlement', OFFER: 'offer', REFERRAL: 'referral', BUYER: 'buyer', CONTACT: 'contact' };
const TARGET_SECONDS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Number(value.toFixed(1));

/** The value below which `share` of the sorted delays fall (nearest rank). */
function percentile(sorted: number[], share: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}

function figures(delays: number[], prefix: string) {
  const sorted = [...delays].sort((a, b) => a - b);
  const p95 = percentile(sorted, 0.95);
  return {
    [`${prefix}Samples`]: sorted.length,
    [`${prefix}P50Seconds`]: sorted.length ? round(percentile(sorted, 0.5)!) : null,
    [`${prefix}P95Seconds`]: p95 === null ? null : round(p95),
    [`${prefix}MaxSeconds`]: sorted.length ? round(sorted.at(-1)!) : null,
    [`${prefix}P95SecondsTarget`]: TARGET_SECONDS,
    [`${prefix}P95Met`]: p95 !== null && p95 < TARGET_SECONDS,
  };
}

type CommerceChange = { entity: string; id: string; at: number; type: string };

async function freshness(kind: CrmKind, services: { postgresUrl: string; temporalAddress: string }) {
  const stack = await startInProcessStack(kind, services, { name: 'freshness', entitlements, seed: 17 });
  const { pool, commerce, crm, connectionId, taskQueue, client } = stack;
  const commerceClient = createCommerceClient({ baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, clientSecret: commerce.clientSecret });
  const stopDrivers: (() => void)[] = [];
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
    for (let waited = 0; ; waited += 1) {
      const { rows } = await pool.query(`SELECT 1 FROM sync_cursors WHERE connection_id = $1 AND entity = 'notification-feed'`, [connectionId]);
      if (rows.length > 0) break;
      if (waited > 90) throw new Error('the notification pass never stored its feed position');
      await sleep(1000);
    }
    const started = Date.now();
    process.stderr.write(`freshness ${kind}: schedules on, changes for ${seconds} s\n`);

    const commerceChanges: CommerceChange[] = [];
    const shared: { id: string; at: number }[] = [];
    const driverErrors: string[] = [];
    const every = (intervalSeconds: number, work: () => Promise<void>) => {
      const timer = setInterval(() => void work().catch((error: Error) => driverErrors.push(error.message)), intervalSeconds * 1000);
      stopDrivers.push(() => clearInterval(timer));
    };
    every(commerceEvery, async () => {
      const response = await fetch(`${commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: COMMERCE_KINDS }) });
      const { changes } = (await response.json()) as { changes: { entityType: string; id: string; lastUpdateTime: string; entitlementID?: string }[] };
      for (const change of changes) {
        const entity = ENTITY_OF[change.entityType];
        if (entity) commerceChanges.push({ entity, id: change.entitlementID ?? change.id, at: Date.parse(change.lastUpdateTime), type: change.entityType });
      }
    });
    let made = 0;
    every(crmEvery, async () => {
      made += 1;
      const account = accounts[made % accounts.length]!;
      const [id] = await crm.createOpportunities([{ name: `Freshness ${made}`, accountId: account.id, stage: crm.openStage, closeDate: '2027-06-30', share: true, partner: 'Marketplace D' }]);
      shared.push({ id: id!, at: Date.now() });
    });
    await sleep(seconds * 1000);
    for (const stop of stopDrivers.splice(0)) stop();

    // Runs on until every change has arrived (or the drain ends).
    const field = OPPORTUNITY_ID_FIELD[kind];
    const referralCreated = new Map<string, number>();
    const arrivedAt = new Map<string, number>();
    const lastChange = new Map<string, CommerceChange>();
    for (const change of commerceChanges) lastChange.set(`${change.entity}:${change.id}`, change);
    const drainEnds = Date.now() + drainSeconds * 1000;
    for (;;) {
      const { rows } = await pool.query(`SELECT entity, source_id, source_version, updated_at FROM record_links WHERE connection_id = $1 AND updated_at >= $2`, [connectionId, new Date(started - 5000)]);
      for (const row of rows) {
        const change = lastChange.get(`${row.entity}:${row.source_id}`);
        // The first time a link holds the change is when it arrived: a later pass touching the same
        // link again (the 5-minute pass re-reading what write-back moved) would move updated_at on.
        const key = `${row.entity}:${row.source_id}`;
        if (change && !arrivedAt.has(key) && row.source_version && (row.source_version as Date).getTime() >= change.at - 1) arrivedAt.set(key, (row.updated_at as Date).getTime());
      }
      const waiting = shared.filter((item) => !referralCreated.has(item.id)).map((item) => item.id);
      for (let start = 0; start < waiting.length; start += 50) {
        for await (const page of commerceClient.referrals.list(commerce.organizationId, { q: q.in(field, waiting.slice(start, start + 50)).expression, limit: 1000 })) {
          for (const referral of page.records) if (referral[field] && referral.creationTime) referralCreated.set(String(referral[field]), Date.parse(String(referral.creationTime)));
        }
      }
      if ((arrivedAt.size >= lastChange.size && referralCreated.size >= shared.length) || Date.now() > drainEnds) break;
      await sleep(2000);
    }
    if (process.env.BENCH_FRESHNESS_DEBUG) {
      const { rows: runs } = await pool.query(`SELECT kind, status, started_at, finished_at, counts FROM sync_runs WHERE connection_id = $1 ORDER BY started_at`, [connectionId]);
      for (const run of runs) console.error('RUN', run.kind, run.status, new Date(run.started_at).toISOString(), run.finished_at && (new Date(run.finished_at).getTime() - new Date(run.started_at).getTime()) / 1000, JSON.stringify(run.counts).slice(0, 200));
      for (const [key, change] of lastChange) console.error('CHANGE', key, new Date(change.at).toISOString(), arrivedAt.has(key) ? (arrivedAt.get(key)! - change.at) / 1000 : 'never');
    }
    const toCrm = [...lastChange].flatMap(([key, change]) => (arrivedAt.has(key) ? [(arrivedAt.get(key)! - change.at) / 1000] : []));
    // A change that made no CRM write: the CRM refused the record (a dead letter), or the change touched
    // nothing the mapping carries (the record's content hash did not move, so nothing was written).
    const { rows: letters } = await pool.query(`SELECT DISTINCT entity || ':' || source_id AS key FROM dead_letters WHERE connection_id = $1`, [connectionId]);
    const refused = new Set(letters.map((row: { key: string }) => row.key));
    // Per kind of commerce change: its delays' worst, and how many made no CRM write.
    const byType: Record<string, { samples: number; maxSeconds: number; notWritten: number; refused: number }> = {};
    for (const [key, change] of lastChange) {
      const entry = (byType[change.type] ??= { samples: 0, maxSeconds: 0, notWritten: 0, refused: 0 });
      if (!arrivedAt.has(key)) {
        entry.notWritten += 1;
        if (refused.has(key)) entry.refused += 1;
      }
      else {
        entry.samples += 1;
        entry.maxSeconds = Math.max(entry.maxSeconds, round((arrivedAt.get(key)! - change.at) / 1000));
      }
    }
    const toCommerce = shared.flatMap((item) => (referralCreated.has(item.id) ? [(referralCreated.get(item.id)! - item.at) / 1000] : []));
    return {
      bench: 'freshness',
      crm: kind,
      entitlements,
      schedules: { every: defaults.every, realtimeEvery: defaults.realtimeEvery, cosellEvery: defaults.cosellEvery },
      changeSeconds: seconds,
      commerceChanges: commerceChanges.length,
      commerceChangedRecords: lastChange.size,
      ...figures(toCrm, 'freshnessCommerceToCrm'),
      // Changes with no CRM write within the drain: refused by the CRM (dead letters) or with nothing to write.
      commerceToCrmNotWritten: lastChange.size - toCrm.length,
      commerceToCrmRefused: [...lastChange.keys()].filter((key) => !arrivedAt.has(key) && refused.has(key)).length,
      commerceToCrmByChangeType: byType,
      crmChanges: shared.length,
      ...figures(toCommerce, 'freshnessCrmToCommerce'),
      crmToCommerceMissing: shared.length - toCommerce.length,
      freshnessP95Seconds: Math.max(percentile([...toCrm].sort((a, b) => a - b), 0.95) ?? Infinity, percentile([...toCommerce].sort((a, b) => a - b), 0.95) ?? Infinity),
      freshnessP95SecondsTarget: TARGET_SECONDS,
      driverErrors: driverErrors.slice(0, 5),
    };
  } finally {
    for (const stop of stopDrivers) stop();
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
