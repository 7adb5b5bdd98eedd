// The one path every record takes to the CRM, whoever read it (a window page, the notification feed, a
// dead-letter retry): map, compare with the links, write, take the ids back, record. Under the
// connection's per-entity lock, so no writer puts an older snapshot over a newer one between the
// comparison and the write; links, dead letters and the cursor move in one transaction after the writes.
import { effectiveSellerKeeps } from '../mappings/overrides.ts';
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { CRM_NAMES } from '../crm/connector.ts';
import { toDate } from '../commerce/index.ts';
import type { Entity } from '../mappings/types.ts';
import { createCursorStore, type Cursor } from '../store/cursors.ts';
import { createDeadLetterStore, type DeadLetterInput } from '../store/dead-letters.ts';
import { withEntityLock } from '../store/entity-locks.ts';
import { inTransaction } from '../store/transaction.ts';
import { redactSecrets } from '../store/redact.ts';
import { createRecordLinkStore } from '../store/record-links.ts';
import { madeFromSellersRecords } from '../store/sellers-records.ts';
import { canonicalJson } from '../sync/hash.ts';
import { parentReferences, referencedRecords } from '../sync/parents.ts';
import { planPage, type PlannedWrite } from '../sync/plan.ts';
import type { ConnectionRuntime } from '../sync/runtime.ts';
import { FLOWS, type RelatedRead } from '../flows/index.ts';
import { mappingsFor } from '../crm/registry.ts';
import { planWriteBacks, sendWriteBacks } from '../sync/write-back.ts';
import { readStamp } from '../sync/write-back-stamps.ts';
import { activityLog, activityWarn, type Beat } from './activity-context.ts';
import { writeToCrm, type WriteMemory } from './crm-write.ts';
import { fittedMapping } from '../mappings/fit-to-schema.ts';
import { guard } from './failures.ts';
import { readRelatedEach } from './refused-reads.ts';
import { countUnknown, sayUnknownOnce } from './unknown-values.ts';

type UnknownValueCount = ReturnType<typeof countUnknown>[number];

export type PageCounts = { records: number; created: number; updated: number; unchanged: number; failed: number; writeBacks: number };

export type RecordBatch = {
  connectionId: string;
  entity: Entity;
  /** Records read (readable ones); what could not be read comes as `letters`. */
  records: any[];
  letters: DeadLetterInput[];
  /** What the flow's mapping needs besides the records (an entitlement's terms), when the reader already has it. */
  related?: RelatedRead;
  /** Notification path: a child whose parent has not reached the CRM waits for the full pass. */
  holdOrphans?: boolean;
  /** Page path: a record still failing with the very same payload waits for its retry time. */
  respectRetryTimes?: boolean;
  /** Incremental pass: where the stored cursor moves, in the same transaction as the links. */
  advanceCursorTo?: Cursor;
  dryRun?: boolean;
};

/** `unknown`: values the picklist maps lack, by field and value (their fields were left out; §9.5). */
export type BatchOutcome = PageCounts & { crmWriteCalls: number; rejections: { sourceId: string; reason: string }[]; unknown?: UnknownValueCount[] };

export type RecordSyncDeps = { pool: pg.Pool; clock: () => Date; beat: Beat; signal?: AbortSignal; writeChunk?: number; memory?: WriteMemory };

export async function syncRecordBatch(rt: ConnectionRuntime, deps: RecordSyncDeps, batch: RecordBatch): Promise<BatchOutcome> {
  const links = createRecordLinkStore(deps.pool);
  const deadLetters = createDeadLetterStore(deps.pool);
  const cursors = createCursorStore(deps.pool);
  const orgId = rt.settings.commerce.organizationId;
  const { connectionId, entity } = batch;
  const letters: DeadLetterInput[] = [...batch.letters];
  const defaultMapping = rt.mappings[entity];
  if (!defaultMapping) throw ApplicationFailure.nonRetryable(`${CRM_NAMES[rt.crm.kind]} has no mapping for ${entity}`);
  // As this org takes it: optional fields it lacks (a single-currency org's CurrencyIsoCode) are left out.
  const mapping = await guard(() => fittedMapping(rt.crm, defaultMapping));

  let records = batch.records;
  const readRelated = FLOWS[entity].related;
  const related = batch.related ?? (readRelated && records.length > 0 ? await guard(() => readRelatedEach(readRelated, rt.commerce, orgId, records, { signal: deps.signal, onProgress: deps.beat })) : undefined);
  if (related) {
    // A record whose related rows cannot be read (an entitlement's terms) would be written with wrong
    // values (amounts): it waits as a dead letter instead.
    letters.push(...[...related.unreadable].map(([sourceId, problems]) => ({ sourceId, reason: `its ${entity === 'entitlement' ? 'terms' : 'related records'} cannot be read: ${problems.join('; ')}` })));
    records = records.filter((record) => !related.unreadable.has(record.id));
  }
  const version = (record: { id: string; lastUpdateTime?: string | number }) => newest(toDate(record.lastUpdateTime), related?.latest.get(record.id));
  const counts: BatchOutcome = { records: batch.records.length + batch.letters.length, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, crmWriteCalls: 0, rejections: [] };

  return withEntityLock(deps.pool, connectionId, entity, { signal: deps.signal, onWait: (waitedMs) => deps.beat({ entity, phase: 'waiting for another writer', waitedMs }) }, async (client) => {
    const known = await links.get(connectionId, entity, records.map((record) => record.id), client);
    // CRM records that are the seller's own (a draft offer's Opportunity): their seller-kept fields stay the seller's.
    const sellersFlow = FLOWS[entity].sellersRecordsFrom;
    const sellersRecords = sellersFlow && effectiveSellerKeeps(mapping, rt.settings.overrides[entity]).length ? await madeFromSellersRecords(client, connectionId, sellersFlow, records.map((record) => record.id)) : undefined;
    const plan = planPage({
      records,
      related: (record: { id: string }) => related?.byRecord.get(record.id),
      mapping,
      overrides: rt.settings.overrides[entity],
      links: known,
      version,
      followCarriedIds: rt.writesBack !== false,
      sellersRecords,
    });
    letters.push(...plan.rejected.map((row) => ({ sourceId: row.sourceId, reason: row.reason })));
    if (plan.unknown.length) {
      counts.unknown = countUnknown(plan.unknown);
      // A dry run shows them in its counts; the warning is kept for the run that writes.
      if (!batch.dryRun) sayUnknownOnce(connectionId, mapping.object, counts.unknown, activityWarn);
    }
    plan.writes = await withReferences(plan.writes, client);
    if (batch.respectRetryTimes) plan.writes = await withoutWaiting(plan.writes, client);
    if (batch.holdOrphans) plan.writes = await withoutOrphans(plan.writes, client);
    counts.unchanged = plan.unchanged.length + plan.superseded.length;
    counts.failed += letters.length;

    if (batch.dryRun) {
      counts.created = plan.writes.filter((write) => !write.linked).length;
      counts.updated = plan.writes.length - counts.created;
      counts.rejections = letters.slice(0, 100).map(({ sourceId, reason }) => ({ sourceId, reason }));
      return counts;
    }

    const written = await writeToCrm(rt.crm, mapping.object, entity, plan.writes, { beat: deps.beat, signal: deps.signal, resumeJobs: deps.memory?.bulkJobs, chunkSize: deps.writeChunk });
    counts.created = written.created;
    counts.updated = written.updated;
    counts.crmWriteCalls = written.calls;
    letters.push(...written.letters);
    counts.failed += written.letters.length;

    // Unchanged records are checked too: a write-back lost to a failure after the links were recorded
    // (the retry finds them unchanged) is made then, and costs nothing once in place.
    const currentOf = FLOWS[entity].source.current ?? ((record: { metaInfo?: Record<string, unknown> }) => record.metaInfo);
    const current = new Map(records.map((record) => [record.id, currentOf(record)]));
    const unchangedLinked = plan.unchanged.flatMap((sourceId) => (known.get(sourceId)?.crmId ? [{ sourceId, crmId: known.get(sourceId)!.crmId! }] : []));
    const pendingBack =
      rt.writesBack !== false
        ? await planWriteBacks(rt.crm.kind, entity, await withAccounts(client, [...written.succeeded, ...unchangedLinked].map((item) => ({ ...item, current: current.get(item.sourceId) }))), (id) => rt.crm.recordUrl(id))
        : [];
    const awaitingBack = new Set(pendingBack.map((item) => item.sourceId));
    // What afterWrite must look at again: this batch's writes, and unchanged records an earlier attempt left a letter for (read before they are resolved below).
    const unsettled = FLOWS[entity].afterWrite
      ? new Set([...written.succeeded.map((item) => item.sourceId), ...(plan.unchanged.length ? (await deadLetters.openFor(connectionId, entity, plan.unchanged, client)).keys() : [])])
      : new Set<string>();

    // The links first: once the CRM holds a record, a crash must not make the retry write it again.
    await inTransaction(client, async () => {
      await stillTheSameOrganizations(client);
      await links.upsert(connectionId, entity, written.written, client);
      const settled = [...written.written.map((link) => link.sourceId), ...plan.unchanged, ...plan.superseded].filter((id) => !awaitingBack.has(id));
      await deadLetters.resolve(connectionId, entity, settled, client);
      await deadLetters.record(connectionId, entity, uniqueBySource(letters), client);
      if (batch.advanceCursorTo) await cursors.advance(connectionId, entity, batch.advanceCursorTo, client);
    });

    // What the flow does once its records are in the CRM (an inbound referral's contacts attached).
    const afterWrite = FLOWS[entity].afterWrite;
    const notDone = new Set<string>();
    if (afterWrite) {
      const linkedNow = [...written.succeeded, ...unchangedLinked];
      const problems = linkedNow.length ? await guard(() => afterWrite({ commerce: rt.commerce, crm: rt.crm, orgId, records, linked: linkedNow, unsettled, related: (sourceId) => related?.byRecord.get(sourceId), signal: deps.signal })) : [];
      if (problems.length) {
        counts.failed += problems.length;
        await deadLetters.record(connectionId, entity, uniqueBySource(problems), client);
        for (const problem of problems) notDone.add(problem.sourceId);
      }
    }

    // The records the CRM is now in step with, as read (sync/write-back-stamps.ts): the next incremental
    // run reads no terms and writes nothing for them while they stay so. Those whose CRM ids are still to
    // go back wait for that write's answer (below), and those afterWrite could not finish for their letter.
    const byId = new Map(records.map((record) => [record.id, record]));
    const inStep = [...written.written.map((link) => link.sourceId), ...plan.unchanged].filter((id) => !awaitingBack.has(id) && !notDone.has(id));
    await links.recordKnown(connectionId, entity, inStep.flatMap((sourceId) => {
      const record = byId.get(sourceId);
      const stamp = record && readStamp(record);
      return stamp ? [{ sourceId, ...stamp }] : [];
    }), client);

    if (pendingBack.length > 0) {
      const back = await guard(() => sendWriteBacks(rt.commerce, orgId, entity, pendingBack, { signal: deps.signal, onProgress: deps.beat, synced: byId }));
      counts.writeBacks = back.sent;
      // The stamps our own writes answered: the next run knows these records unchanged without reading their terms again.
      // Not for those afterWrite could not finish: their letter stays open and the record is read again
      // (a stamp would let the next run skip it, and afterWrite would never be retried).
      await links.recordKnown(connectionId, entity, back.stamps.filter((stamp) => !notDone.has(stamp.sourceId)), client);
      counts.failed += back.refused.length;
      const refused = new Set(back.refused.map((refusal) => refusal.sourceId));
      await deadLetters.resolve(connectionId, entity, [...awaitingBack].filter((id) => !refused.has(id) && !notDone.has(id)), client);
      // A refused write-back is a dead letter of its record: retried later (the CRM write is not repeated).
      await deadLetters.record(connectionId, entity, back.refused, client);
    }
    return counts;
  });

  /**
   * The connection may have been moved to another organization (`connect --start-afresh`) while this
   * batch was writing with the old settings: its links must not land in the new one's state. The
   * attempt fails and Temporal retries it with the saved settings.
   */
  async function stillTheSameOrganizations(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query('SELECT settings FROM connections WHERE id = $1 FOR SHARE', [connectionId]);
    const saved = rows[0]?.settings as { commerce?: { baseUrl?: string; organizationId?: string }; crm?: { organizationId?: string } } | undefined;
    const ours = rt.settings;
    const moved =
      !saved ||
      saved.commerce?.organizationId !== ours.commerce.organizationId ||
      saved.commerce?.baseUrl !== ours.commerce.baseUrl ||
      (saved.crm?.organizationId !== undefined && ours.crm.organizationId !== undefined && saved.crm.organizationId !== ours.crm.organizationId);
    if (moved) throw new Error(`Connection ${connectionId} was moved to another organization while this batch ran; it is retried with the saved settings`);
  }

  /** A record still failing with the very same payload waits for its retry time instead of being sent again. */
  async function withoutWaiting(writes: PlannedWrite[], client: pg.PoolClient): Promise<PlannedWrite[]> {
    const waiting = await deadLetters.openFor(connectionId, entity, writes.map((write) => write.item.sourceId), client);
    return writes.filter((write) => {
      const letter = waiting.get(write.item.sourceId);
      // Stored payloads are redacted: compare like with like.
      const wait = letter?.nextRetryAt && letter.nextRetryAt > deps.clock() && canonicalJson(letter.payload) === canonicalJson(redactSecrets(write.item));
      if (wait) counts.failed += 1;
      return !wait;
    });
  }

  /**
   * The notification path can name a child before the full pass has written its parent (an entitlement
   * whose offer is on a page not synced yet). Such a child is held back, neither written with a dangling
   * reference nor dead-lettered: the full pass, which goes parents first, writes it. Parents of entities
   * this connection does not sync are the CRM's business and are not waited for.
   */
  async function withoutOrphans(writes: PlannedWrite[], client: pg.PoolClient): Promise<PlannedWrite[]> {
    const synced = Object.fromEntries(rt.settings.entities.filter((other) => other !== entity && rt.mappings[other]).map((other) => [other, rt.mappings[other]!.externalIdField]));
    const references = writes.map((write) => parentReferences(write.item.fields, synced));
    const linked = new Set<string>();
    for (const parent of new Set(references.flat().map((reference) => reference.entity))) {
      const ids = [...new Set(references.flat().filter((reference) => reference.entity === parent).map((reference) => reference.sourceId))];
      for (const id of (await links.get(connectionId, parent, ids, client)).keys()) linked.add(`${parent}:${id}`);
    }
    return writes.filter((write, index) => {
      const missing = references[index]!.filter((reference) => !linked.has(`${reference.entity}:${reference.sourceId}`));
      if (missing.length) activityLog(`${entity} ${write.item.sourceId} waits for ${missing.map((m) => `${m.entity} ${m.sourceId}`).join(', ')} to reach the CRM; the full pass writes it`);
      return missing.length === 0;
    });
  }

  /**
   * Adds the CRM ids of the records each write references, as this connection linked them: a CRM that
   * links by associations (HubSpot) needs the ids, and only the sync knows them when the CRM merged two
   * commerce records into one (one HubSpot contact per email).
   */
  async function withReferences(writes: PlannedWrite[], client: pg.PoolClient): Promise<PlannedWrite[]> {
    const keyFields = Object.fromEntries(Object.entries(rt.mappings).map(([other, mapping]) => [other, mapping!.externalIdField]));
    // A list of associations (a deal's contacts) to an entity this connection does not sync is left
    // out: those records are not the sync's to find. A single parent reference stays (the CRM's business).
    const allKeys = Object.entries(mappingsFor(rt.crm.kind, rt.settings.crm)).map(([other, mapping]) => [other, mapping!.externalIdField] as const);
    const syncedKeys = new Set(allKeys.filter(([other]) => rt.settings.entities.includes(other as Entity)).map(([, key]) => key));
    const unsynced = new Set(allKeys.filter(([, key]) => !syncedKeys.has(key)).map(([, key]) => key));
    writes = writes.map((write) => {
      const dropped = Object.entries(write.item.fields).filter(([, value]) => Array.isArray(value) && value.some((item) => item && typeof item === 'object' && Object.keys(item).some((key) => unsynced.has(key))));
      if (dropped.length === 0) return write;
      const keep = ([name]: [string, unknown]) => !dropped.some(([gone]) => gone === name);
      // From the record as mapped too: a retry by external id writes it whole (with its create-only fields).
      return { ...write, item: { ...write.item, fields: Object.fromEntries(Object.entries(write.item.fields).filter(keep)) }, record: { ...write.record, fields: Object.fromEntries(Object.entries(write.record.fields).filter(keep)) } };
    });
    const referenced = writes.map((write) => referencedRecords(write.item.fields, keyFields));
    if (referenced.every((list) => list.length === 0)) return writes;
    const crmIds = new Map<string, string>();
    for (const target of new Set(referenced.flat().map((reference) => reference.entity))) {
      const ids = [...new Set(referenced.flat().filter((reference) => reference.entity === target).map((reference) => reference.sourceId))];
      for (const [id, link] of await links.get(connectionId, target, ids, client)) if (link.crmId) crmIds.set(`${target}:${id}`, link.crmId);
    }
    return writes.map((write, index) => {
      const references = Object.fromEntries(referenced[index]!.flatMap((reference) => {
        const crmId = crmIds.get(`${reference.entity}:${reference.sourceId}`);
        return crmId ? [[reference.key, crmId]] : [];
      }));
      return Object.keys(references).length ? { ...write, item: { ...write.item, references } } : write;
    });
  }

  /** Adds the CRM account of each record's buyer (its buyer's record link), for the write-back. */
  async function withAccounts<T extends { sourceId: string }>(client: pg.PoolClient, items: T[]): Promise<(T & { accountId?: string })[]> {
    if (!rt.settings.entities.includes('buyer') || items.length === 0) return items;
    const buyerOf = new Map(records.map((record) => [record.id, record.buyerID as string | undefined]));
    const buyerIds = [...new Set(items.map((item) => buyerOf.get(item.sourceId)).filter((id): id is string => Boolean(id)))];
    const accounts = await links.get(connectionId, 'buyer', buyerIds, client);
    return items.map((item) => ({ ...item, accountId: accounts.get(buyerOf.get(item.sourceId) ?? '')?.crmId ?? undefined }));
  }
}

function newest(...dates: (Date | undefined)[]): Date | undefined {
  const times = dates.filter((date): date is Date => Boolean(date)).map((date) => date.getTime());
  return times.length ? new Date(Math.max(...times)) : undefined;
}

/** One letter per record (the first reason wins): one statement must not touch a row twice. */
function uniqueBySource(letters: DeadLetterInput[]): DeadLetterInput[] {
  const bySource = new Map<string, DeadLetterInput>();
  for (const letter of letters) if (!bySource.has(letter.sourceId)) bySource.set(letter.sourceId, letter);
  return [...bySource.values()];
}
