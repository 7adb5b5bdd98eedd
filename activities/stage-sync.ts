// Stages both ways for co-sell pairs (a referral and its CRM opportunity), under the connection's declared
// owner (sync/stage-policy.ts). One activity reads one page of changes on one side (Opportunities by
// SystemModstamp, or referrals by lastUpdateTime), keeps the pairs among them (plus refused changes whose
// time to try again has come), reads each pair's other side, decides and writes: CRM writes in one call
// per page, commerce writes one PATCH per referral. A PATCH the commerce side refuses for now (409 while
// the partner reviews) waits with its reason and is tried again later; it is never lost. A CRM record that
// refuses its save, or does not keep the stage written (activities/stage-crm-writes.ts), waits the same
// way with the CRM's own words, and the rest of the page and the cursor go on.
import { ApplicationFailure } from '@temporalio/common';
import pLimit from 'p-limit';
import type pg from 'pg';
import { q, toDate } from '../commerce/index.ts';
import type { Referral } from '../commerce/models.ts';
import type { CrmRecord } from '../crm/connector.ts';
import { recordId, recordStamp } from '../crm/connector.ts';
import { referralStageFlow, stageFields, stageOf, stageWrite, type StageSide as StageDeclaration } from '../flows/referral-stage.ts';
import { lifecycleReadFields } from '../mappings/lifecycle-fields.ts';
import { decidedOtherwise, decisionOf, decisionPatch, decisionRefusal, referralShown, sameInstant, type Decision } from '../sync/referral-lifecycle.ts';
import type { ConnectionRuntime } from '../sync/runtime.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createStageSyncStore, type StagePair, type StageRow } from '../store/stage-sync.ts';
import type { RuntimeFor } from '../sync/runtime.ts';
import { readWindowBatch } from '../sync/sources.ts';
import { decideStage, nextTry, type StageTables } from '../sync/stage-policy.ts';
import { activityLog, cancellationSignal, createBeat } from './activity-context.ts';
import { guard } from './failures.ts';
import { markingRefusedCredentials } from './reauthorisation-mark.ts';
import { writeCrmStages, type CrmStageWrite } from './stage-crm-writes.ts';
import type { WireCursor } from './sync.ts';
import { readWindowPage, windowStart, type WindowPage } from './crm-window.ts';

export type StageSide = 'crm' | 'commerce';
/** `queued`: refused now and kept for later (`crmRefused` of them by the CRM); `waiting`: kept earlier, its time not yet come. */
/** `decided`: sellers' decisions on inbound referrals taken by the commerce side (`decisionsRefused`: not taken, shown on the record). */
export type StageCounts = { changes: number; pairs: number; toCrm: number; toCommerce: number; queued: number; waiting: number; inStep: number; crmRefused?: number; decided?: number; decisionsRefused?: number };
export type StagePageOutcome = StageCounts & { nextCursor: WireCursor; done: boolean };

/** The cursor rows of the two change feeds the stage sync reads. */
export const STAGE_CURSOR: Record<StageSide, string> = { crm: 'stage-crm', commerce: 'stage-commerce' };

/**
 * The fields the stage pass reads from each CRM record: its stage, the fields showing the referral, and
 * the lifecycle's fields the org has (an org set up before issue #24 lacks them: they are left out).
 */
export async function stagePassFields(rt: ConnectionRuntime, side: StageDeclaration): Promise<{ fields: string[]; has: (field: string) => boolean }> {
  const schema = await guard(() => rt.crm.describe(side.object));
  const has = (field: string) => schema.fields.has(field);
  const lifecycle = lifecycleReadFields(side.lifecycle).filter(has);
  return { fields: [...new Set([...stageFields(side), side.mirror.stage, side.mirror.status, ...lifecycle])], has };
}

export function createStageSyncActivities(deps: { pool: pg.Pool; runtimeFor: RuntimeFor; clock?: () => Date }) {
  const clock = deps.clock ?? (() => new Date());
  const cursors = createCursorStore(deps.pool);
  const stages = createStageSyncStore(deps.pool);

  return markingRefusedCredentials(deps.pool, {
    /**
     * Where each side's change feed stands, and the stage pass's own window end: taken after the run's
     * creates, so pairs made in this run are seen (and agreed on) in this run.
     */
    async startStages(input: { connectionId: string }) {
      const rt = await deps.runtimeFor(input.connectionId);
      // Each run starts inclusively, a look-back before the stored position: a change stamped in the same
      // second as the position (SystemModstamp has whole seconds) or committed late is read again, and a
      // pair read again that is in step costs nothing. (The CRM connector applies its own look-back.)
      const lookbackMs = rt.settings.schedule.lookbackSeconds * 1000;
      const starts: Record<StageSide, WireCursor> = { crm: { time: new Date(0).toISOString() }, commerce: { time: new Date(0).toISOString() } };
      for (const side of ['crm', 'commerce'] as const) {
        const stored = await cursors.get(input.connectionId, STAGE_CURSOR[side]);
        if (stored) starts[side] = { time: new Date(stored.time.getTime() - (side === 'commerce' ? lookbackMs : 0)).toISOString() };
      }
      // The CRM side of a connection that never read it starts at the co-sell horizon, not 1970 (activities/crm-window.ts).
      const now = clock();
      if (!(await cursors.get(input.connectionId, STAGE_CURSOR.crm))) starts.crm = windowStart(undefined, now, rt.settings.cosell.startHorizonDays);
      return { starts, until: now.toISOString() };
    },

    async syncStagePage(input: { connectionId: string; side: StageSide; cursor: WireCursor; until: string; pageSize: number; /** The run's first page of this side. */ first?: boolean; /** The CRM page one read already holds for every co-sell pass (activities/cosell-window.ts). */ shared?: WindowPage }): Promise<StagePageOutcome> {
      const beat = createBeat();
      const signal = cancellationSignal();
      const rt = await deps.runtimeFor(input.connectionId);
      const side = referralStageFlow.crm[rt.crm.kind];
      if (!side) throw ApplicationFailure.nonRetryable(`Stages both ways are not declared for ${rt.crm.kind} (flows/referral-stage.ts)`);
      const orgId = rt.settings.commerce.organizationId;
      const tables: StageTables = { toCommerce: { ...side.tables.toCommerce, ...rt.settings.cosell.stages.toCommerce }, toCrm: { ...side.tables.toCrm, ...rt.settings.cosell.stages.toCrm } };
      const { fields, has } = await stagePassFields(rt, side);
      const lifecycle = side.lifecycle;
      const counts: StageCounts = { changes: 0, pairs: 0, toCrm: 0, toCommerce: 0, queued: 0, waiting: 0, inStep: 0, crmRefused: 0, decided: 0, decisionsRefused: 0 };

      // One page of changes on this side, and the pairs among them.
      const opportunities = new Map<string, CrmRecord>();
      const referrals = new Map<string, Referral>();
      let nextCursor = input.cursor;
      let done: boolean;
      let pairs: StagePair[];
      if (input.side === 'crm') {
        // Every changed Opportunity (not narrowed: a pair's record may have stopped being shared), following the window's locator.
        const read = input.shared ?? (await readWindowPage(rt.crm, side.object, { cursor: input.cursor, until: input.until, pageSize: input.pageSize, fields }));
        for (const record of read.page) opportunities.set(recordId(rt.crm, record), record);
        counts.changes = read.page.length;
        done = read.done;
        if (read.page.length) nextCursor = read.nextCursor;
        pairs = await stages.pairs(input.connectionId, { crmIds: [...opportunities.keys()] });
      } else {
        const batch = await guard(() => readWindowBatch(rt.commerce, orgId, 'referral', { cursor: { time: new Date(input.cursor.time), afterId: input.cursor.afterId }, until: new Date(input.until) }, input.pageSize, input.pageSize, { signal, onProgress: beat }));
        for (const referral of batch.records) referrals.set(referral.id, referral);
        counts.changes = batch.records.length;
        done = batch.done;
        nextCursor = { time: batch.next.time.toISOString(), ...(batch.next.afterId !== undefined && { afterId: batch.next.afterId }) };
        pairs = await stages.pairs(input.connectionId, { referralIds: [...referrals.keys()] });
      }
      // Refused changes whose time has come ride along with the CRM side's first page.
      if (input.side === 'crm' && input.first) {
        const due = await stages.due(input.connectionId, clock());
        const known = new Set(pairs.map((pair) => pair.referralId));
        pairs.push(...(await stages.pairs(input.connectionId, { referralIds: due.map((row) => row.referralId).filter((id) => !known.has(id)) })));
      }
      counts.pairs = pairs.length;

      // Each pair's other side, read fresh and in batches: referrals 50 to a list call, Opportunities 200 to a query.
      const referralIds = [...new Set(pairs.map((pair) => pair.referralId).filter((id) => !referrals.has(id)))];
      for (let start = 0; start < referralIds.length; start += 50) {
        signal?.throwIfAborted();
        beat({ phase: 'read-referrals', read: start });
        await guard(async () => {
          for await (const page of rt.commerce.referrals.list(orgId, { q: q.in('id', referralIds.slice(start, start + 50)).expression, limit: 1000 })) {
            for (const referral of page.records) referrals.set(referral.id, referral);
          }
        });
      }
      const opportunityIds = [...new Set(pairs.map((pair) => pair.crmId).filter((id) => !opportunities.has(id)))];
      if (opportunityIds.length) {
        for (const record of await guard(() => rt.crm.findWhereIn(side.object, rt.crm.idField, opportunityIds, [rt.crm.stampField, ...fields]))) opportunities.set(recordId(rt.crm, record), record);
      }
      beat({ phase: 'decide', pairs: pairs.length });

      // Sellers' decisions on inbound referrals first (once: only a referral still awaiting the seller is
      // decided); the stages and what the record shows are then decided on the referral as it now is.
      const decisionRefusals = await applyDecisions(rt, orgId, pairs, referrals, opportunities, has(lifecycle.decision) ? lifecycle : undefined, counts, signal);

      const agreed = await stages.get(input.connectionId, pairs.map((pair) => pair.referralId));
      const crmWrites: (CrmStageWrite & { row: StageRow })[] = [];
      const rows: StageRow[] = [];
      const toCommerce: { pair: StagePair; stage: string; lossReason?: string; opportunity: CrmRecord; row: StageRow }[] = [];
      for (const pair of pairs) {
        const referral = referrals.get(pair.referralId);
        const opportunity = opportunities.get(pair.crmId);
        if (!referral || !opportunity) continue; // gone on one side: nothing to keep in step
        const commerce = { stage: referral.stage ?? null, stamp: toDate(referral.lastUpdateTime) ?? clock() };
        const crm = { stage: stageOf(side, opportunity), stamp: recordStamp(rt.crm, opportunity) ?? clock() };
        const before = agreed.get(pair.referralId);
        const decision = decideStage({
          owner: rt.settings.cosell.owners.stage,
          tables,
          origin: pair.origin,
          commerce,
          crm,
          agreed: before?.commerceStamp && before.crmStamp ? { commerceStage: before.commerceStage, crmStage: before.crmStage, commerceStamp: before.commerceStamp, crmStamp: before.crmStamp } : undefined,
        });
        const row: StageRow = { referralId: pair.referralId, crmId: pair.crmId, commerceStage: commerce.stage, crmStage: crm.stage, commerceStamp: commerce.stamp, crmStamp: crm.stamp, pendingSide: null, pendingStage: null, pendingReason: null, pendingAttempts: 0, nextTryAt: null };
        // The Opportunity shows the referral's own status and stage (the commerce side's, for a salesperson),
        // the partner's review window, a rejection's reasons, and a decision the commerce side did not take.
        const mirror = shownOnRecord(side, has, referral, opportunity, decisionRefusals.get(pair.crmId));
        // A CRM record that refused its last save waits for its time before it is written again.
        const crmWaiting = before?.pendingSide === 'crm' && before.nextTryAt && before.nextTryAt > clock() && (decision.action !== 'write-crm' || before.pendingStage === decision.stage);
        if (decision.action === 'write-crm') {
          if (crmWaiting) {
            counts.waiting += 1;
            continue;
          }
          row.crmStage = decision.stage;
          crmWrites.push({ crmId: pair.crmId, fields: { ...mirror, ...stageWrite(side, decision.stage) }, stage: decision.stage, row: { ...row, pendingAttempts: before?.pendingAttempts ?? 0 } });
          continue;
        } else {
          if (Object.keys(mirror).length && !crmWaiting) crmWrites.push({ crmId: pair.crmId, fields: mirror, row: { ...row, pendingAttempts: before?.pendingAttempts ?? 0 } });
          else if (crmWaiting && before && Object.keys(mirror).length) Object.assign(row, { pendingSide: before.pendingSide, pendingStage: before.pendingStage, pendingReason: before.pendingReason, pendingAttempts: before.pendingAttempts, nextTryAt: before.nextTryAt });
          const waiting = decision.action === 'write-commerce' && before?.pendingSide === 'commerce' && before.pendingStage === decision.stage && before.nextTryAt && before.nextTryAt > clock();
          if (waiting) {
            counts.waiting += 1; // the same change is already waiting for its time: not sent again before it
            continue;
          }
          // A loss goes with its reason, where the CRM keeps one (A13: closedLostReason).
          const lossReason = decision.action === 'write-commerce' && decision.stage === 'Closed Lost' && lifecycle.lossReason?.fields.every(has) ? lifecycle.lossReason.read(opportunity) : undefined;
          if (decision.action === 'write-commerce') toCommerce.push({ pair, stage: decision.stage, lossReason, opportunity, row: { ...row, pendingAttempts: before?.pendingAttempts ?? 0 } });
          else if (decision.action === 'unmapped') {
            row.pendingReason = `the ${decision.side === 'crm' ? 'CRM' : 'commerce'} stage "${decision.stage}" has no counterpart in the connection's stage table`;
            // The agreement stays where it was: the unmapped stage stays news (left alone again), never
            // "neither changed yet out of step", which the commerce side would win.
            if (before) Object.assign(row, { commerceStage: before.commerceStage, crmStage: before.crmStage, commerceStamp: before.commerceStamp, crmStamp: before.crmStamp });
          }
          else counts.inStep += 1;
        }
        if (decision.action !== 'write-commerce') rows.push(row);
      }

      // Commerce writes: one PATCH each; a refusal waits with its reason and a growing delay.
      const limit = pLimit(8);
      await Promise.all(
        toCommerce.map(({ pair, stage, lossReason, opportunity, row }) =>
          limit(async () => {
            signal?.throwIfAborted();
            try {
              const updated = await rt.commerce.referrals.update(orgId, pair.referralId, { stage, ...(lossReason && { closedLostReason: lossReason }) });
              counts.toCommerce += 1;
              beat({ phase: 'write-commerce', written: counts.toCommerce });
              rows.push({ ...row, commerceStage: updated.stage ?? stage, commerceStamp: toDate(updated.lastUpdateTime) ?? row.commerceStamp, pendingAttempts: 0 });
              // The record shows the referral as the commerce side answered (a close: CLOSED) in this run, not the next.
              const shown = shownOnRecord(side, has, updated, opportunity, decisionRefusals.get(pair.crmId));
              const pending = crmWrites.find((write) => write.crmId === pair.crmId);
              if (pending) pending.fields = { ...pending.fields, ...shown };
              else if (Object.keys(shown).length) crmWrites.push({ crmId: pair.crmId, fields: shown, row: { ...row, pendingAttempts: 0 } });
            } catch (error) {
              const status = (error as { status?: number }).status;
              if (!status || status < 400 || status >= 500 || status === 429 || status === 401) throw error;
              counts.queued += 1;
              const attempts = row.pendingAttempts + 1;
              // The agreement stays where it was, so the change is decided again (and may be overtaken) next time.
              const previous = agreed.get(pair.referralId);
              rows.push({
                ...row,
                commerceStage: previous?.commerceStage ?? row.commerceStage,
                crmStage: previous?.crmStage ?? null,
                commerceStamp: previous?.commerceStamp ?? row.commerceStamp,
                crmStamp: previous?.crmStamp ?? row.crmStamp,
                pendingSide: 'commerce',
                pendingStage: stage,
                pendingReason: `the commerce side refused stage ${stage} for now (HTTP ${status}): ${(error as Error).message}`,
                pendingAttempts: attempts,
                nextTryAt: nextTry(attempts, clock()),
              });
            }
          }),
        ),
      );
      // CRM writes: one call for the page; a record refused (or whose stage did not take) waits with the CRM's words.
      const crmOutcome = await writeCrmStages(rt.crm, side, crmWrites, { signal, beat });
      for (const write of crmWrites) {
        const refusal = crmOutcome.refused.get(write.crmId);
        if (!refusal) {
          if (write.stage !== undefined) counts.toCrm += 1;
          // Only a stage row that was written is agreed; a mirror-only write keeps the row the decision made.
          if (write.stage !== undefined || !rows.some((row) => row.referralId === write.row.referralId)) rows.push({ ...write.row, pendingAttempts: 0 });
          continue;
        }
        counts.queued += 1;
        counts.crmRefused = (counts.crmRefused ?? 0) + 1;
        const attempts = write.row.pendingAttempts + 1;
        const previous = agreed.get(write.row.referralId);
        const others = rows.filter((row) => row.referralId !== write.row.referralId);
        rows.length = 0;
        rows.push(...others, {
          ...write.row,
          // The agreement stays where it was (none yet: the pair is still at first sight), so the change
          // is decided again when its time comes and the CRM's unchanged stage never reads as news.
          commerceStage: previous ? previous.commerceStage : write.row.commerceStage,
          crmStage: previous ? previous.crmStage : null,
          commerceStamp: previous ? previous.commerceStamp : null,
          crmStamp: previous ? previous.crmStamp : null,
          pendingSide: 'crm',
          pendingStage: write.stage ?? write.row.commerceStage ?? '',
          pendingReason: refusal,
          pendingAttempts: attempts,
          nextTryAt: nextTry(attempts, clock()),
        });
        activityLog(`stage sync: ${refusal}`);
      }
      for (const row of rows) await stages.put(input.connectionId, row);
      if (nextCursor.afterId) await cursors.advance(input.connectionId, STAGE_CURSOR[input.side], { time: new Date(nextCursor.time), id: nextCursor.afterId });
      return { ...counts, nextCursor, done };
    },
  });
}

export type StageSyncActivities = ReturnType<typeof createStageSyncActivities>;

/** A refusal of the commerce side about one record (it answered, in its words): not worth retrying as it is. */
function refusedByCommerce(error: unknown): number | undefined {
  const status = (error as { status?: number }).status;
  return status && status >= 400 && status < 500 && status !== 429 && status !== 401 && status !== 408 ? status : undefined;
}

/**
 * The sellers' decisions on the page's inbound referrals, one PATCH each; a referral decided is replaced
 * by the commerce side's answer. Returns, by CRM id, why a decision was not taken (for the record).
 */
async function applyDecisions(
  rt: ConnectionRuntime,
  orgId: string,
  pairs: StagePair[],
  referrals: Map<string, Referral>,
  opportunities: Map<string, CrmRecord>,
  lifecycle: StageDeclaration['lifecycle'] | undefined,
  counts: StageCounts,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const refusals = new Map<string, string>();
  if (!lifecycle) return refusals;
  const asked: { pair: StagePair; decision: Decision; patch: Partial<Referral> }[] = [];
  for (const pair of pairs) {
    const referral = referrals.get(pair.referralId);
    const opportunity = opportunities.get(pair.crmId);
    if (!referral || !opportunity || pair.origin !== 'commerce') continue;
    const decision = decisionOf(lifecycle.choice(opportunity[lifecycle.decision]), opportunity[lifecycle.decisionReason]);
    const patch = decision && decisionPatch(referral, decision);
    if (decision && patch) asked.push({ pair, decision, patch });
    else if (decision && decidedOtherwise(referral, decision)) refusals.set(pair.crmId, decisionRefusal(decision, `the referral is already ${referral.status}`));
  }
  const limit = pLimit(8);
  await Promise.all(
    asked.map(({ pair, decision, patch }) =>
      limit(async () => {
        signal?.throwIfAborted();
        try {
          referrals.set(pair.referralId, await rt.commerce.referrals.update(orgId, pair.referralId, patch));
          counts.decided = (counts.decided ?? 0) + 1;
        } catch (error) {
          if (!refusedByCommerce(error)) throw error;
          counts.decisionsRefused = (counts.decisionsRefused ?? 0) + 1;
          refusals.set(pair.crmId, decisionRefusal(decision, (error as Error).message));
        }
      }),
    ),
  );
  return refusals;
}

/** The fields of the record that differ from what it should show of its referral (only those the org has). */
function shownOnRecord(side: StageDeclaration, has: (field: string) => boolean, referral: Referral, record: CrmRecord, refusal: string | undefined): CrmRecord {
  const shown = referralShown(referral);
  const { lifecycle } = side;
  const fields: CrmRecord = {};
  const shownBefore = (record[side.mirror.status] as string | null | undefined) ?? null;
  if (shownBefore !== shown.status) {
    fields[side.mirror.status] = shown.status;
    // A rejection's reasons appear as it happens, and leave with it (a refusal written since stays).
    // An inbound referral decided: a refusal of an earlier decision is no longer true.
    if (has(lifecycle.errors) && shown.rejection) fields[lifecycle.errors] = shown.rejection.slice(0, lifecycle.errorsLimit);
    else if (has(lifecycle.errors) && shownBefore === 'REJECTED' && referral.direction !== 'INBOUND') fields[lifecycle.errors] = null;
    else if (has(lifecycle.errors) && shownBefore === 'SUBMITTED' && referral.direction === 'INBOUND' && record[lifecycle.errors] && !refusal) fields[lifecycle.errors] = null;
  }
  if (((record[side.mirror.stage] as string | null | undefined) ?? null) !== shown.stage) fields[side.mirror.stage] = shown.stage;
  if (has(lifecycle.reviewEnds) && !sameInstant(record[lifecycle.reviewEnds], shown.reviewEnds)) fields[lifecycle.reviewEnds] = shown.reviewEnds;
  if (refusal && has(lifecycle.errors) && record[lifecycle.errors] !== refusal.slice(0, lifecycle.errorsLimit)) fields[lifecycle.errors] = refusal.slice(0, lifecycle.errorsLimit);
  return fields;
}
