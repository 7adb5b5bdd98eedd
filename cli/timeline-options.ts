// The timeline setting's flags (`crm-sync edit --timeline-events/--timeline-open-tasks`): checked while
// the command line is read, against the connection settings' own rule for an event type, so a wrong
// value exits 2 with one line naming the flag (option-parsers.ts).
import { InvalidArgumentError } from 'commander';
import { timelineSettingsSchema } from '../sync/connection-settings.ts';

const EXAMPLE = 'such as OFFER, OFFER:STATUS_CHANGED or OFFER:STATUS_CHANGED:ACCEPTED';
const typeRule = timelineSettingsSchema.shape.openTasksFor;

/** Comma-separated event types, each as the settings take it (ENTITYTYPE[:ACTION[:STATUS]], any case). */
function eventTypes(value: string, alternatives: string): string[] {
  const types = value.split(',').map((type) => type.trim()).filter(Boolean);
  if (types.length === 0) throw new InvalidArgumentError(`no event type given; give ${alternatives}, or event types ${EXAMPLE}, comma-separated`);
  const wrong = types.filter((type) => !typeRule.safeParse([type]).success);
  if (wrong.length) throw new InvalidArgumentError(`${wrong.map((type) => JSON.stringify(type)).join(', ')} ${wrong.length > 1 ? 'are not event types' : 'is not an event type'}; give ${alternatives}, or event types ${EXAMPLE}, comma-separated`);
  return types;
}

/** `--timeline-events`: `default` (every business event, audit-only ones never) or the event types to write. */
export function timelineEvents(value: string): 'default' | string[] {
  return value.trim() === 'default' ? 'default' : eventTypes(value, 'default');
}

/** `--timeline-open-tasks`: `action-items` (events marked isActionItem), `none`, or the event types that become open tasks. */
export function timelineOpenTasks(value: string): 'action-items' | string[] {
  if (value.trim() === 'action-items') return 'action-items';
  if (value.trim() === 'none') return [];
  return eventTypes(value, 'action-items, none');
}
