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
  const said = describeEvent(input);
  const actionItem = delivery.isActionItem || said.actionItem;
  // A metaInfo update (an integration's bookkeeping, such as CRM ids written back) is kept for the audit
  // trail and delivered to nobody: an audit-only event (§6.2).
  const auditOnly = (input.info as { changed?: unknown } | undefined)?.changed === 'metaInfo';
  const event: NotificationEvent = {
    eventID,
    organizationID: organizationId,
    action: input.action,
    eventStatus: 'SENT',
    entityType: input.entityType,
    entityID: input.entityID,
    entityName: input.entityName,
    priority: said.priority ?? delivery.priority,
    title: said.title,
    message: said.message,
    // Someone has to act on an action item: it is always delivered, never audit-only.
    channels: auditOnly ? NONE : actionItem && delivery.channels.length === 0 ? ACTION_CHANNELS : delivery.channels,
    contactIds: input.contactIds && input.contactIds.length > 0 ? Object.freeze([...input.contactIds]) : NONE,
    ccContactIds: NONE,
    contactEmails: NONE,
    isActionItem: actionItem,
    requireAudit: auditOnly || delivery.requireAudit,
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

const ACTION_CHANNELS = Object.freeze(['EMAIL']);

type Said = { title: string; message: string; actionItem: boolean; priority?: string };

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
const day = (value: unknown) => (typeof value === 'string' ? value.slice(0, 10) : undefined);

/**
 * What a seller reads for an event (§2.8: title is the email subject or action item title, message its
 * body): the marketplace's wording for the change, naming the record. An action item (isActionItem) is
 * a change someone has to act on: an expired or failed offer, a cancelled or suspended entitlement, a
 * failed usage report, a referral the partner rejected or sent in for review.
 */
export function describeEvent(input: EventInput): Said {
  const name = input.entityName || input.entityID;
  const status = input.entityStatus;
  const info = (input.info ?? {}) as Record<string, unknown>;
  const partner = input.partner ? ` (${input.partner})` : '';
  const news = (title: string, message: string): Said => ({ title, message, actionItem: false });
  const act = (title: string, message: string, priority = 'HIGH'): Said => ({ title, message, actionItem: true, priority });
  switch (input.entityType) {
    case 'OFFER':
      if (input.action === 'CREATED' && info.subStatus === 'DRAFT') return news(`Draft offer saved: ${name}`, `Draft offer ${name} (${input.entityID}) was saved${partner}; it reaches the buyer once it is published.`);
      if (info.changed === 'published') return news(`Offer published: ${name}`, `Draft offer ${name} (${input.entityID}) was published${partner}; the marketplace creates it and sends it to the buyer.`);
      if (input.action === 'CREATED') return news(`Private offer created: ${name}`, `Private offer ${name} (${input.entityID}) was created${partner}, in status ${status ?? 'PENDING_CREATE'}.`);
      if (input.action === 'DELETED') return news(`Offer deleted: ${name}`, `Offer ${name} (${input.entityID}) was deleted.`);
      switch (status) {
        case 'ACCEPTED': return news(`Offer accepted: ${name}`, `The buyer accepted offer ${name} (${input.entityID})${partner}. The agreement starts when the marketplace activates it.`);
        case 'ACTIVE': return news(`Offer active: ${name}`, `Offer ${name} (${input.entityID}) is active on the marketplace${partner}.`);
        case 'USED': return news(`Offer used: ${name}`, `The buyer has used offer ${name} (${input.entityID}); it can no longer be accepted.`);
        case 'PENDING_ACCEPTANCE': return news(`Offer sent to the buyer: ${name}`, `Offer ${name} (${input.entityID}) is published${partner} and waits for the buyer to accept it.`);
        case 'EXPIRED': return act(`Offer expired: ${name}`, `Offer ${name} (${input.entityID}) expired before the buyer accepted it. Extend its expiry date or send a new offer.`);
        case 'PENDING_CANCEL': return act(`Offer pending cancellation: ${name}`, `Offer ${name} (${input.entityID}) is being cancelled${partner}. Tell the buyer before it is withdrawn.`, 'MEDIUM');
        case 'UPDATE_FAILED': return act(`Offer update failed: ${name}`, `The marketplace refused the last change to offer ${name} (${input.entityID}). Correct the offer and publish it again.`);
      }
      return news(`Offer updated: ${name}`, `Offer ${name} (${input.entityID}) was updated${status ? `; its status is ${status}` : ''}.`);
    case 'ENTITLEMENT': {
      const failed = info.usageReportFailed as Record<string, unknown> | undefined;
      if (failed) return act(`Usage report failed: ${name}`, `The marketplace refused the usage of ${text(failed.dimensionKey) ?? 'a dimension'} on ${text(failed.usageDate) ?? 'one day'} for ${name} (${input.entityID}). Retry the usage record group, or the usage is not billed.`);
      if (input.action === 'CREATED') return news(`New entitlement: ${name}`, `The buyer subscribed: entitlement ${name} (${input.entityID})${partner} was created in status ${status ?? 'PENDING'}.`);
      if (input.action === 'RENEWED') return news(`Entitlement renewed: ${name}`, `Entitlement ${name} (${input.entityID}) was renewed${day(info.endTime) ? ` until ${day(info.endTime)}` : ''}.`);
      if (input.action === 'STATUS_CHANGED') {
        if (status === 'CANCELLED') return act(`Entitlement cancelled: ${name}`, `The buyer cancelled entitlement ${name} (${input.entityID})${partner}. Reach out before the access ends.`);
        if (status === 'SUSPENDED') return act(`Entitlement suspended: ${name}`, `Entitlement ${name} (${input.entityID}) was suspended by the marketplace${partner}, usually for an unpaid invoice. Contact the buyer.`);
        if (status === 'EXPIRED') return act(`Entitlement expired: ${name}`, `Entitlement ${name} (${input.entityID}) ended without a renewal. Offer the buyer a renewal.`, 'MEDIUM');
        if (status === 'ACTIVE') return news(`Entitlement active: ${name}`, `Entitlement ${name} (${input.entityID}) is active${partner}.`);
      }
      if (typeof info.reportedAmount === 'number') return news(`Usage reported: ${name}`, `${info.reportedAmount} of usage was reported for entitlement ${name} (${input.entityID}).`);
      if (typeof info.commitAmount === 'number') return news(`Commit raised: ${name}`, `The buyer's commit on entitlement ${name} (${input.entityID}) is now ${info.commitAmount}.`);
      return news(`Entitlement updated: ${name}`, `Entitlement ${name} (${input.entityID}) was updated${status ? `; its status is ${status}` : ''}.`);
    }
    case 'REFERRAL': {
      const reason = text(info.statusReason);
      if (status === 'REJECTED' && info.decidedBy === 'PARTNER') return act(`Referral rejected by partner: ${name}`, `${input.partner ?? 'The partner'} rejected referral ${name} (${input.entityID})${reason ? `: ${reason}` : ''}. Correct it and submit it again, or close the deal.`);
      if (status === 'ACCEPTED' && info.decidedBy === 'PARTNER') return news(`Referral accepted by partner: ${name}`, `${input.partner ?? 'The partner'} accepted referral ${name} (${input.entityID}) and will work the deal with you.`);
      if (input.action === 'CREATED' && info.changedBy === 'PARTNER') return act(`Inbound referral from ${input.partner ?? 'a partner'}: ${name}`, `${input.partner ?? 'A partner'} sent referral ${name} (${input.entityID}). Accept or reject it.`, 'MEDIUM');
      if (input.action === 'CREATED') return news(`Referral created: ${name}`, `Referral ${name} (${input.entityID}) was created${partner}.`);
      if (info.changedBy === 'PARTNER' && text(info.previousStage)) return news(`Partner moved the referral: ${name}`, `${input.partner ?? 'The partner'} moved referral ${name} (${input.entityID}) from ${text(info.previousStage)}${status === 'CLOSED' ? '; the referral is closed' : ''}.`);
      if (text(info.previousStage)) return news(`Referral stage changed: ${name}`, `Referral ${name} (${input.entityID}) moved on from ${text(info.previousStage)}.`);
      return news(`Referral updated: ${name}`, `Referral ${name} (${input.entityID}) was updated${status ? `; its status is ${status}` : ''}.`);
    }
    case 'PRODUCT':
      if (info.changed === 'price') return news(`Price changed: ${name}`, `The list price of ${text(info.dimensionKey) ?? 'a dimension'} of product ${name} (${input.entityID}) is now ${String(info.pricePerUnit)} ${text(info.currency) ?? ''} per unit (was ${String(info.previousPricePerUnit)}).`);
      if (info.changed === 'dimension') return news(`Dimension added: ${name}`, `Product ${name} (${input.entityID}) now sells ${text(info.dimensionKey) ?? 'a new dimension'}.`);
      break;
    case 'BUYER':
      if (input.action === 'DELETED' || status === 'DELETED') return news(`Buyer removed: ${name}`, `Buyer ${name} (${input.entityID}) was removed from the marketplace.`);
      if (input.action === 'CREATED') return news(`New buyer: ${name}`, `Buyer ${name} (${input.entityID}) joined${partner}.`);
      return news(`Buyer updated: ${name}`, `Buyer ${name} (${input.entityID}) was updated.`);
  }
  const label = LABEL[input.entityType] ?? input.entityType;
  const verb = VERB[input.action] ?? input.action.toLowerCase();
  return news(`${label} ${name} ${verb}`, `${label} ${input.entityID} ${verb}${status ? ` (status ${status})` : ''}.`);
}

export function randomDelivery(r: Random, contactIds: readonly string[], timestamp: string): EventDelivery {
  // An empty channel list with requireAudit is an audit-only event (§6.2).
  const channels = r.weighted(CHANNEL_CHOICES);
  const trackEvents = contactIds.length > 0 && r.chance(0.2) ? [{ action: 'OPENED', contactId: contactIds[0], timestamp }] : NONE;
  const priority = r.weighted([['LOW', 30], ['MEDIUM', 55], ['HIGH', 15]] as const);
  // Drawn so a seed makes the data it always made; whether an event is an action item is its kind's (describeEvent).
  r.chance(0.1);
  return {
    channels,
    requireAudit: channels.length === 0 || r.chance(0.5),
    priority,
    isActionItem: false,
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
