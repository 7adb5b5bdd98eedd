// CRM to commerce: Opportunities shared for co-sell become referrals, exactly once. One activity reads
// one page of changed Opportunities (by (SystemModstamp, Id), inclusive start with look-back, the window
// end fixed at the run's start), decides which ask for a referral, validates them with the commerce
// side, records an intent before creating, adopts a referral already carrying the Opportunity's id
// before any retry of a create, and writes the outcome back onto the Opportunities in one call per page.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import pLimit from 'p-limit';
import type pg from 'pg';
import { q, toDate } from '../commerce/index.ts';
import type { CrmRecord } from '../crm/connector.ts';
import { MappingConfigError } from '../mappings/check.ts';
import { OPPORTUNITY_FIELDS, opportunityToReferral, refusedFields, shareRuleFields, sharedFields, type ReferralRequest } from '../mappings/salesforce/opportunity-referral.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createDeadLetterStore } from '../store/dead-letters.ts';
import { createOutboundIntentStore, type Intent } from '../store/outbound-intents.ts';
import { createReauthorisationStore } from '../store/reauthorisation.ts';
import { withTransaction } from '../store/transaction.ts';
import { canonicalJson } from '../sync/hash.ts';
import type { RuntimeFor } from '../sync/runtime.ts';
import { cancellationSignal, createBeat } from './activity-context.ts';
import { guard } from './failures.ts';
import type { WireCursor } from './sync.ts';

export const OPPORTUNITY_REFERRAL = 'opportunity-referral';
const EPOCH: WireCursor = { time: new Date(0).toISOString() };
/** batchCreate takes this many referrals a call. */
const CREATE_BATCH = 50;

export type CosellCounts = { opportunities: number; shared: number; created: number; adopted: number; refused: number; unchanged: number; writeBacks: number };
export type CosellOutcome = CosellCounts & { nextCursor: WireCursor; done: boolean };

export type CosellActivityDeps = { pool: pg.Pool; runtimeFor: RuntimeFor; clock?: () => Date };

type Candidate = { opportunity: CrmRecord; request: ReferralRequest; hash: string };

export function createCosellActivities(deps: CosellActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  const cursors = createCursorStore(deps.pool);
  const intents = createOutboundIntentStore(deps.pool);
  const deadLetters = createDeadLetterStore(deps.pool);
  const reauthorisation = createReauthorisationStore(deps.pool);

  /** The Opportunity fields this connection's co-sell reads; a missing one is named before anything is written. */
  async function readableFields(rt: Awaited<ReturnType<RuntimeFor>>): Promise<string[]> {
    const schema = await guard(() => rt.crm.describe('Opportunity'));
    const wanted = [...new Set([...OPPORTUNITY_FIELDS, ...shareRuleFields(rt.settings.cosell.share)])];
    const missing = wanted.filter((name) => !name.includes('.') && !schema.fields.has(name));
    if (missing.length > 0) {
      throw new MappingConfigError(missing.map((name) => `Opportunity has no field '${name}', which co-sell needs: create it in the org (or change the connection's share rule)`));
    }
    return schema.fields.has('CurrencyIsoCode') ? [...wanted, 'CurrencyIsoCode'] : wanted;
  }

  return {
    /** Fixes the co-sell run's window end and where it starts; a connection without co-sell runs nothing. */
    async startCosell(input: { connectionId: string }) {
      const refused = await reauthorisation.get(input.connectionId);
      if (refused) throw ApplicationFailure.create({ type: 'ConnectionNeedsReauthorisation', nonRetryable: true, message: `This connection needs re-authorisation: ${refused.reason}. Save new secrets with crm-sync edit <connection>.` });
      const rt = await deps.runtimeFor(input.connectionId);
      const stored = await cursors.get(input.connectionId, OPPORTUNITY_REFERRAL);
      return { enabled: rt.settings.cosell.enabled, until: clock().toISOString(), start: stored ? { time: stored.time.toISOString() } : EPOCH, pageSize: 200 };
    },

    async syncOpportunityReferrals(input: { connectionId: string; cursor: WireCursor; until: string; pageSize: number }): Promise<CosellOutcome> {
      const beat = createBeat();
      const signal = cancellationSignal();
      const rt = await deps.runtimeFor(input.connectionId);
      const orgId = rt.settings.commerce.organizationId;
      const counts: CosellCounts = { opportunities: 0, shared: 0, created: 0, adopted: 0, refused: 0, unchanged: 0, writeBacks: 0 };

      const fields = await guard(() => readableFields(rt));
      const pages = rt.crm.changedSince('Opportunity', { since: new Date(input.cursor.time), afterId: input.cursor.afterId, until: new Date(input.until), fields, pageSize: input.pageSize })[Symbol.asyncIterator]();
      const first = await guard(() => pages.next());
      await pages.return?.(undefined);
      const page: CrmRecord[] = first.done ? [] : first.value;
      counts.opportunities = page.length;
      beat({ phase: 'read', opportunities: page.length });
      const done = page.length < input.pageSize;
      const last = page.at(-1);
      const nextCursor: WireCursor = last ? { time: toDate(String(last.SystemModstamp).replace('+0000', 'Z'))!.toISOString(), afterId: String(last.Id) } : input.cursor;

      // What each shared Opportunity asks for, against what was done for it before.
      const currency = 'USD';
      const decisions = page.map((opportunity) => ({ opportunity, decision: opportunityToReferral(opportunity, rt.settings.cosell.share, currency) }));
      const shared = decisions.filter((entry) => entry.decision.shared);
      counts.shared = shared.length;
      const known = await intents.get(input.connectionId, OPPORTUNITY_REFERRAL, shared.map((entry) => String(entry.opportunity.Id)));
      const outcomes: Intent[] = [];
      const writeBack = new Map<string, CrmRecord>();
      const toValidate: Candidate[] = [];
      const toAdopt: Candidate[] = [];
      for (const { opportunity, decision } of shared) {
        const crmId = String(opportunity.Id);
        const intent = known.get(crmId);
        const hash = digest('request' in decision ? decision.request : { refused: (decision as { refused: string }).refused });
        if (intent?.state === 'created') {
          // Exactly once: never a second referral. Our own write-back read back is no news.
          if (opportunity.Commerce_Referral_Id__c !== intent.commerceId) writeBack.set(crmId, { Commerce_Referral_Id__c: intent.commerceId, Cosell_Errors__c: null });
          else counts.unchanged += 1;
          continue;
        }
        if (intent?.state === 'refused' && intent.payloadHash === hash) {
          counts.unchanged += 1; // unchanged since it was refused: the reasons are already on the record
          continue;
        }
        if ('refused' in decision) {
          outcomes.push({ crmId, state: 'refused', commerceId: null, payloadHash: hash, message: decision.refused });
          continue;
        }
        const request = (decision as { request: ReferralRequest }).request;
        if (intent?.state === 'pending') toAdopt.push({ opportunity, request, hash });
        else toValidate.push({ opportunity, request, hash });
      }

      // The partner's rules first: a refusal is written onto the Opportunity in the partner's own words.
      const limit = pLimit(8);
      const valid: Candidate[] = [];
      await Promise.all(
        toValidate.map((candidate) =>
          limit(async () => {
            signal?.throwIfAborted();
            const verdict = await guard(() => rt.commerce.referrals.validate(orgId, candidate.request));
            if (verdict.valid) valid.push(candidate);
            else outcomes.push({ crmId: candidate.request.crmAOpportunityId, state: 'refused', commerceId: null, payloadHash: candidate.hash, message: verdict.errors.map((error) => `${error.field}: ${error.message}`).join('\n') || 'the marketplace refused the referral without saying why' });
            beat({ phase: 'validate' });
          }),
        ),
      );

      // Intents before any create; a create tried before (its answer lost) is looked for and adopted first.
      await intents.put(input.connectionId, OPPORTUNITY_REFERRAL, valid.map((candidate) => ({ crmId: candidate.request.crmAOpportunityId, state: 'pending', commerceId: null, payloadHash: candidate.hash, message: null })));
      const adopted = await findExisting(rt, orgId, toAdopt.map((candidate) => candidate.request.crmAOpportunityId));
      for (const candidate of toAdopt) {
        const referral = adopted.get(candidate.request.crmAOpportunityId);
        if (referral) {
          counts.adopted += 1;
          outcomes.push({ crmId: candidate.request.crmAOpportunityId, state: 'created', commerceId: referral.id, payloadHash: candidate.hash, message: null });
          writeBack.set(candidate.request.crmAOpportunityId, sharedFields(referral));
        } else valid.push(candidate);
      }
      for (let start = 0; start < valid.length; start += CREATE_BATCH) {
        signal?.throwIfAborted();
        const chunk = valid.slice(start, start + CREATE_BATCH);
        beat({ phase: 'create', creating: chunk.length });
        const { results } = await guard(() => rt.commerce.referrals.batchCreate(orgId, chunk.map((candidate) => candidate.request)));
        const created: Intent[] = [];
        for (const result of results) {
          const candidate = chunk[result.index];
          if (!candidate) continue;
          const crmId = candidate.request.crmAOpportunityId;
          if (result.referral) {
            counts.created += 1;
            created.push({ crmId, state: 'created', commerceId: result.referral.id, payloadHash: candidate.hash, message: null });
            writeBack.set(crmId, sharedFields(result.referral));
          } else outcomes.push({ crmId, state: 'refused', commerceId: null, payloadHash: candidate.hash, message: describeError(result.error) });
        }
        // Recorded at once: a crash after this point adopts nothing twice and creates nothing again.
        await intents.put(input.connectionId, OPPORTUNITY_REFERRAL, created);
      }
      for (const outcome of outcomes.filter((item) => item.state === 'refused')) writeBack.set(outcome.crmId, refusedFields(outcome.message!));
      counts.refused = outcomes.filter((item) => item.state === 'refused').length;

      // One call per page back onto the Opportunities; a record the CRM refuses is a dead letter.
      const items = [...writeBack].map(([crmId, fieldsToSet]) => ({ sourceId: crmId, crmId, fields: fieldsToSet }));
      const results = items.length ? await guard(() => rt.crm.update('Opportunity', items, { signal })) : [];
      counts.writeBacks = results.filter((result) => result.ok).length;
      const failed = results.flatMap((result) => (result.ok ? [] : [{ sourceId: result.sourceId, reason: `the co-sell outcome could not be written onto Opportunity ${result.sourceId}: ${result.error.code}: ${result.error.message}`, crmError: result.error }]));

      await withTransaction(deps.pool, async (client) => {
        await intents.put(input.connectionId, OPPORTUNITY_REFERRAL, outcomes, client);
        await deadLetters.record(input.connectionId, OPPORTUNITY_REFERRAL, failed, client);
        if (last) await cursors.advance(input.connectionId, OPPORTUNITY_REFERRAL, { time: new Date(nextCursor.time), id: nextCursor.afterId! }, client);
      });
      return { ...counts, nextCursor, done };
    },
  };
}

/** Referrals already carrying these Opportunity ids (a create whose answer was lost did happen). */
async function findExisting(rt: Awaited<ReturnType<RuntimeFor>>, orgId: string, opportunityIds: string[]): Promise<Map<string, { id: string; status?: string; stage?: string }>> {
  const found = new Map<string, { id: string; status?: string; stage?: string }>();
  for (let start = 0; start < opportunityIds.length; start += 50) {
    const slice = opportunityIds.slice(start, start + 50);
    await guard(async () => {
      for await (const page of rt.commerce.referrals.list(orgId, { q: q.in('crmAOpportunityId', slice).expression, limit: 1000 })) {
        for (const referral of page.records) if (referral.crmAOpportunityId && !found.has(referral.crmAOpportunityId)) found.set(referral.crmAOpportunityId, referral);
      }
    });
  }
  return found;
}

function describeError(error: unknown): string {
  if (!error) return 'the marketplace refused the referral without saying why';
  if (typeof error === 'string') return error;
  const detail = error as { message?: string; errors?: { field?: string; message?: string }[] };
  if (detail.errors?.length) return detail.errors.map((item) => `${item.field ?? 'referral'}: ${item.message ?? ''}`).join('\n');
  return detail.message ?? JSON.stringify(error);
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export type CosellActivities = ReturnType<typeof createCosellActivities>;
