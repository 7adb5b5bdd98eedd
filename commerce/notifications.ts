// Notification event envelopes (§6). A missing or 0 version means version 1; an envelope of any other
// version is not understood by this client, so it is set aside for redelivery (§6.3) — never dropped,
// never half-read. Audit-only events (no channels, requireAudit) reach the activity timeline only.
import type { NotificationEvent } from './models.ts';

export const SUPPORTED_EVENT_VERSIONS = new Set([1]);

export function eventVersion(event: Pick<NotificationEvent, 'version'>): number {
  return event.version === undefined || event.version === null || event.version === 0 ? 1 : Number(event.version);
}

export type EventVerdict = { accepted: true; event: NotificationEvent; auditOnly: boolean } | { accepted: false; event: NotificationEvent; reason: string };

export function classifyEvent(event: NotificationEvent): EventVerdict {
  const version = eventVersion(event);
  if (!SUPPORTED_EVENT_VERSIONS.has(version)) {
    return { accepted: false, event, reason: `notification event ${event.eventID} has envelope version ${String(event.version)}, which this worker does not understand; left for redelivery` };
  }
  return { accepted: true, event, auditOnly: isAuditOnly(event) };
}

export function isAuditOnly(event: Pick<NotificationEvent, 'channels' | 'requireAudit'>): boolean {
  return (event.channels ?? []).length === 0 && event.requireAudit === true;
}
