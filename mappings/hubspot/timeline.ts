// A notification event -> a HubSpot task on the record it concerns (issue #27 section 1), associated to
// it (the offer's or referral's deal, the marketplace_entitlement, the buyer's company: associations v4
// by the record's id from its link) and owned by that record's owner (hubspot_owner_id). Every event is
// a task, so one object holds the timeline and an event is found by one key: an action item NOT_STARTED
// with its due date as hs_timestamp, other events COMPLETED at the time they happened (a completed task
// sits on the record's timeline as a note does). Keyed by commerce_event_id, an ordinary property: HubSpot
// has no unique-value properties on activities, so the connector finds an event's task by a search of it
// before making one, and as search shows a task only seconds after it is made, sends each create once and
// remembers what it made (crm/hubspot/create-once.ts; docs/crm-wire-behaviour.md). The status, time and owner
// are set when the task is made, never after: a seller who completes or reassigns it keeps it so.
import { canonicalMapping } from '../canonical/record.ts';
import { TIMELINE_ACTIVITY, type CanonicalTimelineActivity, type TimelineMapping } from '../canonical/timeline.ts';
import type { Entity } from '../types.ts';
import { ENTITLEMENT_OBJECT } from './schema.ts';

/** The task's subject and body are text; HubSpot caps property values at 65,536 characters. */
const TEXT_LENGTH = 65_536;
const cut = (text: string | undefined, length: number) => (text && text.length > length ? `${text.slice(0, length - 1)}…` : text);
const PRIORITY = { high: 'HIGH', normal: 'MEDIUM', low: 'LOW' } as const;

/** The object each parent's record is (the HubSpot mappings' objects), associated by its id. */
export const TIMELINE_TARGETS: Readonly<Partial<Record<Entity, string>>> = { offer: 'deals', referral: 'deals', entitlement: ENTITLEMENT_OBJECT, buyer: 'companies' };

const associatedTo = (object: string) => ({
  describe: `associated to the ${object} record the event concerns, by its id from its link (${Object.entries(TIMELINE_TARGETS).filter(([, target]) => target === object).map(([entity]) => entity).join(' and ')} events)`,
  value: (activity: CanonicalTimelineActivity) => (activity.parentCrmId && TIMELINE_TARGETS[activity.parentEntity] === object ? { hs_object_id: activity.parentCrmId } : undefined),
});

export const timelineToHubSpotTask: TimelineMapping = {
  ...canonicalMapping(TIMELINE_ACTIVITY, {
    object: 'tasks',
    externalIdField: 'commerce_event_id',
    fields: {
      hs_task_subject: { describe: 'notificationEvent title', value: (activity) => cut(activity.title, TEXT_LENGTH) },
      hs_task_body: { describe: 'notificationEvent message', value: (activity) => cut(activity.message, TEXT_LENGTH) },
      hs_task_status: { describe: 'NOT_STARTED for an open task (an action item by default), else COMPLETED; set when the task is made', value: (activity) => (activity.open ? 'NOT_STARTED' : 'COMPLETED') },
      hs_timestamp: { describe: "an open task's due date (the event's day + 3 days, midnight UTC), else when the event happened; set when the task is made", value: (activity) => (activity.open ? `${activity.activityDate}T00:00:00Z` : activity.occurredAt) },
      hs_task_priority: { describe: 'notificationEvent priority: HIGH -> HIGH, LOW -> LOW, else MEDIUM', value: (activity) => PRIORITY[activity.priority] },
      // HubSpot's task types are EMAIL, CALL and "TODO" (its to-do): the value is HubSpot's, not a placeholder.
      hs_task_type: { describe: 'the task type "TODO" (HubSpot\'s to-do; the others are EMAIL and CALL)', value: () => 'TODO' },
      hubspot_owner_id: { describe: "that record's hubspot_owner_id (read once per page); left out when it has none", value: (activity) => activity.ownerId },
      deals: associatedTo('deals'),
      [ENTITLEMENT_OBJECT]: associatedTo(ENTITLEMENT_OBJECT),
      companies: associatedTo('companies'),
    },
    createOnly: ['hs_task_status', 'hs_timestamp', 'hubspot_owner_id'],
  }),
  parentRecord: { idField: 'hs_object_id', ownerField: 'hubspot_owner_id' },
  // HubSpot has no unique-value properties on activities: exactly once rests on the record links and
  // the connector's search of the key before it makes a task, believed once search has caught up with
  // recent creates (crm/hubspot/create-once.ts; docs/crm-wire-behaviour.md, "Search lags writes").
  keyNeedNotBeUnique: true,
};
