// A notification event -> a Dynamics task activity on the record it concerns (issue #27 section 1):
// regarding the record (bound through the navigation property Dataverse names per table,
// regardingobjectid_<table>_task: the offer's opportunity, the ccs_marketplaceentitlement, the
// ccs_cosellreferral, the buyer's account), owned by that record's owner (its _ownerid_value), subject
// the title, description the message; an action item an Open task due on its day, other events a
// Completed task (made Open, then completed by an Update of statecode/statuscode:
// crm/dynamics/state-transitions.ts, docs/crm-wire-behaviour.md). Keyed by ccs_commerceeventid (an
// alternate key on task, made by setup). The state, due date and owner are set when the task is made,
// never after: a seller who completes, re-opens or reassigns it keeps it so. Subject, description and
// the rest follow the event while the task is open; a completed or canceled task is read-only in
// Dataverse, so a later write leaves it as it was closed (crm/dynamics/closed-activities.ts). A custom
// table can be regarded only when it has activities: setup turns them on (crm/dynamics/activities.ts).
import { canonicalMapping } from '../canonical/record.ts';
import { TIMELINE_ACTIVITY, type CanonicalTimelineActivity, type TimelineMapping } from '../canonical/timeline.ts';
import type { Entity } from '../types.ts';

/** The task's limits (Dataverse's task table: subject 200, description 2000). */
const SUBJECT_LENGTH = 200;
const DESCRIPTION_LENGTH = 2000;
const cut = (text: string | undefined, length: number) => (text && text.length > length ? `${text.slice(0, length - 1)}…` : text);
const PRIORITY = { high: 2, normal: 1, low: 0 } as const;

/** The table of each parent's record (the Dynamics mappings' objects) and so its regarding navigation property. */
export const REGARDING_TABLES: Readonly<Partial<Record<Entity, string>>> = { offer: 'opportunity', entitlement: 'ccs_marketplaceentitlement', referral: 'ccs_cosellreferral', buyer: 'account' };
const regarding = (table: string) => `regardingobjectid_${table}_task`;

const regardingField = (entity: Entity) => ({
  describe: `the GUID of the ${REGARDING_TABLES[entity]} the event concerns, from its link (${entity} events)`,
  value: (activity: CanonicalTimelineActivity) => (activity.parentEntity === entity ? activity.parentCrmId : undefined),
});

export const timelineToDynamicsTask: TimelineMapping = {
  ...canonicalMapping(TIMELINE_ACTIVITY, {
    object: 'task',
    externalIdField: 'ccs_commerceeventid',
    fields: {
      subject: { describe: `notificationEvent title (cut to ${SUBJECT_LENGTH} characters)`, value: (activity) => cut(activity.title, SUBJECT_LENGTH) },
      description: { describe: `notificationEvent message (cut to ${DESCRIPTION_LENGTH} characters)`, value: (activity) => cut(activity.message, DESCRIPTION_LENGTH) },
      statecode: { describe: 'Open for an open task (an action item by default), else Completed (made Open, then completed); set when the task is made', value: (activity) => (activity.open ? 'Open' : 'Completed') },
      scheduledend: { describe: "an open task's due date (the event's day + 3 days, midnight UTC)", value: (activity) => (activity.open ? `${activity.activityDate}T00:00:00Z` : undefined) },
      actualend: { describe: 'a completed activity: when the event happened', value: (activity) => (activity.open ? undefined : activity.occurredAt.replace(/\.\d{3}Z$/, 'Z')) },
      prioritycode: { describe: 'notificationEvent priority: HIGH -> 2 High, LOW -> 0 Low, else 1 Normal', value: (activity) => PRIORITY[activity.priority] },
      [regarding('opportunity')]: regardingField('offer'),
      [regarding('ccs_marketplaceentitlement')]: regardingField('entitlement'),
      [regarding('ccs_cosellreferral')]: regardingField('referral'),
      [regarding('account')]: regardingField('buyer'),
      ownerid: { describe: "that record's owner (its _ownerid_value, read once per page); left out when unknown, so the task is the application user's", value: (activity) => activity.ownerId },
    },
    createOnly: ['statecode', 'scheduledend', 'ownerid'],
  }),
  parentRecord: { idField: 'id', ownerField: '_ownerid_value' },
};
