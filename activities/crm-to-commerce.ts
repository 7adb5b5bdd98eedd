// Runs any CRM-to-commerce flow (flows/crm-to-commerce.ts), exactly once per CRM record. One activity
// reads one page of changed CRM records (by modification stamp and id, inclusive start with look-back,
// the window end fixed at the run's start), asks the flow what each wants, checks the commerce side's
// rules, records an intent before creating, adopts a commerce record already carrying the CRM id before
// any retry of a create, and writes the outcome back onto the CRM records in one call per page.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import pLimit from 'p-limit';
import type pg from 'pg';
import { toDate } from '../commerce/index.ts';
import { recordId, type CrmRecord } from '../crm/connector.ts';
import { CRM_FLOWS, type CrmToCommerceFlow } from '../flows/index.ts';
import { referralStageFlow } from '../flows/referral-stage.ts';
import type { CrmSide } from '../flows/crm-to-commerce.ts';
import { MappingConfigError } from '../mappings/check.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createDeadLetterStore, MAX_DEAD_LETTER_ATTEMPTS } from '../store/dead-letters.ts';
import { createOutboundIntentStore, type Intent } from '../store/outbound-intents.ts';
import { createReauthorisationStore } from '../store/reauthorisation.ts';
import { withTransaction } from '../store/transaction.ts';
import { canonicalJson } from '../sync/hash.ts';
import type { ConnectionRuntime, RuntimeFor } from '../sync/runtime.ts';
import { cancellationSignal, createBeat } from './activity-context.ts';
import { claimThenCreate, COMMERCE_REQUEST_TIMEOUT_SECONDS, currentClaimant } from './claimed-creates.ts';
import { retryFlowWriteBacks, type WriteBackRetryCounts } from './cosell-write-back-retry.ts';
import { fitWriteBack } from '../flows/fit-write-back.ts';
import { extrasOf, madeHash, type MadeAudit } from '../flows/made-extras.ts';
import { createAuditStore } from '../store/audit.ts';
import { guard } from './failures.ts';
import { markingRefusedCredentials, reasonInSentence } from './reauthorisation-mark.ts';
import type { WireCursor } from './sync.ts';
import { readWindowPage, windowStart, type WindowPage } from './crm-window.ts';

/** `advanced`: records already made whose next step the commerce side took (a referral submitted, or submitted again). */
export type CrmFlowCounts = { records: number; asking: number; created: number; adopted: number; refused: number; unchanged: number; writeBacks: number; advanced?: number };
export type CrmFlowOutcome = CrmFlowCounts & { nextCursor: WireCursor; done: boolean };

export type CrmToCommerceDeps = { pool: pg.Pool; runtimeFor: RuntimeFor; clock?: () => Date; flows?: Record<string, CrmToCommerceFlow<any>> };

type Candidate = { crmId: string; request: unknown; hash: string };
type Audited = { crmId: string; audit: MadeAudit };
/** A record already made whose request changed since it was last sent, with what it made. */
type Advancing = Candidate & { commerceId: string; record: CrmRecord };

export function createCrmToCommerceActivities(deps: CrmToCommerceDeps) {
  const clock = deps.clock ?? (() => new Date());
  const flows = deps.flows ?? CRM_FLOWS;
  const cursors = createCursorStore(deps.pool);
  const intents = createOutboundIntentStore(deps.pool);
  const deadLetters = createDeadLetterStore(deps.pool);
  const reauthorisation = createReauthorisationStore(deps.pool);

  function sideOf(rt: ConnectionRuntime, flowName: string): { flow: CrmToCommerceFlow<any>; side: CrmSide<any> } {
    const flow = flows[flowName];
    if (!flow) throw ApplicationFailure.nonRetryable(`No CRM-to-commerce flow is named ${flowName}`);
    const side = flow.crm[rt.crm.kind];
    if (!side) throw ApplicationFailure.nonRetryable(`The flow ${flowName} has no mapping for ${rt.crm.kind}`);
    return { flow, side };
  }

  return markingRefusedCredentials(deps.pool, {
    /** The run's window end, and which flows this connection runs with where each starts. */
    async startCrmFlows(input: { connectionId: string }) {
      const refused = await reauthorisation.get(input.connectionId);
      if (refused) throw ApplicationFailure.create({ type: 'ConnectionNeedsReauthorisation', nonRetryable: true, message: `This connection needs re-authorisation: ${reasonInSentence(refused.reason)}. Save new secrets with crm-sync edit <connection>.` });
      const rt = await deps.runtimeFor(input.connectionId);
      // Co-sell writes to the commerce side: only the connection that writes CRM ids back for its commerce
      // organization does it (a UAT org beside production must not create referrals or claim them).
      const active = rt.settings.cosell.enabled && rt.writesBack !== false;
      const names = Object.values(flows).filter((flow) => active && flow.enabled(rt.settings) && flow.crm[rt.crm.kind]).map((flow) => flow.name);
      const starts: Record<string, WireCursor> = {};
      const now = clock();
      for (const name of names) {
        const stored = await cursors.get(input.connectionId, name);
        // A connection's first window starts at the co-sell horizon, not 1970 (activities/crm-window.ts).
        starts[name] = windowStart(stored?.time, now, rt.settings.cosell.startHorizonDays);
      }
      // Inbound referrals (commerce to CRM) come first: the run makes their Opportunities before reading Opportunities.
      const inbound = active && Boolean(rt.mappings['inbound-referral']);
      return { flows: names, inbound, stages: active && Boolean(referralStageFlow.crm[rt.crm.kind]), starts, until: now.toISOString(), pageSize: 200 };
    },

    /** `shared`: the page one read of the run's window already holds for every co-sell pass (activities/cosell-window.ts). */
    async syncCrmFlowPage(input: { connectionId: string; flow: string; cursor: WireCursor; until: string; pageSize: number; shared?: WindowPage }): Promise<CrmFlowOutcome> {
      const beat = createBeat();
      const signal = cancellationSignal();
      const rt = await deps.runtimeFor(input.connectionId);
      const { flow, side } = sideOf(rt, input.flow);
      const orgId = rt.settings.commerce.organizationId;
      const counts: CrmFlowCounts = { records: 0, asking: 0, created: 0, adopted: 0, refused: 0, unchanged: 0, writeBacks: 0, advanced: 0 };

      const fields = await guard(() => readableFields(rt, side));
      // One page, following the window's query locator when the cursor carries one; only records the flow can use.
      const { page, nextCursor, done } = input.shared ?? (await readWindowPage(rt.crm, side.object, { cursor: input.cursor, until: input.until, pageSize: input.pageSize, fields, narrow: side.narrow?.(rt.settings) }));
      counts.records = page.length;
      beat({ flow: flow.name, phase: 'read', records: page.length });
      const last = page.at(-1);

      // What each record asks for, against what was done for it before.
      const related = side.related && page.length ? await guard(() => side.related!(rt.crm, page)) : undefined;
      const asking = page.flatMap((record) => {
        const ask = side.ask(record, rt.settings, related?.get(recordId(rt.crm, record)));
        return ask.asks ? [{ record, ask }] : [];
      });
      counts.asking = asking.length;
      const known = await intents.get(input.connectionId, flow.name, asking.map(({ record }) => recordId(rt.crm, record)));
      const outcomes: Intent[] = [];
      // Steps a target reports for the audit trail (a private offer approved, published): a create's with its
      // intent, a next step's as soon as it is taken (its retry finds the step done and reports nothing again).
      const auditsOf = (crmId: string, made: { id: string }): Audited[] => (extrasOf(made).audit ?? []).map((audit) => ({ crmId, audit }));
      const recordAudits = async (client: pg.PoolClient, entries: Audited[]) => {
        const store = createAuditStore(client);
        for (const { crmId, audit } of entries) {
          await store.record({ actor: audit.by ? { kind: 'person', name: audit.by } : { kind: 'system', name: 'worker' }, via: 'worker', action: audit.action, connectionId: input.connectionId, target: `${side.object} ${crmId}`, detail: { flow: flow.name, ...audit.detail } });
        }
      };
      const writeBack = new Map<string, CrmRecord>();
      const toCheck: Candidate[] = [];
      const toAdopt: Candidate[] = [];
      const toAdvance: Advancing[] = [];
      for (const { record, ask } of asking) {
        const crmId = recordId(rt.crm, record);
        const intent = known.get(crmId);
        const hash = digest('request' in ask ? ask.request : { refused: (ask as { refused: string }).refused });
        if (intent?.state === 'created' && flow.target.advance && 'request' in ask && intent.payloadHash !== hash && intent.commerceId) {
          // Made before, and asking for something else since it was last sent: the commerce record's next step.
          toAdvance.push({ crmId, request: ask.request, hash, commerceId: intent.commerceId, record });
          continue;
        }
        if (intent?.state === 'created') {
          // Exactly once: never a second create. Our own write-back, read back, is no news.
          if (record[side.madeField] !== intent.commerceId) writeBack.set(crmId, side.made({ id: intent.commerceId! }));
          else counts.unchanged += 1;
          continue;
        }
        if (!intent && record[side.madeField]) {
          counts.unchanged += 1; // the record already holds a commerce record of its own (made elsewhere)
          continue;
        }
        if (intent?.state === 'refused' && intent.payloadHash === hash) {
          counts.unchanged += 1; // unchanged since it was refused: the reasons are already on the record
          continue;
        }
        if ('refused' in ask) outcomes.push({ crmId, state: 'refused', commerceId: null, payloadHash: hash, message: ask.refused });
        else if (intent?.state === 'pending') toAdopt.push({ crmId, request: ask.request, hash });
        else toCheck.push({ crmId, request: ask.request, hash });
      }

      // The commerce side's rules first: a refusal is written onto the CRM record in its own words.
      const accepted: Candidate[] = [];
      const limit = pLimit(8);
      await Promise.all(
        toCheck.map((candidate) =>
          limit(async () => {
            signal?.throwIfAborted();
            const problems = flow.target.validate ? await guard(() => flow.target.validate!(rt.commerce, orgId, candidate.request)) : [];
            if (problems.length === 0) accepted.push(candidate);
            else outcomes.push({ crmId: candidate.crmId, state: 'refused', commerceId: null, payloadHash: candidate.hash, message: problems.join('\n') });
            beat({ flow: flow.name, phase: 'validate' });
          }),
        ),
      );

      // Intents before any create. A create tried before (its answer lost) is looked for once it is surely
      // visible, and every create chunk is claimed first, so an attempt never creates beside another (activities/claimed-creates.ts).
      await intents.put(input.connectionId, flow.name, accepted.map((candidate) => ({ crmId: candidate.crmId, state: 'pending', commerceId: null, payloadHash: candidate.hash, message: null })));
      accepted.push(...toAdopt);
      const claimant = currentClaimant();
      // Every chunk settles before the attempt ends, also when one fails: a chunk still in flight when its
      // sibling's answer is lost would otherwise outlive the failed attempt, and its own error be dropped.
      const settled = await Promise.allSettled(
        chunks(accepted, flow.target.batch).map((chunk) =>
          limit(async () => {
            const { adopted, created: results } = await claimThenCreate({
              intents,
              connectionId: input.connectionId,
              flow: flow.name,
              claimant,
              chunk,
              look: (crmIds) => guard(() => flow.target.findByCrmIds(rt.commerce, orgId, crmIds, rt.crm.kind)),
              create: (toCreate) => guard(() => flow.target.create(rt.commerce, orgId, toCreate.map((candidate) => candidate.request))),
              beat,
              signal,
              requestTimeoutSeconds: (rt.settings.commerce.requestTimeoutMs ?? COMMERCE_REQUEST_TIMEOUT_SECONDS * 1000) / 1000,
            });
            const created: Intent[] = [];
            const createdAudits: Audited[] = [];
            // A made record the target calls unsettled keeps a hash no request has, so its next read takes the next step.
            for (const { candidate, made } of adopted) {
              counts.adopted += 1;
              created.push({ crmId: candidate.crmId, state: 'created', commerceId: made.id, payloadHash: madeHash(made, candidate.hash), message: null });
              writeBack.set(candidate.crmId, side.made(made));
            }
            for (const { candidate, result } of results) {
              if ('made' in result) {
                counts.created += 1;
                created.push({ crmId: candidate.crmId, state: 'created', commerceId: result.made.id, payloadHash: madeHash(result.made, candidate.hash), message: null });
                createdAudits.push(...auditsOf(candidate.crmId, result.made));
                writeBack.set(candidate.crmId, side.made(result.made));
              } else outcomes.push({ crmId: candidate.crmId, state: 'refused', commerceId: null, payloadHash: candidate.hash, message: result.refused });
            }
            // Recorded at once: after a crash from here on, nothing is created again.
            await withTransaction(deps.pool, async (client) => {
              await intents.put(input.connectionId, flow.name, created, client);
              await recordAudits(client, createdAudits);
            });
          }),
        ),
      );
      const failedChunk = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failedChunk) throw failedChunk.reason;
      // Records made before whose request changed: each one's next step, once per change (its hash is kept).
      const advanced: Intent[] = [];
      await Promise.all(
        toAdvance.map((candidate) =>
          limit(async () => {
            signal?.throwIfAborted();
            const result = await guard(() => flow.target.advance!(rt.commerce, orgId, candidate.commerceId, candidate.request));
            beat({ flow: flow.name, phase: 'advance' });
            if ('later' in result) return; // not now: kept as it was, tried again at the record's next change
            advanced.push({ crmId: candidate.crmId, state: 'created', commerceId: candidate.commerceId, payloadHash: 'made' in result ? madeHash(result.made, candidate.hash) : candidate.hash, message: 'refused' in result ? result.refused : null });
            if ('made' in result) {
              counts.advanced! += 1;
              const steps = auditsOf(candidate.crmId, result.made);
              if (steps.length > 0) await withTransaction(deps.pool, (client) => recordAudits(client, steps));
              writeBack.set(candidate.crmId, side.made(result.made));
            } else if ('refused' in result) {
              counts.refused += 1;
              writeBack.set(candidate.crmId, side.refusedAfterMade?.(result.refused) ?? side.refused(result.refused));
            } else {
              counts.unchanged += 1;
              if (candidate.record[side.madeField] !== candidate.commerceId) writeBack.set(candidate.crmId, side.made({ id: candidate.commerceId }));
            }
          }),
        ),
      );
      outcomes.push(...advanced);
      const refusals = outcomes.filter((outcome) => outcome.state === 'refused');
      for (const outcome of refusals) writeBack.set(outcome.crmId, side.refused(outcome.message!));
      counts.refused += refusals.length;

      // One call per page back onto the CRM records; a record the CRM refuses is a dead letter.
      // As this org takes them: an optional field it lacks is left out (flows/fit-write-back.ts; the describe is the connector's, kept).
      const schema = writeBack.size ? await guard(() => rt.crm.describe(side.object)) : undefined;
      const items = [...writeBack].map(([crmId, fieldsToSet]) => ({ sourceId: crmId, crmId, fields: fitWriteBack(side, schema!, fieldsToSet) }));
      const results = items.length ? await guard(() => rt.crm.update(side.object, items, { signal })) : [];
      counts.writeBacks = results.filter((result) => result.ok).length;
      // A page shared with the passes after this one shows what was written, so they do not write it again.
      if (input.shared) {
        const written = new Map(items.map((item) => [item.crmId, item.fields]));
        const taken = new Set(results.filter((result) => result.ok).map((result) => result.sourceId));
        for (const record of page) {
          const id = recordId(rt.crm, record);
          if (taken.has(id)) Object.assign(record, written.get(id));
        }
      }
      const failed = results.flatMap((result) => (result.ok ? [] : [{ sourceId: result.sourceId, reason: `the outcome could not be written onto ${side.object} ${result.sourceId}: ${result.error.code}: ${result.error.message}`, crmError: result.error }]));

      await withTransaction(deps.pool, async (client) => {
        await intents.put(input.connectionId, flow.name, outcomes, client);
        await deadLetters.record(input.connectionId, flow.name, failed, client);
        // An outcome written now answers an earlier refused write-back of the same record.
        await deadLetters.resolve(input.connectionId, flow.name, results.filter((result) => result.ok).map((result) => result.sourceId), client);
        if (last) await cursors.advance(input.connectionId, flow.name, { time: new Date(nextCursor.time), id: nextCursor.afterId! }, client);
      });
      return { ...counts, nextCursor, done };
    },

    /** Write-backs the CRM refused, due again (by their backoff or `crm-sync dead-letters --retry`): written again from the intents. */
    async retryCosellWriteBacks(input: { connectionId: string }): Promise<WriteBackRetryCounts> {
      const rt = await deps.runtimeFor(input.connectionId);
      const total: WriteBackRetryCounts = { due: 0, writeBacks: 0, failed: 0 };
      for (const flow of Object.values(flows)) {
        const counts = await retryFlowWriteBacks({ rt, connectionId: input.connectionId, flow, deadLetters, intents, maxAttempts: MAX_DEAD_LETTER_ATTEMPTS, now: clock(), signal: cancellationSignal() });
        total.due += counts.due;
        total.writeBacks += counts.writeBacks;
        total.failed += counts.failed;
      }
      return total;
    },
  });
}

/** The fields a flow reads; one the org lacks is named before anything is written. */
export async function readableFields(rt: ConnectionRuntime, side: CrmSide<any>): Promise<string[]> {
  const schema = await guard(() => rt.crm.describe(side.object));
  const wanted = side.fields(rt.settings);
  const missing = wanted.filter((name) => !name.includes('.') && !schema.fields.has(name));
  if (missing.length > 0) throw new MappingConfigError(missing.map((name) => `${side.object} has no field '${name}', which co-sell needs: create it in the org (or change the connection's co-sell settings)`));
  return [...wanted, ...(side.optionalFields ?? []).filter((name) => schema.fields.has(name))];
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export type CrmToCommerceActivities = ReturnType<typeof createCrmToCommerceActivities>;
