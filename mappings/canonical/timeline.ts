// A notification event as an activity on the CRM record it concerns (issue #27 section 1), whatever the
// CRM: an open task (an action item: someone has to act, by a due date) or a completed activity (news
// about the record). Keyed by the event's eventID, so one event is one activity however often it is read.
// Which events are written and which are open tasks is the connection's `timeline` setting; the flow
// (flows/timeline.ts) decides it with `timelineChoice` below and finds the record the event concerns in
// the CRM (its id and owner) before the mapping runs.
import { isAuditOnly } from '../../commerce/notifications.ts';
import type { NotificationEvent } from '../../commerce/models.ts';
import type { TimelineSettings } from '../../sync/connection-settings.ts';
import type { Entity, EntityMapping } from '../types.ts';
import { computing, type CanonicalRecord } from './record.ts';
import { isoDateTime } from '../values.ts';

/** The flow whose CRM record an event about each entity type lands on (contract §2.8 entityType, A8). */
export const TIMELINE_PARENTS: Readonly<Record<string, Entity>> = { OFFER: 'offer', ENTITLEMENT: 'entitlement', REFERRAL: 'referral', BUYER: 'buyer' };

/** An action item's due date: this many days after the event (the contract gives events no due date). */
export const ACTION_ITEM_DUE_DAYS = 3;

/** What the flow found for an event before mapping it: the record it lands on and whether it is an open task. */
export type TimelinePlacement = {
  parentEntity: Entity;
  parentId: string;
  /** The CRM id of the parent's record (found by its external id). */
  parentCrmId?: string;
  /** The owner of that CRM record: the activity is theirs. */
  ownerId?: string;
  open: boolean;
};

/** A notification event as the timeline flow hands it to the mappings: `id` is its eventID. */
export type TimelineEvent = NotificationEvent & { id: string; lastUpdateTime: string; timeline: TimelinePlacement };

export type CanonicalTimelineActivity = {
  eventId: string;
  /** ENTITYTYPE:ACTION:STATUS, e.g. OFFER:STATUS_CHANGED:ACCEPTED. */
  eventType: string;
  title: string;
  message?: string;
  open: boolean;
  /** When the event happened (its timestamp, ISO 8601). */
  occurredAt: string;
  /** The activity's date: an open task's due date, a completed activity's day (YYYY-MM-DD, UTC). */
  activityDate: string;
  priority: 'high' | 'normal' | 'low';
  parentEntity: Entity;
  parentId: string;
  parentCrmId?: string;
  ownerId?: string;
};

/** The event's type, ENTITYTYPE:ACTION:ENTITYSTATUS (parts it lacks left out), upper case. */
export function eventTypeOf(event: Pick<NotificationEvent, 'entityType' | 'action' | 'entityStatus'>): string {
  const parts = [event.entityType, event.action, event.entityStatus].map((part) => String(part ?? '').trim().toUpperCase());
  const filled = parts.findIndex((part) => !part);
  return (filled < 0 ? parts : parts.slice(0, filled)).join(':');
}

/** Whether an event is of a setting's event type: `OFFER` names every offer event, `OFFER:STATUS_CHANGED` those of that action, and so on. */
export function matchesEventType(event: Pick<NotificationEvent, 'entityType' | 'action' | 'entityStatus'>, pattern: string): boolean {
  const wanted = pattern.trim().toUpperCase().split(':');
  const actual = eventTypeOf(event).split(':');
  return wanted.every((part, index) => actual[index] === part);
}

export type TimelineChoice = { write: true; parentEntity: Entity; open: boolean } | { write: false; why: 'not-about-a-record' | 'entity-not-synced' | 'audit-only' | 'type-not-chosen' };

/**
 * Whether an event becomes an activity under a connection's setting, and which kind. Events about
 * entities the connection does not sync (or that have no CRM record: contacts, products) are skipped.
 * Audit-only events (contract §6.2: no delivery channel and requireAudit, kept by the service for its
 * own audit trail) are never written under the default: they record what was done (often by this
 * sync's own write-backs), not news for a seller. A list of event types writes exactly those.
 */
export function timelineChoice(event: NotificationEvent, settings: TimelineSettings, syncedEntities: readonly Entity[]): TimelineChoice {
  const parentEntity = TIMELINE_PARENTS[String(event.entityType ?? '').toUpperCase()];
  if (!parentEntity || typeof event.entityID !== 'string' || !event.entityID) return { write: false, why: 'not-about-a-record' };
  if (!syncedEntities.includes(parentEntity)) return { write: false, why: 'entity-not-synced' };
  if (settings.eventTypes === 'default') {
    if (isAuditOnly(event)) return { write: false, why: 'audit-only' };
  } else if (!settings.eventTypes.some((pattern) => matchesEventType(event, pattern))) return { write: false, why: 'type-not-chosen' };
  const open = settings.openTasksFor === 'action-items' ? event.isActionItem === true : settings.openTasksFor.some((pattern) => matchesEventType(event, pattern));
  return { write: true, parentEntity, open };
}

const LABELS: Record<string, string> = { OFFER: 'Offer', ENTITLEMENT: 'Entitlement', REFERRAL: 'Referral', BUYER: 'Buyer' };
const PRIORITIES: Record<string, CanonicalTimelineActivity['priority']> = { HIGH: 'high', CRITICAL: 'high', URGENT: 'high', LOW: 'low' };
const DAY_MS = 86_400_000;

export const TIMELINE_ACTIVITY: CanonicalRecord<TimelineEvent, unknown, CanonicalTimelineActivity> = {
  entity: 'timeline',
  id: (activity) => activity.eventId,
  describe: {
    eventId: 'notificationEvent eventID',
    eventType: 'notificationEvent entityType:action:entityStatus, e.g. OFFER:STATUS_CHANGED:ACCEPTED',
    title: 'notificationEvent title (when empty: the entity type, entityName and action)',
    message: 'notificationEvent message',
    open: "an open task when the connection's timeline.openTasksFor says so (default: isActionItem), else a completed activity",
    occurredAt: 'notificationEvent timestamp (else lastUpdateTime)',
    activityDate: `an open task's due date (the event's day + ${ACTION_ITEM_DUE_DAYS} days); a completed activity's day (the event's day, UTC)`,
    priority: 'notificationEvent priority: HIGH -> high, LOW -> low, else normal',
    parentEntity: 'the flow of the record the event concerns, by entityType: OFFER -> offer, ENTITLEMENT -> entitlement, REFERRAL -> referral, BUYER -> buyer',
    parentId: 'notificationEvent entityID',
    parentCrmId: "the CRM id of that record (found in the CRM by the parent's external id)",
    ownerId: "the owner of that CRM record",
  },
  compute(event) {
    const placement = event.timeline;
    if (!placement.parentCrmId) return { ok: false, reason: `its ${placement.parentEntity} ${placement.parentId} is not in the CRM yet; the event is written once it is` };
    return computing(`event ${event.eventID}`, () => {
      const occurredAt = isoDateTime(event.timestamp ?? event.lastUpdateTime, 'timestamp')!;
      const day = occurredAt.slice(0, 10);
      const activityDate = placement.open ? new Date(Date.parse(`${day}T00:00:00Z`) + ACTION_ITEM_DUE_DAYS * DAY_MS).toISOString().slice(0, 10) : day;
      const label = LABELS[String(event.entityType).toUpperCase()] ?? String(event.entityType);
      const title = event.title?.trim() || `${label} ${event.entityName || event.entityID} ${String(event.action ?? 'changed').toLowerCase().replaceAll('_', ' ')}`;
      return {
        eventId: event.eventID,
        eventType: eventTypeOf(event),
        title,
        ...(event.message?.trim() && { message: event.message.trim() }),
        open: placement.open,
        occurredAt,
        activityDate,
        priority: PRIORITIES[String(event.priority ?? '').toUpperCase()] ?? 'normal',
        parentEntity: placement.parentEntity,
        parentId: placement.parentId,
        parentCrmId: placement.parentCrmId,
        ...(placement.ownerId && { ownerId: placement.ownerId }),
      };
    });
  },
};

/**
 * A CRM's timeline mapping, with where the flow reads a parent record's id and owner (one query per
 * parent object and page): Salesforce Id and OwnerId, say.
 */
export type TimelineMapping = EntityMapping<TimelineEvent> & { parentRecord: { idField: string; ownerField?: string } };
