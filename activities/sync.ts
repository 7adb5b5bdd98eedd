// The sync's activities: thin adapters over the commerce client, the CRM connector and the stores.
// One call handles one batch (read, map, diff, write, record) and is safe to run twice: CRM writes are
// upserts keyed by external id or linked id, link rows are upserts that never go back to an older
// version, the cursor only moves forward. Every phase heartbeats and stops when Temporal cancels it.
import type { SyncMetrics } from '../metrics/sync-metrics.ts';
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { classifyEvent, toDate } from '../commerce/index.ts';
import { checkMappings } from '../mappings/check.ts';
import type { Entity } from '../mappings/types.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createDeadLetterStore, MAX_DEAD_LETTER_ATTEMPTS, type DeadLetterInput } from '../store/dead-letters.ts';
import { createEntityLeaseStore } from '../store/entity-leases.ts';
import { createReauthorisationStore } from '../store/reauthorisation.ts';
import { createRecordLinkStore } from '../store/record-links.ts';
import { createSyncRunStore, type SyncRunKind } from '../store/sync-runs.ts';
import { canonicalJson } from '../sync/hash.ts';
import type { RuntimeFor } from '../sync/runtime.ts';
import { FLOWS, flowForEvent, flowOrder, type RelatedRead } from '../flows/index.ts';
import { readWindowBatch, type Position } from '../sync/sources.ts';
import { isAsLastKnown } from '../sync/write-back-stamps.ts';
import { createHash } from 'node:crypto';
import { cancellationSignal, createBeat, previousDetails } from './activity-context.ts';
import type { WriteMemory } from './crm-write.ts';
import { guard, isCredentialsRefused } from './failures.ts';
import { readEachById, readRelatedEach } from './refused-reads.ts';
import { reasonInSentence } from './reauthorisation-mark.ts';
import { syncRecordBatch, type PageCounts } from './record-sync.ts';

export type { PageCounts } from './record-sync.ts';

/** A cursor as it travels through workflow history: plain strings (`skip`: unreadable pages to step over). */
/** `locator`: where a CRM read of the same window goes on (a Salesforce query locator; not a secret), never stored. */
export type WireCursor = { time: string; afterId?: string; skip?: number; locator?: string };

export type PageOutcome = PageCounts & {
  nextCursor: WireCursor;
  done: boolean;
  crmWriteCalls: number;
  /** Records the window still holds after this page, by the commerce service's count (absent: not counted). */
  remaining?: number;
  /** Commerce pages this activity read (it gathers several when the CRM writes big batches better). */
  pagesRead?: number;
  /** Dry runs only: why records would be rejected (the first 100 of the page). */
  rejections?: { sourceId: string; reason: string }[];
  /** The incremental pass left this entity to a running backfill or reconciliation (its workflow id). */
  skippedFor?: string;
};

/** A backfill or reconciliation pass: it leases the entities it syncs and may carry the incremental cursor along. */
export type PassLease = { holder: string; from: string; /** The entities the pass has yet to sync: their leases are renewed on every page. */ entities?: Entity[] };

export type SyncActivityDeps = {
  pool: pg.Pool;
  runtimeFor: RuntimeFor;
  clock?: () => Date;
  /** How often a dead letter is retried before it waits for a person (default 5). */
  maxDeadLetterAttempts?: number;
  /** Chunk size of CRM writes (tests watch the seams with small chunks; default: the connector decides). */
  writeChunk?: number;
  /** How long one activity gathers records before it writes them (default 2 minutes): a slow API must not push it past its timeouts. */
  gatherBudgetMs?: number;
  /** Which notification envelopes this worker understands (a newer worker understands more). */
  classifyEvent?: typeof classifyEvent;
  /** Where pages and runs are counted for Prometheus (the admin server's /metrics). */
  metrics?: SyncMetrics;
};

const EPOCH: WireCursor = { time: new Date(0).toISOString() };
/** The notification feed's position is kept as a cursor row of its own. */
const FEED = 'notification-feed';
/** Set-aside notification events are dead letters of this pseudo-entity. */
const SET_ASIDE = 'notification';
/** A row served without a usable id is dead-lettered under this prefix and a hash of the row: it has no id to be read by. */
const UNNAMED = 'unreadable:';

export function createSyncActivities(deps: SyncActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  const links = createRecordLinkStore(deps.pool);
  const cursors = createCursorStore(deps.pool);
  const deadLetters = createDeadLetterStore(deps.pool);
  const leases = createEntityLeaseStore(deps.pool);
  const runs = createSyncRunStore(deps.pool);
  const reauthorisation = createReauthorisationStore(deps.pool);
  const checkedMappings = new Set<string>();
  const classify = deps.classifyEvent ?? classifyEvent;

  async function runtime(connectionId: string) {
    const rt = await deps.runtimeFor(connectionId);
    // Overrides are checked against the CRM's describe once per connection version, before any write.
    const key = `${connectionId}:${JSON.stringify(rt.settings.overrides)}:${rt.settings.cosell.enabled}`;
    if (!checkedMappings.has(key)) {
      // Co-sell brings its inbound flow along (it is not one of the connection's chosen entities).
      const flows: Entity[] = [...rt.settings.entities, ...(rt.settings.cosell.enabled ? (['inbound-referral'] as const) : [])];
      await guard(() => checkMappings(rt.crm, Object.fromEntries(flows.flatMap((entity) => (rt.mappings[entity] ? [[entity, rt.mappings[entity]]] : []))), rt.settings.overrides, { requiredFields: false }));
      checkedMappings.add(key);
    }
    return rt;
  }

  /** A connection marked for re-authorisation runs nothing until new secrets are saved. */
  async function refuseIfMarked(connectionId: string): Promise<void> {
    const refused = await reauthorisation.get(connectionId);
    if (!refused) return;
    throw ApplicationFailure.create({
      type: 'ConnectionNeedsReauthorisation',
      nonRetryable: true,
      message: `This connection needs re-authorisation (since ${refused.since.toISOString()}): ${reasonInSentence(refused.reason)}. Save new secrets with crm-sync edit <connection>; syncing resumes after that.`,
    });
  }

  /**
   * Runs one activity of a connection: refused credentials mark the connection for re-authorisation (and
   * fail without retrying), so the next runs stop at once with the reason instead of hammering the login.
   */
  /**
   * The CRM's daily API usage as this worker last saw it, kept with a finished run so `crm-sync
   * connections` and the console can show the budget used. Absent when the CRM does not report one.
   */
  async function apiBudget(connectionId: string): Promise<{ apiBudget?: { used: number; limit: number } }> {
    try {
      const budget = (await deps.runtimeFor(connectionId)).crm.budget();
      return typeof budget.used === 'number' && typeof budget.limit === 'number' && budget.limit > 0 ? { apiBudget: { used: budget.used, limit: budget.limit } } : {};
    } catch {
      return {}; // a connection that cannot be built (refused secrets) still gets its run recorded
    }
  }

  async function forConnection<T>(connectionId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isCredentialsRefused(error)) await reauthorisation.mark(connectionId, (error as Error).message);
      throw error;
    }
  }

  function recordDeps(memory?: WriteMemory) {
    return { pool: deps.pool, clock, beat: createBeat<WriteMemory>(memory), signal: cancellationSignal(), writeChunk: deps.writeChunk, memory };
  }

  const activities = {
    /** Fixes the run's window end and where each entity starts (stored cursor minus the look-back). */
    async startSync(input: { connectionId: string; entities?: Entity[]; resetCursors?: boolean; forgetLinks?: boolean }) {
      await refuseIfMarked(input.connectionId);
      const rt = await deps.runtimeFor(input.connectionId);
      const entities = flowOrder(input.entities ?? rt.settings.entities);
      if (input.resetCursors) await cursors.reset(input.connectionId, entities);
      if (input.forgetLinks) await links.forget(input.connectionId, entities);
      const starts: Partial<Record<Entity, WireCursor>> = {};
      for (const entity of entities) {
        const stored = await cursors.get(input.connectionId, entity);
        starts[entity] = stored ? { time: new Date(stored.time.getTime() - rt.settings.schedule.lookbackSeconds * 1000).toISOString() } : EPOCH;
      }
      return { until: clock().toISOString(), entities, pageSize: rt.settings.schedule.pageSize, starts };
    },

    /** The run's row in sync_runs: started, then finished with its totals. */
    async recordRun(input: { runId: string; connectionId: string; kind: SyncRunKind; status: 'running' | 'completed' | 'failed' | 'cancelled'; counts?: unknown; error?: string; startedAt?: string }): Promise<void> {
      const counts = input.status === 'running' ? input.counts : { ...(input.counts as object), ...(await apiBudget(input.connectionId)) };
      const times = await runs.record({ id: input.runId, connectionId: input.connectionId, kind: input.kind, status: input.status, counts, error: input.error, ...(input.startedAt && { startedAt: new Date(input.startedAt) }) });
      if (input.status !== 'running' && times.finishedAt) {
        deps.metrics?.runFinished({ connectionId: input.connectionId, kind: input.kind, status: input.status, seconds: (times.finishedAt.getTime() - times.startedAt.getTime()) / 1000 });
      }
    },

    /** A backfill or reconciliation pass takes (or renews) its leases before it starts an entity. */
    async claimEntities(input: { connectionId: string; entities: Entity[]; lease: PassLease }): Promise<Entity[]> {
      return (await leases.claim(input.connectionId, input.entities, input.lease.holder)) as Entity[];
    },

    async releaseEntities(input: { connectionId: string; entities: Entity[]; lease: PassLease }): Promise<void> {
      await leases.release(input.connectionId, input.entities, input.lease.holder);
    },

    async syncEntityPage(input: {
      connectionId: string;
      entity: Entity;
      cursor: WireCursor;
      until: string;
      pageSize: number;
      advanceStoredCursor: boolean;
      dryRun?: boolean;
      /** Set by backfill and reconciliation passes; the incremental pass leaves leased entities to them. */
      lease?: PassLease;
    }): Promise<PageOutcome> {
      const memory = previousDetails<WriteMemory>();
      const rd = recordDeps({ bulkJobs: memory.bulkJobs });
      const rt = await runtime(input.connectionId);
      const orgId = rt.settings.commerce.organizationId;
      if (input.lease) await leases.claim(input.connectionId, [...new Set([input.entity, ...(input.lease.entities ?? [])])], input.lease.holder);
      else if (input.advanceStoredCursor) {
        const holder = await leases.heldByOther(input.connectionId, input.entity, '');
        if (holder) return { records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, crmWriteCalls: 0, nextCursor: input.cursor, done: true, skippedFor: holder };
      }

      // A flow whose records fall due with the clock (renewals) reads what is due now, whole: no window, no cursor.
      const readDue = FLOWS[input.entity].due;
      if (readDue) {
        const linked = async (ids: string[]) => new Set((await links.get(input.connectionId, input.entity, ids)).keys());
        const crmIdsOf = async (entity: Entity, ids: string[]) => new Map([...(await links.get(input.connectionId, entity, ids))].flatMap(([id, link]) => (link.crmId ? [[id, link.crmId] as const] : [])));
        const now = clock();
        // A backfill or reconciliation pass (no stored cursor moves) reads everything that may be due.
        const last = input.advanceStoredCursor ? await cursors.get(input.connectionId, input.entity) : undefined;
        const since = last && new Date(last.time.getTime() - rt.settings.schedule.lookbackSeconds * 1000);
        const due = await guard(() => readDue(rt.commerce, orgId, { now, since, settings: rt.settings, linked, pageSize: input.pageSize, signal: rd.signal, crm: rt.crm, mappings: rt.mappings, crmIdsOf }));
        const letters = due.rejected.map((row) => ({ sourceId: row.error.recordId ?? `${UNNAMED}${createHash('sha256').update(canonicalJson(row.raw)).digest('hex').slice(0, 16)}`, reason: row.error.message, payload: row.raw }));
        const { rejections, unknown, crmWriteCalls, ...counts } = await syncRecordBatch(rt, rd, { connectionId: input.connectionId, entity: input.entity, records: due.records, letters, respectRetryTimes: true, dryRun: input.dryRun,
          // Where the next run's `since` starts, moved with the links.
          advanceCursorTo: input.advanceStoredCursor && !input.dryRun ? { time: now, id: '' } : undefined,
        });
        if (!input.dryRun) deps.metrics?.pageSynced({ connectionId: input.connectionId, entity: input.entity, read: counts.records, created: counts.created, updated: counts.updated, unchanged: counts.unchanged, failed: counts.failed });
        if (!input.dryRun && unknown?.length) deps.metrics?.unknownValues({ connectionId: input.connectionId, entity: input.entity, values: unknown });
        return { ...counts, crmWriteCalls, nextCursor: input.cursor, done: true, pagesRead: 1, rejections: input.dryRun ? rejections : undefined };
      }

      // Gather pages (with an entitlement's terms) up to the CRM's preferred batch or the time budget.
      const target = Math.max(input.pageSize, rt.crm.preferredBatch);
      const started = Date.now();
      const budgetMs = deps.gatherBudgetMs ?? 120_000;
      const records: any[] = [];
      const unreadable: DeadLetterInput[] = [];
      const flow = FLOWS[input.entity];
      const related: RelatedRead = { byRecord: new Map(), unreadable: new Map(), latest: new Map() };
      // The incremental pass knows the records nobody changed since it last had them, its own write-backs
      // included (sync/write-back-stamps.ts): they are read with the window, but neither their terms nor
      // the CRM are asked about them. Backfill and reconciliation passes (leased) read everything whole,
      // as a person asking for them expects.
      const own = new Set<string>();
      let position: Position = { time: new Date(input.cursor.time), afterId: input.cursor.afterId, skip: input.cursor.skip };
      let done = false;
      let pages = 0;
      let remaining: number | undefined;
      for (;;) {
        const batch = await guard(() =>
          readWindowBatch(rt.commerce, orgId, input.entity, { cursor: position, until: new Date(input.until) }, input.pageSize, target - records.length, {
            signal: rd.signal,
            onProgress: rd.beat,
            budgetMs: Math.max(0, budgetMs - (Date.now() - started)),
          }),
        );
        if (pages === 0) remaining = batch.remaining;
        pages += batch.pages;
        records.push(...batch.records);
        unreadable.push(...batch.rejected.map((row) => ({ sourceId: row.error.recordId ?? `${UNNAMED}${createHash('sha256').update(canonicalJson(row.raw)).digest('hex').slice(0, 16)}`, reason: row.error.message, payload: row.raw })));
        if (!input.lease) for (const id of await asLastKnown(input.connectionId, input.entity, batch.records)) own.add(id);
        const changed = own.size ? batch.records.filter((record) => !own.has(record.id)) : batch.records;
        // What the mapping needs besides the records (an entitlement's terms) is read as the pages come,
        // so the time budget counts it too.
        const readRelated = flow.related;
        if (readRelated && changed.length > 0) {
          const read = await guard(() => readRelatedEach(readRelated, rt.commerce, orgId, changed, { signal: rd.signal, onProgress: rd.beat }));
          for (const key of ['byRecord', 'unreadable', 'latest'] as const) for (const [id, value] of read[key]) (related[key] as Map<string, unknown>).set(id, value);
        }
        position = batch.next;
        done = batch.done;
        if (done || records.length >= target || Date.now() - started >= budgetMs) break;
      }

      // The cursor moves past every record read, ours included.
      const last = records.at(-1);
      const toSync = own.size ? records.filter((record) => !own.has(record.id)) : records;
      if (!input.dryRun) await ensureParents(rt, input.connectionId, input.entity, toSync);
      const synced = await syncRecordBatch(rt, rd, {
        connectionId: input.connectionId,
        entity: input.entity,
        records: toSync,
        letters: unreadable,
        related: flow.related ? related : undefined,
        respectRetryTimes: true,
        advanceCursorTo: input.advanceStoredCursor && !input.dryRun && last ? { time: toDate(last.lastUpdateTime)!, id: last.id } : undefined,
        dryRun: input.dryRun,
      });
      const outcome = { ...synced, records: synced.records + own.size, unchanged: synced.unchanged + own.size };
      const nextCursor: WireCursor = { time: position.time.toISOString(), ...(position.afterId !== undefined && { afterId: position.afterId }), ...(position.skip && { skip: position.skip }) };
      if (done && input.lease && !input.dryRun && position.afterId) {
        // Everything from the pass's start up to here is in the CRM: the incremental cursor may follow.
        await cursors.advanceIfCovered(input.connectionId, input.entity, { time: position.time, id: position.afterId }, new Date(input.lease.from));
      }
      const { rejections, unknown: _unknown, ...counts } = outcome;
      if (!input.dryRun) deps.metrics?.pageSynced({ connectionId: input.connectionId, entity: input.entity, read: counts.records, created: counts.created, updated: counts.updated, unchanged: counts.unchanged, failed: counts.failed });
      if (!input.dryRun && outcome.unknown?.length) deps.metrics?.unknownValues({ connectionId: input.connectionId, entity: input.entity, values: outcome.unknown });
      // How many records the window still holds after this call, by the service's count (a progress estimate).
      const left = done ? 0 : remaining === undefined ? undefined : Math.max(0, remaining - records.length - unreadable.length);
      return { ...counts, nextCursor, done, pagesRead: pages, rejections: input.dryRun ? rejections : undefined, ...(left !== undefined && { remaining: left }) };
    },

    /** Dead letters whose retry time has come: read the record again and run it through the same path. */
    async retryDeadLetters(input: { connectionId: string; entity: Entity; limit?: number }): Promise<PageCounts> {
      const rt = await runtime(input.connectionId);
      const due = await deadLetters.due(input.connectionId, input.entity, { maxAttempts: deps.maxDeadLetterAttempts ?? MAX_DEAD_LETTER_ATTEMPTS, limit: input.limit ?? 200, now: clock() });
      // A row served without a usable id cannot be read by id: its letter keeps its reason and the row as
      // served, and counts the attempt (so it backs off, then waits for a person); a page that still
      // serves the row records it again.
      const unnamed = due.filter((letter) => letter.sourceId.startsWith(UNNAMED));
      await deadLetters.record(input.connectionId, input.entity, unnamed.map(({ sourceId, reason, payload }) => ({ sourceId, reason, payload })));
      const named = due.filter((letter) => !letter.sourceId.startsWith(UNNAMED)).map((letter) => letter.sourceId);
      const { crmWriteCalls: _calls, rejections: _rejections, unknown: _unknown, ...counts } = await syncById(rt, input.connectionId, input.entity, named);
      return { ...counts, failed: counts.failed + unnamed.length };
    },

    /**
     * Near-real-time: one page of the notification feed from the stored offset; the entities it names
     * are synced by id. Envelopes of an unknown version are set aside as dead letters (kept, with the
     * reason) and taken up again as soon as this worker understands them (§6.3); audit-only events
     * change nothing.
     */
    async syncFromNotifications(input: { connectionId: string; limit?: number }): Promise<PageCounts & { events: number; setAside: number; done: boolean }> {
      await refuseIfMarked(input.connectionId);
      const rt = await runtime(input.connectionId);
      const orgId = rt.settings.commerce.organizationId;
      const stored = await cursors.get(input.connectionId, FEED);
      let offset = stored ? Number(stored.id) : undefined;
      if (offset === undefined) {
        // A new connection starts at the end of the feed: the full pass covers everything before it.
        const head = await guard(() => rt.commerce.notificationEvents.list(orgId, { limit: 1, offset: 0 }).next());
        offset = head.done ? 0 : (head.value.totalCount ?? 0);
      }
      const pages = rt.commerce.notificationEvents.list(orgId, { limit: input.limit ?? 200, offset });
      const next = await guard(() => pages.next());
      await pages.return(undefined);
      const counts = { records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, events: 0, setAside: 0, done: true };
      const wanted = new Map<Entity, Set<string>>();
      const want = (event: { entityType?: unknown; entityID?: unknown }) => {
        const entity = flowForEvent(event.entityType);
        if (!entity || !rt.settings.entities.includes(entity) || typeof event.entityID !== 'string' || !event.entityID) return;
        if (!wanted.has(entity)) wanted.set(entity, new Set());
        wanted.get(entity)!.add(event.entityID);
      };

      // Events set aside earlier whose version this worker now understands are taken up again.
      const understood = (await deadLetters.listOpen(input.connectionId, SET_ASIDE)).filter((letter) => letter.payload && classify(letter.payload as never).accepted);
      for (const letter of understood) want(letter.payload as never);

      const setAside: DeadLetterInput[] = [];
      const page = next.done ? undefined : next.value;
      if (page) {
        counts.events = page.records.length + page.rejected.length;
        // An event without a usable id is kept under its place in the feed: one letter per event.
        setAside.push(...page.rejected.map((row, index) => ({ sourceId: row.error.recordId ?? `event-at-${offset! + page.records.length + index}`, reason: row.error.message, payload: row.raw })));
        for (const event of page.records) {
          const verdict = classify(event);
          if (!verdict.accepted) setAside.push({ sourceId: event.eventID, reason: verdict.reason, payload: event });
          else want(event);
        }
      }
      for (const entity of flowOrder([...wanted.keys()])) {
        const { crmWriteCalls: _calls, rejections: _rejections, unknown: _unknown, ...synced } = await syncById(rt, input.connectionId, entity, [...wanted.get(entity)!], { holdOrphans: true });
        for (const key of Object.keys(synced) as (keyof PageCounts)[]) counts[key] += synced[key];
      }
      counts.setAside = setAside.length;
      await deadLetters.resolve(input.connectionId, SET_ASIDE, understood.map((letter) => letter.sourceId));
      if (!page) return counts;
      const nextOffset = page.nextOffset ?? offset + counts.events;
      await deadLetters.record(input.connectionId, SET_ASIDE, setAside);
      await cursors.advance(input.connectionId, FEED, { time: clock(), id: String(nextOffset).padStart(12, '0') });
      counts.done = page.nextOffset === undefined;
      return counts;
    },
  };

  /** Reads records by id and runs them through the one record path. */
  async function syncById(rt: Awaited<ReturnType<typeof runtime>>, connectionId: string, entity: Entity, ids: string[], options: { holdOrphans?: boolean } = {}) {
    const rd = recordDeps();
    if (ids.length === 0) return { records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, crmWriteCalls: 0, rejections: [] };
    // A record the commerce side refuses to serve waits as a dead letter; the others go on.
    // The connection goes with the read, so a record read alone (a dead letter's retry) maps as in a run.
    const read = await guard(() => readEachById(rt.commerce, rt.settings.commerce.organizationId, entity, ids, { signal: rd.signal, onProgress: rd.beat, byIdContext: { settings: rt.settings, crm: rt.crm } }));
    const letters: DeadLetterInput[] = [...read.unreadable, ...read.missing.map((id) => ({ sourceId: id, reason: `the commerce API no longer has ${entity} ${id}` }))];
    // A record that is no longer this flow's (an inbound referral now linked) closes its letter.
    if (read.notOurs.length) await deadLetters.resolve(connectionId, entity, read.notOurs);
    // Read by id, a record is always read whole, terms included, even when its stamp is the one our own
    // write-back answered: an event names a change, and a commit change on a term can move only the
    // stamp between our read and our write-back, so the answer looks like ours alone (A9). The feed is
    // the pass that catches that change; the incremental pass's window may skip such records.
    const records = read.records;
    if (!options.holdOrphans) await ensureParents(rt, connectionId, entity, records);
    // Dead-letter retries are not held back: those records already went through the full pass.
    return syncRecordBatch(rt, rd, { connectionId, entity, records, letters, holdOrphans: options.holdOrphans });
  }

  /**
   * Of records read in a window, those exactly as the CRM is known to be in step with (the stamp and
   * hash their links keep, sync/write-back-stamps.ts) and with no open dead letter (a letter wants its
   * record looked at again, a write-back refused among them): nobody changed them since.
   */
  async function asLastKnown(connectionId: string, entity: Entity, records: any[]): Promise<string[]> {
    if (records.length === 0) return [];
    const known = await links.get(connectionId, entity, records.map((record) => record.id));
    const candidates = records.filter((record) => isAsLastKnown(record, known.get(record.id))).map((record) => record.id as string);
    if (candidates.length === 0) return [];
    const open = await deadLetters.openFor(connectionId, entity, candidates);
    return candidates.filter((id) => !open.has(id));
  }

  /** Parents a flow declares it needs first (it runs apart from their pass): the ones never synced are synced by id now. */
  async function ensureParents(rt: Awaited<ReturnType<typeof runtime>>, connectionId: string, entity: Entity, records: any[]) {
    const parentIds = FLOWS[entity].parentIds;
    if (!parentIds || records.length === 0) return;
    const wanted = new Map<Entity, Set<string>>();
    for (const record of records) {
      for (const [parent, ids] of Object.entries(parentIds(record)) as [Entity, string[]][]) {
        if (!wanted.has(parent)) wanted.set(parent, new Set());
        for (const id of ids) wanted.get(parent)!.add(id);
      }
    }
    for (const [parent, ids] of wanted) {
      const linked = await links.get(connectionId, parent, [...ids]);
      const missing = [...ids].filter((id) => !linked.has(id));
      if (missing.length) await syncById(rt, connectionId, parent, missing);
    }
  }

  return {
    ...activities,
    startSync: (input: Parameters<typeof activities.startSync>[0]) => forConnection(input.connectionId, () => activities.startSync(input)),
    syncEntityPage: (input: Parameters<typeof activities.syncEntityPage>[0]) => forConnection(input.connectionId, () => activities.syncEntityPage(input)),
    retryDeadLetters: (input: Parameters<typeof activities.retryDeadLetters>[0]) => forConnection(input.connectionId, () => activities.retryDeadLetters(input)),
    syncFromNotifications: (input: Parameters<typeof activities.syncFromNotifications>[0]) => forConnection(input.connectionId, () => activities.syncFromNotifications(input)),
  };
}

export type SyncActivities = ReturnType<typeof createSyncActivities>;
