// The timeline's canonical activity (mappings/canonical/timeline.ts) and the connection's choice of which
// events are written, expected values written by hand: an action item is an open task due three days
// after the event, other events completed on their day; audit-only events and entities the connection
// does not sync are left out; a list of event types picks exactly those. And Salesforce's Task fields.
import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from '../../commerce/models.ts';
import { eventTypeOf, TIMELINE_ACTIVITY, timelineChoice, type TimelineEvent } from '../../mappings/canonical/timeline.ts';
import { timelineToTask } from '../../mappings/salesforce/timeline.ts';
import { timelineSince } from '../../flows/timeline.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

const accepted: NotificationEvent = {
  eventID: 'evt-0000042',
  action: 'STATUS_CHANGED',
  entityType: 'OFFER',
  entityID: 'offer-7',
  entityName: 'Acme analytics',
  entityStatus: 'ACCEPTED',
  priority: 'MEDIUM',
  title: 'Offer accepted: Acme analytics',
  message: 'The buyer accepted offer Acme analytics (offer-7).',
  channels: ['EMAIL'],
  requireAudit: true,
  isActionItem: false,
  timestamp: '2026-03-10T22:15:00.000Z',
  lastUpdateTime: '2026-03-10T22:15:00.000Z',
};
const rejected: NotificationEvent = {
  ...accepted,
  eventID: 'evt-0000043',
  entityType: 'REFERRAL',
  entityID: 'ref-3',
  entityStatus: 'REJECTED',
  priority: 'HIGH',
  title: 'Referral rejected by partner: Acme co-sell',
  message: 'cloudA rejected referral Acme co-sell (ref-3): duplicate of an existing opportunity.',
  isActionItem: true,
};
const auditOnly: NotificationEvent = { ...accepted, eventID: 'evt-0000044', channels: [], requireAudit: true, action: 'UPDATED', entityStatus: 'ACTIVE' };

const DEFAULTS = { eventTypes: 'default', openTasksFor: 'action-items', backfillDays: 30 } as const;
const ALL: ('buyer' | 'offer' | 'entitlement' | 'referral')[] = ['buyer', 'offer', 'entitlement', 'referral'];

const placed = (event: NotificationEvent, open: boolean, parentEntity: TimelineEvent['timeline']['parentEntity'], extra: Partial<TimelineEvent['timeline']> = {}): TimelineEvent => ({
  ...event,
  id: event.eventID,
  lastUpdateTime: String(event.lastUpdateTime),
  timeline: { parentEntity, parentId: event.entityID!, open, parentCrmId: '006000000000001AAA', ownerId: '005000000000002AAA', ...extra },
});

describe('which events become activities (timeline setting)', () => {
  it('a connection saved without a timeline setting gets the documented default', () => {
    const settings = connectionSettingsSchema.parse({
      commerce: { baseUrl: 'https://commerce.example', authUrl: 'https://auth.example', clientId: 'c', organizationId: 'org-1' },
      crm: { kind: 'salesforce', loginUrl: 'https://login.example', clientId: 'x' },
    });
    expect(settings.timeline).toEqual({ eventTypes: 'default', openTasksFor: 'action-items', backfillDays: 30 });
  });

  it('a bad event type is refused naming the field', () => {
    const result = connectionSettingsSchema.safeParse({
      commerce: { baseUrl: 'https://commerce.example', authUrl: 'https://auth.example', clientId: 'c', organizationId: 'org-1' },
      crm: { kind: 'salesforce', loginUrl: 'https://login.example', clientId: 'x' },
      timeline: { eventTypes: ['offer accepted!'] },
    });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error!.issues[0]!.path)).toBe('["timeline","eventTypes",0]');
  });

  it('by default: an action item is an open task, other business events completed, audit-only events never', () => {
    expect(timelineChoice(rejected, DEFAULTS, ALL)).toEqual({ write: true, parentEntity: 'referral', open: true });
    expect(timelineChoice(accepted, DEFAULTS, ALL)).toEqual({ write: true, parentEntity: 'offer', open: false });
    expect(timelineChoice(auditOnly, DEFAULTS, ALL)).toEqual({ write: false, why: 'audit-only' });
  });

  it('events about entities the connection does not sync, or that have no CRM record, are skipped', () => {
    expect(timelineChoice(accepted, DEFAULTS, ['buyer', 'entitlement'])).toEqual({ write: false, why: 'entity-not-synced' });
    expect(timelineChoice({ ...accepted, entityType: 'PRODUCT' }, DEFAULTS, ALL)).toEqual({ write: false, why: 'not-about-a-record' });
    expect(timelineChoice({ ...accepted, entityType: 'CONTACT' }, DEFAULTS, ALL)).toEqual({ write: false, why: 'not-about-a-record' });
  });

  it('a list of event types writes exactly those (audit-only ones too), and open tasks can be chosen by type', () => {
    const settings = { eventTypes: ['OFFER:STATUS_CHANGED:ACCEPTED', 'offer:updated'], openTasksFor: ['OFFER:STATUS_CHANGED'], backfillDays: 7 };
    expect(eventTypeOf(accepted)).toBe('OFFER:STATUS_CHANGED:ACCEPTED');
    expect(timelineChoice(accepted, settings, ALL)).toEqual({ write: true, parentEntity: 'offer', open: true });
    expect(timelineChoice(auditOnly, settings, ALL)).toEqual({ write: true, parentEntity: 'offer', open: false });
    expect(timelineChoice(rejected, settings, ALL)).toEqual({ write: false, why: 'type-not-chosen' });
  });

  it('the feed is read from the last run, never from before backfillDays ago', () => {
    const now = new Date('2026-03-31T12:00:00.000Z');
    expect(timelineSince(now, 30).toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(timelineSince(now, 30, new Date('2026-03-31T11:50:00.000Z')).toISOString()).toBe('2026-03-31T11:50:00.000Z');
    expect(timelineSince(now, 30, new Date('2025-01-01T00:00:00.000Z')).toISOString()).toBe('2026-03-01T12:00:00.000Z');
  });
});

describe('the canonical activity', () => {
  it('an action item: open, due three days after the event (UTC day), high priority', () => {
    expect(TIMELINE_ACTIVITY.compute(placed(rejected, true, 'referral'), undefined)).toEqual({
      ok: true,
      value: {
        eventId: 'evt-0000043',
        eventType: 'REFERRAL:STATUS_CHANGED:REJECTED',
        title: 'Referral rejected by partner: Acme co-sell',
        message: 'cloudA rejected referral Acme co-sell (ref-3): duplicate of an existing opportunity.',
        open: true,
        occurredAt: '2026-03-10T22:15:00Z',
        activityDate: '2026-03-13',
        priority: 'high',
        parentEntity: 'referral',
        parentId: 'ref-3',
        parentCrmId: '006000000000001AAA',
        ownerId: '005000000000002AAA',
      },
    });
  });

  it('news: completed on the day it happened; a missing title is made from the event', () => {
    const value = TIMELINE_ACTIVITY.compute(placed({ ...accepted, title: '' }, false, 'offer'), undefined);
    expect(value.ok && value.value.title).toBe('Offer Acme analytics status changed');
    expect(value.ok && [value.value.open, value.value.activityDate, value.value.priority]).toEqual([false, '2026-03-10', 'normal']);
  });

  it('an event whose record is not in the CRM yet is not mapped, and says why', () => {
    expect(TIMELINE_ACTIVITY.compute(placed(accepted, false, 'offer', { parentCrmId: undefined }), undefined)).toEqual({ ok: false, reason: 'its offer offer-7 is not in the CRM yet; the event is written once it is' });
  });
});

describe('Salesforce Task', () => {
  it('an action item: Not Started with its due date, on the record, owned by its owner, keyed by the event', () => {
    expect(timelineToTask.map(placed(rejected, true, 'referral'), undefined)).toEqual({
      ok: true,
      record: {
        object: 'Task',
        externalIdField: 'Commerce_Event_Id__c',
        externalId: 'evt-0000043',
        fields: {
          Subject: 'Referral rejected by partner: Acme co-sell',
          Description: 'cloudA rejected referral Acme co-sell (ref-3): duplicate of an existing opportunity.',
          Status: 'Not Started',
          ActivityDate: '2026-03-13',
          Priority: 'High',
          WhatId: '006000000000001AAA',
          OwnerId: '005000000000002AAA',
        },
      },
    });
    expect(timelineToTask.createOnly).toEqual(['Status', 'ActivityDate', 'OwnerId']);
  });

  it('news: Completed on its day; a record without an owner leaves OwnerId out; a long title is cut to 255', () => {
    const result = timelineToTask.map(placed({ ...accepted, title: 'x'.repeat(300) }, false, 'offer', { ownerId: undefined }), undefined);
    expect(result.ok && result.record.fields).toEqual({
      Subject: `${'x'.repeat(254)}…`,
      Description: 'The buyer accepted offer Acme analytics (offer-7).',
      Status: 'Completed',
      ActivityDate: '2026-03-10',
      Priority: 'Normal',
      WhatId: '006000000000001AAA',
    });
  });
});
