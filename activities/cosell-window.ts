// One read of the run's CRM window for every co-sell pass (issue #24 item 9). Each 30-second run used
// to read the last look-back of Opportunity changes three times (the referral flow, the draft flow, the
// stage sync's CRM side), the stage read unnarrowed. Now one activity reads one page, with the fields
// of every pass and the union of their filters (flows/narrowing.ts), and hands it to each pass in turn
// (activities/crm-to-commerce.ts, activities/stage-sync.ts); each pass still advances its own cursor
// row to the page's end, so the cursors stay as they were stored. The window starts at the earliest
// of the passes' positions: a pass behind the others reads again what it has not seen, a pass ahead
// meets records it decided before (its intents and stage rows make them no news).
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { CRM_FLOWS, type CrmToCommerceFlow } from '../flows/index.ts';
import { pairedFilter, unionFilter } from '../flows/narrowing.ts';
import { referralStageFlow } from '../flows/referral-stage.ts';
import type { RuntimeFor } from '../sync/runtime.ts';
import { createCrmToCommerceActivities, readableFields, type CrmFlowCounts } from './crm-to-commerce.ts';
import { readWindowPage } from './crm-window.ts';
import { guard } from './failures.ts';
import { markingRefusedCredentials } from './reauthorisation-mark.ts';
import { createStageSyncActivities, stagePassFields, type StageCounts } from './stage-sync.ts';
import type { WireCursor } from './sync.ts';

export type CosellWindowOutcome = { records: number; flows: Record<string, CrmFlowCounts>; stages?: StageCounts; nextCursor: WireCursor; done: boolean };

/** The referral flow's id field on the Opportunity: what pairs a record with a referral, both ways. */
const REFERRAL_FLOW = 'opportunity-referral';

/** The earliest of the passes' starts (a window read once must cover the one furthest behind). */
export function earliestStart(starts: WireCursor[]): WireCursor {
  const sorted = [...starts].sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || (a.afterId === undefined ? -1 : b.afterId === undefined ? 1 : 0));
  const first = sorted[0];
  if (!first) throw new Error('no co-sell pass to start');
  // A position's own id and locator belong to the pass that read them; the window starts inclusively at the time.
  return { time: first.time };
}

export function createCosellWindowActivities(deps: { pool: pg.Pool; runtimeFor: RuntimeFor; clock?: () => Date; flows?: Record<string, CrmToCommerceFlow<any>> }) {
  const flowPasses = createCrmToCommerceActivities(deps);
  const stagePasses = createStageSyncActivities(deps);
  const flows = deps.flows ?? CRM_FLOWS;

  return markingRefusedCredentials(deps.pool, {
    async syncCosellWindowPage(input: { connectionId: string; flows: string[]; stages: boolean; cursor: WireCursor; until: string; pageSize: number; first: boolean }): Promise<CosellWindowOutcome> {
      const rt = await deps.runtimeFor(input.connectionId);
      const kind = rt.crm.kind;
      const sides = input.flows.map((name) => {
        const side = flows[name]?.crm[kind];
        if (!side) throw ApplicationFailure.nonRetryable(`The flow ${name} has no mapping for ${kind}`);
        return side;
      });
      const stage = input.stages ? referralStageFlow.crm[kind] : undefined;
      const objects = new Set([...sides.map((side) => side.object), ...(stage ? [stage.object] : [])]);
      if (objects.size !== 1) throw ApplicationFailure.nonRetryable(`The co-sell passes read different objects (${[...objects].join(', ')}): they cannot share one read`);
      const object = [...objects][0]!;

      // Every pass's fields, and any record one of them can use.
      const fields = new Set<string>();
      for (const side of sides) for (const field of await guard(() => readableFields(rt, side))) fields.add(field);
      const referralIdField = flows[REFERRAL_FLOW]?.crm[kind]?.madeField;
      if (stage) for (const field of [...(await stagePassFields(rt, stage)).fields, ...(referralIdField ? [referralIdField] : [])]) fields.add(field);
      const narrow = unionFilter([...sides.map((side) => side.narrow?.(rt.settings)), ...(stage ? [referralIdField ? pairedFilter(referralIdField) : undefined] : [])]);
      const read = await readWindowPage(rt.crm, object, { cursor: input.cursor, until: input.until, pageSize: input.pageSize, fields: [...fields], narrow });

      const outcome: CosellWindowOutcome = { records: read.page.length, flows: {}, nextCursor: read.nextCursor, done: read.done };
      for (const name of input.flows) {
        const { nextCursor: _next, done: _done, ...counts } = await flowPasses.syncCrmFlowPage({ connectionId: input.connectionId, flow: name, cursor: input.cursor, until: input.until, pageSize: input.pageSize, shared: read });
        outcome.flows[name] = counts;
      }
      if (stage) {
        // After the flows: a pair made from this page is decided on this page.
        const { nextCursor: _next, done: _done, ...counts } = await stagePasses.syncStagePage({ connectionId: input.connectionId, side: 'crm', cursor: input.cursor, until: input.until, pageSize: input.pageSize, first: input.first, shared: read });
        outcome.stages = counts;
      }
      return outcome;
    },
  });
}

export type CosellWindowActivities = ReturnType<typeof createCosellWindowActivities>;
