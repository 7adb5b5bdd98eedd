// How freshness is measured, shared by bench/freshness.ts (one connection) and bench/fairness.ts (many
// connections beside a backfill). A module, not a benchmark: bench/run.ts leaves it out.
//   commerce -> CRM  changes from the commerce sandbox's change driver; a change's delay is the time the
//                    sync recorded the CRM's answer for that record (the record link's updated_at, written
//                    right after the CRM write; the first time the link holds the change, so the links
//                    are read every few seconds while changes are made: a later write of the same
//                    record moves updated_at on, and is counted apart as a rewrite) minus the change's
//                    own lastUpdateTime;
//   CRM -> commerce  opportunities shared for co-sell through the CRM's API as a seller's tool would; a
//                    delay is the referral's creationTime on the commerce side minus the moment the CRM
//                    answered the create.
// A commerce change that made no CRM write is counted apart (refused as a dead letter, or touching nothing
// the mapping carries); a shared opportunity without its referral by the end is counted as missing.
import type pg from 'pg';
import { createCommerceClient, q } from '../commerce/index.ts';
import { OPPORTUNITY_ID_FIELD } from '../commerce/crm-ids.ts';
import type { CrmUnderTest } from '../test/support/crm-sandbox.ts';

export const TARGET_SECONDS = 60;
/** Changes the incremental and notification passes carry to the CRM (a term's own change is the daily reconciliation's). */
export const COMMERCE_KINDS = ['entitlementStatus', 'termUsage', 'renewal', 'offerStatus', 'referralStage', 'newOffer'];
const ENTITY_OF: Record<string, string> = { ENTITLEMENT: 'entitlement', ENTITLEMENT_TERM: 'entitlement', OFFER: 'offer', REFERRAL: 'referral', BUYER: 'buyer', CONTACT: 'contact' };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const round = (value: number) => Number(value.toFixed(1));

/** A positive number from the environment, or the fallback. */
export function positiveNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(process.env[name])}`);
  return value;
}

/** The value below which `share` of the sorted delays fall (nearest rank). */
export function percentile(sorted: number[], share: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}

/** Samples, p50, p95 and max of `delays` (seconds) under `prefix`, beside the 60-second target. */
export function figures(delays: number[], prefix: string) {
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

/** Waits until the connection's notification pass has stored its feed position (its first tick starts at the feed's end). */
export async function waitForFeedPosition(pool: pg.Pool, connectionId: string, timeoutSeconds = 90): Promise<void> {
  for (let waited = 0; ; waited += 1) {
    const { rows } = await pool.query(`SELECT 1 FROM sync_cursors WHERE connection_id = $1 AND entity = 'notification-feed'`, [connectionId]);
    if (rows.length > 0) return;
    if (waited > timeoutSeconds) throw new Error('the notification pass never stored its feed position');
    await sleep(1000);
  }
}

type CommerceChange = { entity: string; id: string; at: number; type: string };
export type CommerceSide = { apiUrl: string; authUrl: string; clientId: string; clientSecret: string; organizationId: string };

/**
 * One connection's freshness: drivers that make commerce changes and share CRM opportunities at steady
 * rates, and the reading of when each arrived on the other side.
 */
export function freshnessProbe(options: { pool: pg.Pool; connectionId: string; commerce: CommerceSide; crm: CrmUnderTest; accounts: { id: string }[]; label?: string }) {
  const { pool, connectionId, commerce, crm, accounts } = options;
  const commerceClient = createCommerceClient({ baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, clientSecret: commerce.clientSecret });
  const field = OPPORTUNITY_ID_FIELD[crm.kind];
  const commerceChanges: CommerceChange[] = [];
  const shared: { id: string; at: number }[] = [];
  const driverErrors: string[] = [];
  const timers: NodeJS.Timeout[] = [];
  const referralCreated = new Map<string, number>();
  const arrivedAt = new Map<string, number>();
  /** Later CRM writes of a record whose change had already arrived (no newer change of it made). */
  const rewrittenAt = new Map<string, Set<number>>();
  const lastChange = new Map<string, CommerceChange>();
  /** How often the links are read while changes are made: well inside a pass interval (30 s), so the first write is seen before a later one. */
  const LINK_READ_MS = 5000;
  let started = Date.now();
  let made = 0;
  const every = (intervalSeconds: number, work: () => Promise<void>) => {
    timers.push(setInterval(() => void work().catch((error: Error) => driverErrors.push(error.message)), intervalSeconds * 1000));
  };
  let reading: Promise<void> | undefined;
  /** Takes what the links say now: a change's first write is its arrival, any write of it after that a rewrite. */
  const readLinks = () =>
    (reading ??= (async () => {
      for (const change of commerceChanges) {
        const key = `${change.entity}:${change.id}`;
        if (lastChange.get(key) === change) continue;
        // A newer change of the same record: its arrival is measured afresh.
        if ((lastChange.get(key)?.at ?? -Infinity) <= change.at) {
          lastChange.set(key, change);
          arrivedAt.delete(key);
          rewrittenAt.delete(key);
        }
      }
      const { rows } = await pool.query(`SELECT entity, source_id, source_version, updated_at FROM record_links WHERE connection_id = $1 AND updated_at >= $2`, [connectionId, new Date(started - 5000)]);
      for (const row of rows) {
        const key = `${row.entity}:${row.source_id}`;
        const change = lastChange.get(key);
        if (!change || !row.source_version || (row.source_version as Date).getTime() < change.at - 1) continue;
        const written = (row.updated_at as Date).getTime();
        if (!arrivedAt.has(key)) arrivedAt.set(key, written);
        else if (written > arrivedAt.get(key)!) (rewrittenAt.get(key) ?? rewrittenAt.set(key, new Set()).get(key)!).add(written);
      }
    })().finally(() => {
      reading = undefined;
    }));

  return {
    commerceChanges,
    shared,
    /** Starts the drivers: one commerce change every `commerceEvery` s, one shared opportunity every `crmEvery` s. */
    start(commerceEvery: number, crmEvery: number) {
      started = Date.now();
      every(commerceEvery, async () => {
        const response = await fetch(`${commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: COMMERCE_KINDS }) });
        const { changes } = (await response.json()) as { changes: { entityType: string; id: string; lastUpdateTime: string; entitlementID?: string }[] };
        for (const change of changes) {
          const entity = ENTITY_OF[change.entityType];
          if (entity) commerceChanges.push({ entity, id: change.entitlementID ?? change.id, at: Date.parse(change.lastUpdateTime), type: change.entityType });
        }
      });
      // The links are read while changes are made, not only at the end (see the header).
      every(LINK_READ_MS / 1000, readLinks);
      every(crmEvery, async () => {
        made += 1;
        const account = accounts[made % accounts.length]!;
        const [id] = await crm.createOpportunities([{ name: `Freshness ${options.label ?? ''} ${made}`.replace(/\s+/g, ' '), accountId: account.id, stage: crm.openStage, closeDate: '2027-06-30', share: true, partner: 'Marketplace D' }]);
        shared.push({ id: id!, at: Date.now() });
      });
    },
    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
    },
    /** Reads what has arrived so far; true once every change made has arrived both ways. */
    async poll(): Promise<boolean> {
      // The first time a link holds the change is when it arrived: a later pass writing the same
      // record again (the 5-minute pass re-reading what write-back moved) moves updated_at on.
      await readLinks();
      const waiting = shared.filter((item) => !referralCreated.has(item.id)).map((item) => item.id);
      for (let start = 0; start < waiting.length; start += 50) {
        for await (const page of commerceClient.referrals.list(commerce.organizationId, { q: q.in(field, waiting.slice(start, start + 50)).expression, limit: 1000 })) {
          for (const referral of page.records) if (referral[field] && referral.creationTime) referralCreated.set(String(referral[field]), Date.parse(String(referral.creationTime)));
        }
      }
      return arrivedAt.size >= lastChange.size && referralCreated.size >= shared.length;
    },
    /** The delays both ways, and what made no CRM write or is missing. */
    async result() {
      const toCrm = [...lastChange].flatMap(([key, change]) => (arrivedAt.has(key) ? [(arrivedAt.get(key)! - change.at) / 1000] : []));
      // A change that made no CRM write: the CRM refused the record (a dead letter), or the change touched
      // nothing the mapping carries (the record's content hash did not move, so nothing was written).
      const { rows: letters } = await pool.query(`SELECT DISTINCT entity || ':' || source_id AS key FROM dead_letters WHERE connection_id = $1`, [connectionId]);
      const refused = new Set(letters.map((row: { key: string }) => row.key));
      const byType: Record<string, { samples: number; maxSeconds: number; notWritten: number; refused: number }> = {};
      for (const [key, change] of lastChange) {
        const entry = (byType[change.type] ??= { samples: 0, maxSeconds: 0, notWritten: 0, refused: 0 });
        if (!arrivedAt.has(key)) {
          entry.notWritten += 1;
          if (refused.has(key)) entry.refused += 1;
        } else {
          entry.samples += 1;
          entry.maxSeconds = Math.max(entry.maxSeconds, round((arrivedAt.get(key)! - change.at) / 1000));
        }
      }
      const toCommerce = shared.flatMap((item) => (referralCreated.has(item.id) ? [(referralCreated.get(item.id)! - item.at) / 1000] : []));
      const sortedP95 = (delays: number[]) => percentile([...delays].sort((a, b) => a - b), 0.95) ?? Infinity;
      return {
        commerceChanges: commerceChanges.length,
        commerceChangedRecords: lastChange.size,
        ...figures(toCrm, 'freshnessCommerceToCrm'),
        // Changes with no CRM write within the drain: refused by the CRM (dead letters) or with nothing to write.
        commerceToCrmNotWritten: lastChange.size - toCrm.length,
        commerceToCrmRefused: [...lastChange.keys()].filter((key) => !arrivedAt.has(key) && refused.has(key)).length,
        // Changed records the CRM was written again for after their change arrived (nothing newer made): work a pass repeated.
        commerceToCrmRewritten: rewrittenAt.size,
        commerceToCrmByChangeType: byType,
        crmChanges: shared.length,
        ...figures(toCommerce, 'freshnessCrmToCommerce'),
        crmToCommerceMissing: shared.length - toCommerce.length,
        freshnessP95Seconds: Math.max(sortedP95(toCrm), sortedP95(toCommerce)),
        freshnessP95SecondsTarget: TARGET_SECONDS,
        driverErrors: driverErrors.slice(0, 5),
      };
    },
    /** Every changed record's last change: its kind, when it was made and when its CRM write was recorded (ms; null: none). */
    changeTimes() {
      return [...lastChange].map(([key, change]) => ({ key, type: change.type, at: change.at, arrivedAt: arrivedAt.get(key) ?? null, rewrittenAt: [...(rewrittenAt.get(key) ?? [])].sort((a, b) => a - b) }));
    },
    /** For BENCH_*_DEBUG: every change's delay, or 'never'. */
    changeDelays() {
      return [...lastChange].map(([key, change]) => [key, new Date(change.at).toISOString(), arrivedAt.has(key) ? (arrivedAt.get(key)! - change.at) / 1000 : 'never'] as const);
    },
  };
}

export type FreshnessProbe = ReturnType<typeof freshnessProbe>;

/** Polls every probe until all changes have arrived or `drainSeconds` have passed. */
export async function drain(probes: FreshnessProbe[], drainSeconds: number): Promise<void> {
  const ends = Date.now() + drainSeconds * 1000;
  for (;;) {
    const done = await Promise.all(probes.map((probe) => probe.poll()));
    if (done.every(Boolean) || Date.now() > ends) return;
    await sleep(2000);
  }
}
