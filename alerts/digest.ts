// A storm (a backfill, a burst of changes) is one message, not one per event: how many events of each
// type, and the first few by name. A route gets a digest when more than STORM_THRESHOLD of its events
// wait at once.
import type { NotificationEvent } from '../commerce/models.ts';
import { eventType, type AlertMessage } from './message.ts';

export const STORM_THRESHOLD = 20;
/** How many events a digest names one by one. */
const NAMED = 10;

export function digestMessage(events: NotificationEvent[], consoleUrl?: string): AlertMessage {
  const byType = new Map<string, number>();
  for (const event of events) byType.set(eventType(event), (byType.get(eventType(event)) ?? 0) + 1);
  const facts = [...byType].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([type, count]) => ({ name: type, value: count.toLocaleString('en-US') }));
  const named = events.slice(0, NAMED).map((event) => `• ${event.title?.trim() || eventType(event)}: ${event.entityName ?? event.entityID ?? 'unnamed'}`);
  const more = events.length > NAMED ? [`… and ${(events.length - NAMED).toLocaleString('en-US')} more`] : [];
  return {
    title: `${events.length.toLocaleString('en-US')} marketplace events at once (a digest instead of one message each)`,
    body: [...named, ...more].join('\n'),
    facts,
    links: consoleUrl ? [{ label: 'Open in the console', url: consoleUrl }] : [],
  };
}
