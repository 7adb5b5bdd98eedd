// The sync's activities: thin adapters over the commerce client, the CRM connector and the stores.
// One call handles one page (fetch, map, diff, write, record) and is safe to run twice: CRM writes are
// upserts keyed by external id or linked id, link rows are upserts, the cursor only moves forward.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { classifyEvent, CommerceAuthError, CommerceCredentialsRefusedError, toDate } from '../commerce/index.ts';
import { CrmBudgetExhaustedError, CrmError } from '../crm/connector.ts';
import { MappingConfigError, checkMappings } from '../mappings/check.ts';
import type { Entity } from '../mappings/types.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createDeadLetterStore, type DeadLetterInput } from '../store/dead-letters.ts';
import { createReauthorisationStore } from '../store/reauthorisation.ts';
import { createRecordLinkStore, type RecordLink } from '../store/record-links.ts';
import { createSyncRunStore } from '../store/sync-runs.ts';
import { orderedEntities } from '../sync/connection-settings.ts';
import { canonicalJson } from '../sync/hash.ts';
import { parentReferences } from '../sync/parents.ts';
import { planPage, type PlannedWrite } from '../sync/plan.ts';
import type { RuntimeFor } from '../sync/runtime.ts';
import { readById, readEntitlementTerms, readWindowBatch } from '../sync/sources.ts';
import { writeBackIds } from '../sync/write-back.ts';
import { createHash } from 'node:crypto';

/** A cursor as it travels through workflow history: plain strings. */
export type WireCursor = { time: string; afterId?: string };

export type PageCounts = { records: number; created: number; updated: number; unchanged: number; failed: number; writeBacks: number };
export type PageOutcome = PageCounts & {
  nextCursor: WireCursor;
  done: boolean;
  crmWriteCalls: number;
  /** Commerce pages this activity read (it gathers several when the CRM writes big batches better). */
  pagesRead?: number;
  /** Dry runs only: why records would be rejected (the first 100 of the page). */
  rejections?: { sourceId: string; reason: string }[];
};

export type SyncActivityDeps = {
  pool: pg.Pool;
  runtimeFor: RuntimeFor;
  clock?: () => Date;
  /** How often a dead letter is retried before it waits for a person (default 5). */
  maxDeadLetterAttempts?: number;
  /** Chunk size between heartbeats (Salesforce collections take 200). */
  writeChunk?: number;
};

/** Salesforce's answers to a write by an Id that is not a record of this org. */
const STALE_ID_CODES = new Set(['NOT_FOUND', 'MALFORMED_ID', 'INVALID_ID_FIELD', 'ENTITY_IS_DELETED', 'INVALID_CROSS_REFERENCE_KEY']);

type WriteOutcome = { written: RecordLink[]; letters: DeadLetterInput[]; created: number; updated: number; succeeded: { sourceId: string; crmId: string }[]; calls: number };

const EPOCH: WireCursor = { time: new Date(0).toISOString() };
/** The notification feed's position is kept as a cursor row of its own. */
const FEED = 'notification-feed';
/** Failure types that mean a side refused the connection's credentials: only new secrets will help. */
const CREDENTIALS_REFUSED = new Set(['CommerceCredentialsRefused', 'invalid_grant', 'invalid_client']);
const ENTITY_BY_EVENT_TYPE: Record<string, Entity> = { BUYER: 'buyer', CONTACT: 'contact', OFFER: 'offer', ENTITLEMENT: 'entitlement', REFERRAL: 'referral' };

export function createSyncActivities(deps: SyncActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  const links = createRecordLinkStore(deps.pool);
  const cursors = createCursorStore(deps.pool);
  const deadLetters = createDeadLetterStore(deps.pool);
  const runs = createSyncRunStore(deps.pool);
  const reauthorisation = createReauthorisationStore(deps.pool);
  const writeChunk = deps.writeChunk ?? 200;
  const checkedMappings = new Set<string>();

  async function runtime(connectionId: string) {
    const rt = await deps.runtimeFor(connectionId);
    // Overrides are checked against the CRM's describe once per connection version, before any write.
    const key = `${connectionId}:${JSON.stringify(rt.settings.overrides)}`;
    if (!checkedMappings.has(key)) {
      await guard(() => checkMappings(rt.crm, Object.fromEntries(rt.settings.entities.map((entity) => [entity, rt.mappings[entity]])), rt.settings.overrides));
      checkedMappings.add(key);
    }
    return rt;
  }

  /**
   * Runs one activity of a connection: refused credentials mark the connection for re-authorisation (and
   * fail without retrying), so the next runs stop at once with the reason instead of hammering the login.
   */
  async function forConnection<T>(connectionId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type && CREDENTIALS_REFUSED.has(error.type)) await reauthorisation.mark(connectionId, error.message);
      throw error;
    }
  }

  const activities = {
    /** Fixes the run's window end and where each entity starts (stored cursor minus the look-back). */
    async startSync(input: { connectionId: string; entities?: Entity[]; resetCursors?: boolean; forgetLinks?: boolean }) {
      const refused = await reauthorisation.get(input.connectionId);
      if (refused) {
        throw ApplicationFailure.create({
          type: 'ConnectionNeedsReauthorisation',
          nonRetryable: true,
          message: `This connection needs re-authorisation (since ${refused.since.toISOString()}): ${refused.reason}. Save new secrets with crm-sync edit <connection>; syncing resumes after that.`,
        });
      }
      const rt = await deps.runtimeFor(input.connectionId);
      const entities = orderedEntities(input.entities ?? rt.settings.entities);
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
    async recordRun(input: { runId: string; connectionId: string; kind: 'incremental' | 'realtime' | 'backfill'; status: 'running' | 'completed' | 'failed' | 'cancelled'; counts?: unknown; error?: string }): Promise<void> {
      await runs.record({ id: input.runId, connectionId: input.connectionId, kind: input.kind, status: input.status, counts: input.counts, error: input.error });
    },

    async syncEntityPage(input: { connectionId: string; entity: Entity; cursor: WireCursor; until: string; pageSize: number; advanceStoredCursor: boolean; dryRun?: boolean }): Promise<PageOutcome> {
      const rt = await runtime(input.connectionId);
      const orgId = rt.settings.commerce.organizationId;
      const window = { cursor: { time: new Date(input.cursor.time), afterId: input.cursor.afterId }, until: new Date(input.until) };
      const target = Math.max(input.pageSize, rt.crm.preferredBatch);
      const page = await guard(() => readWindowBatch(rt.commerce, orgId, input.entity, window, input.pageSize, target, (records) => heartbeat({ entity: input.entity, phase: 'read', records })));
      const rowsOnPage = page.records.length + page.rejected.length;
      const done = page.done;
      const last = page.records.at(-1);
      if (!last && !done) throw ApplicationFailure.nonRetryable(`A whole page of ${input.entity} records was unreadable; the sync cannot move past it`);

      const terms = input.entity === 'entitlement' ? await guard(() => readEntitlementTerms(rt.commerce, orgId, page.records)) : undefined;
      const known = await links.get(input.connectionId, input.entity, page.records.map((record) => record.id));
      const plan = planPage({
        records: page.records,
        related: (record: { id: string }) => (terms ? { terms: terms.get(record.id) ?? [] } : undefined),
        mapping: rt.mappings[input.entity],
        overrides: rt.settings.overrides[input.entity],
        links: known,
      });

      // A record still failing with the very same payload waits for its retry time instead of being sent again.
      const waiting = await deadLetters.openFor(input.connectionId, input.entity, plan.writes.map((write) => write.item.sourceId));
      const deferred = plan.writes.filter((write) => {
        const letter = waiting.get(write.item.sourceId);
        return letter?.nextRetryAt && letter.nextRetryAt > clock() && canonicalJson(letter.payload) === canonicalJson(write.item);
      });
      plan.writes = plan.writes.filter((write) => !deferred.includes(write));
      const counts: PageCounts = { records: rowsOnPage, created: 0, updated: 0, unchanged: plan.unchanged.length, failed: deferred.length, writeBacks: 0 };
      const letters: DeadLetterInput[] = [
        ...page.rejected.map((row) => ({ sourceId: row.error.recordId ?? `unreadable:${createHash('sha256').update(canonicalJson(row.raw)).digest('hex').slice(0, 16)}`, reason: row.error.message, payload: row.raw })),
        ...plan.rejected.map((row) => ({ sourceId: row.sourceId, reason: row.reason })),
      ];
      let outcome: WriteOutcome = { written: [], letters: [], created: 0, updated: 0, succeeded: [], calls: 0 };
      if (input.dryRun) {
        counts.created = plan.writes.filter((write) => !write.linked).length;
        counts.updated = plan.writes.length - counts.created;
      } else {
        outcome = await writeToCrm(rt, input.entity, plan.writes);
        counts.created = outcome.created;
        counts.updated = outcome.updated;
        letters.push(...outcome.letters);
      }
      const { written } = outcome;
      const crmWriteCalls = outcome.calls;
      const metaInfoById = new Map(page.records.map((record) => [record.id, record.metaInfo]));
      // Unchanged records are checked too: a write-back lost to a failure after the links were recorded
      // (the retry finds them unchanged) is made then, and costs nothing once in place.
      const unchangedLinks = plan.unchanged.flatMap((sourceId) => {
        const crmId = known.get(sourceId)?.crmId;
        return crmId ? [{ sourceId, crmId }] : [];
      });
      const succeeded = [...outcome.succeeded, ...unchangedLinks].map((item) => ({ ...item, current: metaInfoById.get(item.sourceId) }));
      counts.failed += letters.length;

      if (!input.dryRun) {
        await inTransaction(deps.pool, async (client) => {
          await links.upsert(input.connectionId, input.entity, written, client);
          await deadLetters.resolve(input.connectionId, input.entity, [...written.map((link) => link.sourceId), ...plan.unchanged], client);
          await deadLetters.record(input.connectionId, input.entity, letters, client);
          if (input.advanceStoredCursor && last) {
            await cursors.advance(input.connectionId, input.entity, { time: toDate(last.lastUpdateTime)!, id: last.id }, client);
          }
        });
        counts.writeBacks = await guard(async () => writeBackIds(rt.commerce, orgId, rt.crm.kind, input.entity, await withAccounts(rt, input.connectionId, page.records, succeeded), (id) => rt.crm.recordUrl(id)));
      }
      const nextCursor: WireCursor = last ? { time: toDate(last.lastUpdateTime)!.toISOString(), afterId: last.id } : input.cursor;
      const rejections = input.dryRun ? letters.slice(0, 100).map(({ sourceId, reason }) => ({ sourceId, reason })) : undefined;
      return { ...counts, nextCursor, done, crmWriteCalls, rejections, pagesRead: page.pages };
    },

    /** Dead letters whose retry time has come: read the record again and run it through the same path. */
    async retryDeadLetters(input: { connectionId: string; entity: Entity; limit?: number }): Promise<PageCounts> {
      const rt = await runtime(input.connectionId);
      const due = await deadLetters.due(input.connectionId, input.entity, { maxAttempts: deps.maxDeadLetterAttempts ?? 5, limit: input.limit ?? 200, now: clock() });
      return syncRecordsById(rt, input.connectionId, input.entity, due.map((letter) => letter.sourceId));
    },

    /**
     * Near-real-time: one page of the notification feed from the stored offset; the entities it names
     * are synced by id. Envelopes of an unknown version are set aside as dead letters (kept, with the
     * reason) for redelivery once this worker understands them (§6.3); audit-only events change nothing.
     */
    async syncFromNotifications(input: { connectionId: string; limit?: number }): Promise<PageCounts & { events: number; setAside: number; done: boolean }> {
      const rt = await runtime(input.connectionId);
      const orgId = rt.settings.commerce.organizationId;
      const stored = await cursors.get(input.connectionId, FEED);
      let offset = stored ? Number(stored.id) : undefined;
      if (offset === undefined) {
        // A new connection starts at the end of the feed: the full pass covers everything before it.
        const head = await guard(() => rt.commerce.notificationEvents.list(orgId, { limit: 1, offset: 0 }).next());
        offset = head.done ? 0 : (head.value.totalCount ?? 0);
      }
      const pages = rt.commerce.notificationEvents.list(orgId, { limit: input.limit ?? 500, offset });
      const next = await guard(() => pages.next());
      await pages.return(undefined);
      const counts = { records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, events: 0, setAside: 0, done: true };
      if (next.done) return counts;
      const page = next.value;
      counts.events = page.records.length + page.rejected.length;
      const wanted = new Map<Entity, Set<string>>();
      const setAside: DeadLetterInput[] = page.rejected.map((row) => ({ sourceId: row.error.recordId ?? `event-at-${offset}`, reason: row.error.message, payload: row.raw }));
      for (const event of page.records) {
        const verdict = classifyEvent(event);
        if (!verdict.accepted) {
          setAside.push({ sourceId: event.eventID, reason: verdict.reason, payload: event });
          continue;
        }
        const entity = ENTITY_BY_EVENT_TYPE[String(event.entityType ?? '').toUpperCase()];
        if (!entity || !rt.settings.entities.includes(entity) || !event.entityID) continue;
        if (!wanted.has(entity)) wanted.set(entity, new Set());
        wanted.get(entity)!.add(event.entityID);
      }
      for (const entity of orderedEntities([...wanted.keys()])) {
        const synced = await syncRecordsById(rt, input.connectionId, entity, [...wanted.get(entity)!], { holdOrphans: true });
        for (const key of Object.keys(synced) as (keyof PageCounts)[]) counts[key] += synced[key];
      }
      counts.setAside = setAside.length;
      const nextOffset = page.nextOffset ?? offset + counts.events;
      await inTransaction(deps.pool, async (client) => {
        await deadLetters.record(input.connectionId, 'notification', setAside, client);
        await cursors.advance(input.connectionId, FEED, { time: clock(), id: String(nextOffset).padStart(12, '0') }, client);
      });
      counts.done = page.nextOffset === undefined;
      return counts;
    },
  };

  return {
    ...activities,
    startSync: (input: Parameters<typeof activities.startSync>[0]) => forConnection(input.connectionId, () => activities.startSync(input)),
    syncEntityPage: (input: Parameters<typeof activities.syncEntityPage>[0]) => forConnection(input.connectionId, () => activities.syncEntityPage(input)),
    retryDeadLetters: (input: Parameters<typeof activities.retryDeadLetters>[0]) => forConnection(input.connectionId, () => activities.retryDeadLetters(input)),
    syncFromNotifications: (input: Parameters<typeof activities.syncFromNotifications>[0]) => forConnection(input.connectionId, () => activities.syncFromNotifications(input)),
  };

  /**
   * Writes planned records in chunks (a heartbeat after each); a rejected record becomes a dead letter.
   * A write by CRM id that names no record in this org (deleted there, or an id carried from another
   * org) is retried once as an upsert by external id instead of failing.
   */
  async function writeToCrm(rt: Awaited<ReturnType<typeof runtime>>, entity: Entity, writes: PlannedWrite[]): Promise<WriteOutcome> {
    const object = rt.mappings[entity].object;
    const outcome: WriteOutcome = { written: [], letters: [], created: 0, updated: 0, succeeded: [], calls: 0 };
    // Writes by CRM id and upserts by external id are different calls: grouped apart. The connector cuts
    // a group into the CRM's own batches (tests may ask for smaller chunks to watch the seams).
    const chunks = [writes.filter((write) => !write.item.crmId), writes.filter((write) => write.item.crmId)].flatMap((group) => {
      const size = deps.writeChunk ?? Math.max(group.length, 1);
      return Array.from({ length: Math.ceil(group.length / size) }, (_, index) => group.slice(index * size, (index + 1) * size));
    });
    let done = 0;
    for (const chunk of chunks) {
      // A Bulk API 2.0 job can take minutes: keep telling Temporal this activity is alive meanwhile.
      let results = await whileBeating({ entity, phase: 'write', writing: chunk.length, written: done, of: writes.length }, () => guard(() => rt.crm.upsert(object, chunk.map((write) => write.item))));
      outcome.calls += 1;
      const stale = results.flatMap((result, index) => (!result.ok && chunk[index]!.item.crmId && STALE_ID_CODES.has(result.error.code) ? [index] : []));
      if (stale.length > 0) {
        const retried = await guard(() => rt.crm.upsert(object, stale.map((index) => ({ ...chunk[index]!.item, crmId: undefined }))));
        outcome.calls += 1;
        results = results.map((result, index) => (stale.includes(index) ? retried[stale.indexOf(index)]! : result));
      }
      results.forEach((result, index) => {
        const write = chunk[index]!;
        if (result.ok) {
          outcome.written.push({ sourceId: write.item.sourceId, crmObject: object, crmId: result.crmId, contentHash: write.hash });
          outcome.succeeded.push({ sourceId: write.item.sourceId, crmId: result.crmId });
          if (result.created) outcome.created += 1;
          else outcome.updated += 1;
        } else {
          outcome.letters.push({ sourceId: write.item.sourceId, reason: `${result.error.code}: ${result.error.message}`, crmError: result.error, payload: write.item });
        }
      });
      done += chunk.length;
      heartbeat({ entity, phase: 'write', written: done, of: writes.length });
    }
    return outcome;
  }

  /** Adds the CRM account of each record's buyer (its buyer's record link), for the write-back. */
  async function withAccounts<T extends { sourceId: string }>(rt: Awaited<ReturnType<typeof runtime>>, connectionId: string, records: { id: string; buyerID?: string }[], items: T[]): Promise<(T & { accountId?: string })[]> {
    if (!rt.settings.entities.includes('buyer') || items.length === 0) return items;
    const buyerOf = new Map(records.map((record) => [record.id, record.buyerID]));
    const buyerIds = [...new Set(items.map((item) => buyerOf.get(item.sourceId)).filter((id): id is string => Boolean(id)))];
    const accounts = await links.get(connectionId, 'buyer', buyerIds);
    return items.map((item) => ({ ...item, accountId: accounts.get(buyerOf.get(item.sourceId) ?? '')?.crmId ?? undefined }));
  }

  /**
   * The notification path can name a child before the full pass has written its parent (an entitlement
   * whose offer is on a page not synced yet). Such a child is held back, neither written with a dangling
   * reference nor dead-lettered: the full pass, which goes parents first, writes it. Parents of entities
   * this connection does not sync are the CRM's business and are not waited for.
   */
  async function withoutOrphans(rt: Awaited<ReturnType<typeof runtime>>, connectionId: string, entity: Entity, writes: PlannedWrite[]): Promise<PlannedWrite[]> {
    const synced = Object.fromEntries(rt.settings.entities.filter((other) => other !== entity).map((other) => [other, rt.mappings[other].externalIdField]));
    const references = writes.map((write) => parentReferences(write.item.fields, synced));
    const linked = new Set<string>();
    for (const parent of new Set(references.flat().map((reference) => reference.entity))) {
      const ids = [...new Set(references.flat().filter((reference) => reference.entity === parent).map((reference) => reference.sourceId))];
      for (const id of (await links.get(connectionId, parent, ids)).keys()) linked.add(`${parent}:${id}`);
    }
    return writes.filter((write, index) => {
      const missing = references[index]!.filter((reference) => !linked.has(`${reference.entity}:${reference.sourceId}`));
      if (missing.length) activityLog(`${entity} ${write.item.sourceId} waits for ${missing.map((m) => `${m.entity} ${m.sourceId}`).join(', ')} to reach the CRM; the full pass writes it`);
      return missing.length === 0;
    });
  }

  /** Reads records by id and runs them through the page path: map, diff, (hold back orphans,) write, record. */
  async function syncRecordsById(rt: Awaited<ReturnType<typeof runtime>>, connectionId: string, entity: Entity, ids: string[], options: { holdOrphans?: boolean } = {}): Promise<PageCounts> {
    const counts: PageCounts = { records: ids.length, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0 };
    if (ids.length === 0) return counts;
    const orgId = rt.settings.commerce.organizationId;
    const records: any[] = [];
    const letters: DeadLetterInput[] = [];
    for (const id of ids) {
      try {
        records.push(await guard(() => readById(rt.commerce, orgId, entity, id)));
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
        letters.push({ sourceId: id, reason: `the commerce API no longer has ${entity} ${id}` });
      }
    }
    const terms = entity === 'entitlement' ? await guard(() => readEntitlementTerms(rt.commerce, orgId, records)) : undefined;
    const known = await links.get(connectionId, entity, records.map((record) => record.id));
    const plan = planPage({
      records,
      related: (record: { id: string }) => (terms ? { terms: terms.get(record.id) ?? [] } : undefined),
      mapping: rt.mappings[entity],
      overrides: rt.settings.overrides[entity],
      links: known,
    });
    // Dead-letter retries are not held back: those records already went through the full pass.
    if (options.holdOrphans) plan.writes = await withoutOrphans(rt, connectionId, entity, plan.writes);
    const { written, letters: rejectedByCrm, created, updated } = await writeToCrm(rt, entity, plan.writes);
    counts.created = created;
    counts.updated = updated;
    letters.push(...rejectedByCrm);
    letters.push(...plan.rejected.map((row) => ({ sourceId: row.sourceId, reason: row.reason })));
    counts.unchanged = plan.unchanged.length;
    counts.failed = letters.length;
    await inTransaction(deps.pool, async (client) => {
      await links.upsert(connectionId, entity, written, client);
      await deadLetters.resolve(connectionId, entity, [...written.map((link) => link.sourceId), ...plan.unchanged], client);
      await deadLetters.record(connectionId, entity, letters, client);
    });
    const metaInfoById = new Map(records.map((record) => [record.id, record.metaInfo]));
    const linked = [...written, ...plan.unchanged.map((sourceId) => known.get(sourceId)!)].flatMap((link) => (link.crmId ? [{ sourceId: link.sourceId, crmId: link.crmId }] : []));
    const withCurrent = linked.map((item) => ({ ...item, current: metaInfoById.get(item.sourceId) }));
    counts.writeBacks = await guard(async () => writeBackIds(rt.commerce, orgId, rt.crm.kind, entity, await withAccounts(rt, connectionId, records, withCurrent), (id) => rt.crm.recordUrl(id)));
    return counts;
  }
}

export type SyncActivities = ReturnType<typeof createSyncActivities>;

async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

function activityLog(message: string): void {
  try {
    Context.current().log.info(message);
  } catch {
    // outside an activity (unit tests): nobody to tell
  }
}

/** Heartbeats every 15 seconds while `work` runs (the activities' heartbeat timeout is 2 minutes). */
async function whileBeating<T>(details: unknown, work: () => Promise<T>): Promise<T> {
  heartbeat(details);
  const timer = setInterval(() => heartbeat(details), 15_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

function heartbeat(details: unknown): void {
  // Outside an activity (unit tests calling the function directly) there is no context to report to.
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.heartbeat(details);
}

/** Translates failures into Temporal's retry language: wait as long as asked, never retry what cannot succeed. */
async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CrmBudgetExhaustedError) {
      throw ApplicationFailure.create({ message: error.message, type: 'CrmBudgetExhausted', nextRetryDelay: Math.max(1000, error.resetsAt.getTime() - Date.now()) });
    }
    if (error instanceof CrmError) {
      if (!error.retryable) throw ApplicationFailure.create({ message: error.message, type: error.code, nonRetryable: true });
      throw ApplicationFailure.create({ message: error.message, type: error.code, nextRetryDelay: error.retryAfterMs });
    }
    if (error instanceof CommerceCredentialsRefusedError) throw ApplicationFailure.create({ message: error.message, type: 'CommerceCredentialsRefused', nonRetryable: true });
    if (error instanceof CommerceAuthError || error instanceof MappingConfigError) {
      throw ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true });
    }
    const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs;
    if (retryAfterMs) throw ApplicationFailure.create({ message: (error as Error).message, type: (error as Error).name, nextRetryDelay: retryAfterMs });
    throw error;
  }
}
