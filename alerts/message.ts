// What an alert says, whatever carries it: what happened (the event's title, or its type), to what (the
// record's name, the buyer, the offer, an amount when the event carries one), and where to look (the
// CRM record, the console). Slack, Teams and email each render this one shape (slack.ts, teams.ts, email.ts).
import type { NotificationEvent } from '../commerce/models.ts';

/** An event's type as routes name it: ENTITYTYPE.ACTION, like OFFER.ACCEPTED. */
export function eventType(event: Pick<NotificationEvent, 'entityType' | 'action'>): string {
  return `${String(event.entityType ?? 'UNKNOWN').toUpperCase()}.${String(event.action ?? 'UNKNOWN').toUpperCase()}`;
}

/** Whether a route's patterns (OFFER.ACCEPTED, OFFER.*, *) take this event type. */
export function typeMatches(patterns: string[], type: string): boolean {
  return patterns.some((pattern) => pattern === '*' || pattern.toUpperCase() === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1).toUpperCase())));
}

/** Audit-only events (no channel, kept for the audit trail) are never alerted (§2.8). */
export function isAuditOnly(event: Pick<NotificationEvent, 'channels' | 'requireAudit'>): boolean {
  return event.requireAudit === true && (!Array.isArray(event.channels) || event.channels.length === 0);
}

/** What the worker found out about the event's record besides the event itself. */
export type AlertContext = {
  buyer?: string;
  offer?: string;
  /** "12,000.00 USD": from the event's customFields.amount (and currency) when it carries one. */
  amount?: string;
  crmUrl?: string;
  consoleUrl?: string;
};

export type AlertMessage = {
  /** One line: the email subject, the card's title, Slack's notification text. */
  title: string;
  /** The event's own message, if any. */
  body?: string;
  facts: { name: string; value: string }[];
  links: { label: string; url: string }[];
};

const WORDS: Record<string, string> = { OFFER: 'Offer', ENTITLEMENT: 'Entitlement', REFERRAL: 'Referral', BUYER: 'Buyer', CONTACT: 'Contact' };

function titleCase(text: string): string {
  return text.toLowerCase().replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** The amount an event carries in customFields (amount, currency), as a person reads it. */
export function eventAmount(event: NotificationEvent): string | undefined {
  const fields = event.customFields as { amount?: unknown; currency?: unknown } | undefined;
  const value = typeof fields?.amount === 'number' ? fields.amount : typeof fields?.amount === 'string' && fields.amount.trim() !== '' ? Number(fields.amount) : undefined;
  if (value === undefined || !Number.isFinite(value)) return undefined;
  const currency = typeof fields?.currency === 'string' ? ` ${fields.currency}` : '';
  return `${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}${currency}`;
}

export function alertMessage(event: NotificationEvent, context: AlertContext = {}): AlertMessage {
  const what = WORDS[String(event.entityType ?? '').toUpperCase()] ?? titleCase(String(event.entityType ?? 'Record'));
  const name = event.entityName ?? event.entityID ?? 'unnamed';
  const happened = event.title?.trim() || `${what} ${titleCase(String(event.action ?? 'changed'))}`;
  const facts: AlertMessage['facts'] = [{ name: what, value: name }];
  if (context.offer && what !== 'Offer') facts.push({ name: 'Offer', value: context.offer });
  if (context.buyer) facts.push({ name: 'Buyer', value: context.buyer });
  const amount = context.amount ?? eventAmount(event);
  if (amount) facts.push({ name: 'Amount', value: amount });
  if (event.entityStatus) facts.push({ name: 'Status', value: String(event.entityStatus) });
  if (event.partner) facts.push({ name: 'Marketplace', value: String(event.partner) });
  facts.push({ name: 'Event', value: eventType(event) });
  if (event.isActionItem) facts.push({ name: 'Action item', value: 'yes' });
  const links: AlertMessage['links'] = [];
  if (context.crmUrl) links.push({ label: 'Open in the CRM', url: context.crmUrl });
  if (context.consoleUrl) links.push({ label: 'Open in the console', url: context.consoleUrl });
  // A service's title often names the record already ("Usage reported: Harbor Containers for Acme Bank"): not twice.
  const title = happened.toLowerCase().includes(String(name).toLowerCase()) ? happened : `${happened}: ${name}`;
  return { title, ...(event.message?.trim() && { body: event.message.trim() }), facts, links };
}
