// Notification events (§2.8, A8): one builder for every event the sandbox emits, and the history of
// events behind the generated records (a CREATED event at creation, often a later one at lastUpdateTime).
import type { Random } from '../prng.ts';
import type { NotificationEvent } from '../types.ts';
import { recordId } from './common.ts';

export type EventInput = {
  action: string;
  entityType: string;
  entityID: string;
  entityName: string;
  entityStatus?: string;
  partner?: string;
  contactIds?: readonly string[];
  timestamp: string;
  info?: Record<string, unknown>;
  createdBySource?: string;
};

/** How an event is delivered; drawn from a PRNG for generated and driven changes, fixed for API writes. */
export type EventDelivery = {
  channels: readonly string[];
  requireAudit: boolean;
  priority: string;
  isActionItem: boolean;
  trackEvents: readonly Record<string, unknown>[];
};

// Events are never edited once emitted, so the empty and constant parts are shared, frozen values:
// a 10,000-entitlement data set holds some 45,000 events and this keeps generation fast.
const NONE: readonly never[] = Object.freeze([]);
const EMPTY = Object.freeze({});
const SYSTEM_AUTHOR = Object.freeze({ email: 'system@sandbox-seller.example.com', entityId: 'system', entityType: 'SYSTEM', name: 'Sandbox' });
const CHANNEL_CHOICES = [[Object.freeze(['EMAIL']), 70], [Object.freeze(['SLACK', 'EMAIL']), 15], [NONE, 15]] as const;

export const DEFAULT_DELIVERY: EventDelivery = { channels: ['EMAIL'], requireAudit: true, priority: 'MEDIUM', isActionItem: false, trackEvents: [] };

const VERB: Record<string, string> = { CREATED: 'created', UPDATED: 'updated', STATUS_CHANGED: 'changed status', DELETED: 'deleted', RENEWED: 'renewed' };
const LABEL: Record<string, string> = { BUYER: 'Buyer', CONTACT: 'Contact', OFFER: 'Offer', ENTITLEMENT: 'Entitlement', REFERRAL: 'Referral', PRODUCT: 'Product', INTEGRATION: 'Integration' };

export const eventId = (n: number) => recordId('evt', n, 7);

export function buildEvent(organizationId: string, eventID: string, version: number | undefined, input: EventInput, delivery: EventDelivery): NotificationEvent {
  const label = LABEL[input.entityType] ?? input.entityType;
  const verb = VERB[input.action] ?? input.action.toLowerCase();
  const event: NotificationEvent = {
    eventID,
    organizationID: organizationId,
    action: input.action,
    eventStatus: 'SENT',
    entityType: input.entityType,
    entityID: input.entityID,
    entityName: input.entityName,
    priority: delivery.priority,
    title: `${label} ${input.entityName} ${verb}`,
    message: `${label} ${input.entityID} ${verb}${input.entityStatus ? ` (status ${input.entityStatus})` : ''}.`,
    channels: delivery.channels,
    contactIds: input.contactIds && input.contactIds.length > 0 ? Object.freeze([...input.contactIds]) : NONE,
    ccContactIds: NONE,
    contactEmails: NONE,
    isActionItem: delivery.isActionItem,
    requireAudit: delivery.requireAudit,
    customFields: EMPTY,
    info: input.info ?? EMPTY,
    createdBy: SYSTEM_AUTHOR,
    createdBySource: input.createdBySource ?? 'SYSTEM',
    trackEvents: delivery.trackEvents,
    timestamp: input.timestamp,
    lastUpdateTime: input.timestamp,
  };
  if (version !== undefined) event.version = version;
  if (input.entityStatus !== undefined) event.entityStatus = input.entityStatus;
  if (input.partner !== undefined) event.partner = input.partner;
  return event;
}

export function randomDelivery(r: Random, contactIds: readonly string[], timestamp: string): EventDelivery {
  // An empty channel list with requireAudit is an audit-only event (§6.2).
  const channels = r.weighted(CHANNEL_CHOICES);
  const trackEvents = contactIds.length > 0 && r.chance(0.2) ? [{ action: 'OPENED', contactId: contactIds[0], timestamp }] : NONE;
  return {
    channels,
    requireAudit: channels.length === 0 || r.chance(0.5),
    priority: r.weighted([['LOW', 30], ['MEDIUM', 55], ['HIGH', 15]] as const),
    isActionItem: r.chance(0.1),
    trackEvents,
  };
}

export type EventSource = {
  entityType: string;
  id: string;
  name: string;
  status?: string;
  partner?: string;
  contactIds?: readonly string[];
  creationTime: string;
  lastUpdateTime: string;
};

/**
 * The history behind generated records: one event at each record's lastUpdateTime (its latest change),
 * plus a CREATED event for records created in the 30 days before the base time. Sorted by (timestamp,
 * source order) and numbered in that order. Most are version 1; a few say 0 or leave version out,
 * which both mean 1 (§6.3).
 */
export function makeHistory(r: Random, organizationId: string, baseMs: number, sources: readonly EventSource[]): NotificationEvent[] {
  type Pending = { ms: number; order: number; input: EventInput; delivery: EventDelivery; version: number | undefined };
  const pending: Pending[] = [];
  const recentSince = baseMs - 30 * 86_400_000;
  const add = (source: EventSource, action: string, timestamp: string, ms: number, info?: Record<string, unknown>) => {
    const contactIds = source.contactIds ?? NONE;
    pending.push({
      ms,
      order: pending.length,
      input: { action, entityType: source.entityType, entityID: source.id, entityName: source.name, entityStatus: source.status, partner: source.partner, contactIds, timestamp, info },
      delivery: randomDelivery(r, contactIds, timestamp),
      version: r.weighted(VERSION_CHOICES),
    });
  };
  for (const source of sources) {
    const createdMs = Date.parse(source.creationTime);
    const updatedMs = Date.parse(source.lastUpdateTime);
    if (createdMs >= recentSince || updatedMs === createdMs) add(source, 'CREATED', source.creationTime, createdMs);
    if (updatedMs !== createdMs) {
      const action = source.entityType === 'ENTITLEMENT' ? r.pick(ENTITLEMENT_ACTIONS) : r.pick(OTHER_ACTIONS);
      add(source, action, source.lastUpdateTime, updatedMs, action === 'STATUS_CHANGED' && source.status ? { status: source.status } : undefined);
    }
  }
  pending.sort((a, b) => a.ms - b.ms || a.order - b.order);
  return pending.map((p, index) => buildEvent(organizationId, eventId(index + 1), p.version, p.input, p.delivery));
}

const VERSION_CHOICES = [[1, 90], [0, 5], [undefined, 5]] as const;
const ENTITLEMENT_ACTIONS = ['UPDATED', 'STATUS_CHANGED', 'RENEWED'];
const OTHER_ACTIONS = ['UPDATED', 'STATUS_CHANGED'];
