// A notification event -> a Salesforce Task on the record it concerns (issue #27 section 1): WhatId the
// record's Id (from the parent's link; Salesforce does not take an external-id reference on a polymorphic
// field such as WhatId: docs/crm-wire-behaviour.md), OwnerId that record's owner, Subject the title,
// Description the message; an action item Not Started with its due date, other events Completed on their
// day. Keyed by Commerce_Event_Id__c (the eventID). Status, ActivityDate and OwnerId are set when the
// Task is made, never after: a seller who completes or reassigns a task keeps it so. Subject and
// Description follow the event even on a Completed Task, which Salesforce lets be updated (archived ones
// too: docs/crm-wire-behaviour.md, "Edits to completed tasks").
import { canonicalMapping } from '../canonical/record.ts';
import { TIMELINE_ACTIVITY, type TimelineMapping } from '../canonical/timeline.ts';

/** Salesforce's limits on Task.Subject and Task.Description (describe: string 255, textarea 32000). */
const SUBJECT_LENGTH = 255;
const DESCRIPTION_LENGTH = 32000;
const cut = (text: string | undefined, length: number) => (text && text.length > length ? `${text.slice(0, length - 1)}…` : text);
const PRIORITY = { high: 'High', normal: 'Normal', low: 'Low' } as const;

export const timelineToTask: TimelineMapping = {
  ...canonicalMapping(TIMELINE_ACTIVITY, {
    object: 'Task',
    externalIdField: 'Commerce_Event_Id__c',
    fields: {
      Subject: { describe: `notificationEvent title (cut to ${SUBJECT_LENGTH} characters)`, value: (activity) => cut(activity.title, SUBJECT_LENGTH) },
      Description: { describe: 'notificationEvent message', value: (activity) => cut(activity.message, DESCRIPTION_LENGTH) },
      Status: { describe: "Not Started for an open task (an action item by default), else Completed; set when the Task is made", value: (activity) => (activity.open ? 'Not Started' : 'Completed') },
      ActivityDate: 'activityDate',
      Priority: { describe: 'notificationEvent priority: HIGH -> High, LOW -> Low, else Normal', value: (activity) => PRIORITY[activity.priority] },
      WhatId: { describe: "the Id of the record the event concerns (the offer's Opportunity, the Marketplace_Entitlement__c, the Cosell_Referral__c, the buyer's Account), from its link", value: (activity) => activity.parentCrmId },
      OwnerId: { describe: "that record's OwnerId (read once per page); left out when it has none, so the Task is the integration user's", value: (activity) => activity.ownerId },
    },
    createOnly: ['Status', 'ActivityDate', 'OwnerId'],
  }),
  parentRecord: { idField: 'Id', ownerField: 'OwnerId' },
  // Salesforce's documentation does not say that an activity field can be Unique: the key is an External
  // ID only, and exactly once rests on record_links and the upsert's own lookup by the key.
  keyNeedNotBeUnique: true,
};
