// Notification events -> activities on the CRM records they concern (issue #27 section 1): an offer's
// event on its Opportunity (deal), an entitlement's on the entitlement record, a referral's on the
// referral's record, a buyer's on the account. One activity per event, keyed by its eventID (the
// activity's external id and the record_links row), so retries and a killed worker never write one twice.
//
// The feed is read by time (GET {O}/notificationEvent?since=, A5): from the last run (less the look-back)
// or, on a first run, a backfill or a reconciliation, from `timeline.backfillDays` ago, never the whole
// history. It is a `due` read: the connection's settings say which events are written (which entities it
// syncs, which event types) and each event needs its parent's CRM record, found by the parent's link, with
// that record's owner read once per page (one query per parent object, not one per event). An event whose
// record is not in the CRM yet waits: the next backfill or reconciliation, which read the whole N days,
// write it once the record is there.
import { classifyEvent, toDate, type CommerceClient } from '../commerce/index.ts';
import type { CrmConnector } from '../crm/connector.ts';
import { timelineToDynamicsTask } from '../mappings/dynamics/timeline.ts';
import { timelineToHubSpotTask } from '../mappings/hubspot/timeline.ts';
import { timelineToTask } from '../mappings/salesforce/timeline.ts';
import { timelineChoice, type TimelineEvent, type TimelineMapping } from '../mappings/canonical/timeline.ts';
import type { Entity, EntityMapping } from '../mappings/types.ts';
import type { CommerceToCrmFlow } from './types.ts';

const DAY_MS = 86_400_000;
const FEED_LIMIT = 1000; // the list endpoints' maximum (§8)

type Parent = 'buyer' | 'offer' | 'entitlement' | 'referral';
type Name = Parent | 'timeline';

/** Where the timeline's read of the feed starts: the last run's read (less the look-back), never before `backfillDays` ago. */
export function timelineSince(now: Date, backfillDays: number, since?: Date): Date {
  const floor = new Date(now.getTime() - backfillDays * DAY_MS);
  return since && since > floor ? since : floor;
}

/** Each event's parent record in the CRM (by the parent's link) and that record's owner, one query per parent object. */
async function place(
  events: { event: TimelineEvent; parentEntity: Entity }[],
  context: { crm?: CrmConnector; mappings?: Partial<Record<string, EntityMapping<any, any>>>; crmIdsOf?(entity: Entity, ids: string[]): Promise<Map<string, string>> },
): Promise<TimelineEvent[]> {
  const own = context.mappings?.timeline as TimelineMapping | undefined;
  if (!context.crmIdsOf || !own) return [];
  const placed: TimelineEvent[] = [];
  const byParent = new Map<Entity, TimelineEvent[]>();
  for (const { event, parentEntity } of events) byParent.set(parentEntity, [...(byParent.get(parentEntity) ?? []), event]);
  for (const [parentEntity, list] of byParent) {
    const crmIds = await context.crmIdsOf(parentEntity, [...new Set(list.map((event) => event.timeline.parentId))]);
    const owners = new Map<string, string>();
    const parentObject = context.mappings?.[parentEntity]?.object;
    const { idField, ownerField } = own.parentRecord;
    if (ownerField && parentObject && context.crm && crmIds.size > 0) {
      for (const record of await context.crm.findWhereIn(parentObject, idField, [...new Set(crmIds.values())], [idField, ownerField])) {
        const owner = record[ownerField];
        if (typeof owner === 'string' && owner) owners.set(String(record[idField]), owner);
      }
    }
    for (const event of list) {
      const parentCrmId = crmIds.get(event.timeline.parentId);
      if (!parentCrmId) continue; // its record is not in the CRM yet: a later backfill or reconciliation writes it
      const ownerId = owners.get(parentCrmId);
      placed.push({ ...event, timeline: { ...event.timeline, parentCrmId, ...(ownerId && { ownerId }) } });
    }
  }
  return placed;
}

export const timelineFlow = {
  name: 'timeline',
  direction: 'commerce-to-crm',
  source: {
    // The flow reads the feed through `due`; the window is never asked for.
    async *window() {},
    async byId(_commerce: CommerceClient, _orgId: string, id: string) {
      // The contract has no read of one event by its id (§6.1): a waiting event is written by the next
      // backfill or reconciliation, which read the feed again.
      throw Object.assign(new Error(`the commerce API cannot read notification event ${id} alone; the next backfill or reconciliation writes it`), { status: 404 });
    },
  },
  // Not named by the feed's sync trigger: events are this flow's records, not news of them.
  events: [],
  parents: ['buyer', 'offer', 'entitlement', 'referral'],
  mappings: { salesforce: timelineToTask, hubspot: timelineToHubSpotTask, dynamics: timelineToDynamicsTask },
  deletes: 'reflect-status',
  async due(commerce, orgId, context) {
    const settings = context.settings.timeline;
    const since = timelineSince(context.now, settings.backfillDays, context.since);
    const read: { records: TimelineEvent[]; rejected: any[] } = { records: [], rejected: [] };
    for await (const page of commerce.notificationEvents.list(orgId, { since, limit: Math.min(context.pageSize, FEED_LIMIT) })) {
      context.signal?.throwIfAborted();
      read.rejected.push(...page.rejected);
      const chosen: { event: TimelineEvent; parentEntity: Entity }[] = [];
      for (const event of page.records) {
        // An envelope of a version this worker does not understand is left alone (§6.3): the notification
        // path sets it aside, and a backfill after an upgrade writes it.
        if (!classifyEvent(event).accepted) continue;
        const time = toDate(event.timestamp ?? event.lastUpdateTime);
        if (!time || time > context.now) continue;
        const choice = timelineChoice(event, settings, context.settings.entities);
        if (!choice.write) continue;
        const lastUpdateTime = toDate(event.lastUpdateTime ?? event.timestamp)!.toISOString();
        chosen.push({ event: { ...event, id: event.eventID, lastUpdateTime, timeline: { parentEntity: choice.parentEntity, parentId: event.entityID!, open: choice.open } }, parentEntity: choice.parentEntity });
      }
      read.records.push(...(await place(chosen, context as never)));
    }
    return read;
  },
} satisfies CommerceToCrmFlow<Name>;
