// Notification events (§2.9, A5: limit/offset, nextOffset absent at the end, totalCount only for
// offset 0) and auditing events (the events stored with requireAudit, §2.8) as a query endpoint.
import { badRequest } from '../errors.ts';
import { asInstant } from '../fields.ts';
import { listPaging, runQuery } from '../paging.ts';
import { compareIds } from '../store.ts';
import type { NotificationEvent } from '../types.ts';
import { ok, type HandlerTable, type Reply } from './common.ts';

function eventPage(events: readonly NotificationEvent[], query: URLSearchParams): Reply {
  const page = listPaging(query);
  const entityType = query.get('entityType');
  const since = query.get('since');
  let sinceMs: number | undefined;
  if (since !== null && since !== '') {
    sinceMs = asInstant(since);
    if (sinceMs === undefined) throw badRequest(`since must be an ISO 8601 date-time, got ${JSON.stringify(since)}`, { parameter: 'since' });
  }
  let rows = events;
  if (entityType) rows = rows.filter((event) => event.entityType === entityType.toUpperCase());
  // An (injected) event whose lastUpdateTime is not a date-time is never "since" anything.
  if (sinceMs !== undefined) rows = rows.filter((event) => typeof event.lastUpdateTime === 'string' && (asInstant(event.lastUpdateTime) ?? Number.NaN) >= sinceMs);
  const slice = rows.slice(page.offset, page.offset + page.limit);
  const body: { notificationEvents: NotificationEvent[]; nextOffset?: number; totalCount?: number } = { notificationEvents: slice };
  const end = page.offset + slice.length;
  if (end < rows.length) body.nextOffset = end;
  if (page.offset === 0) body.totalCount = rows.length;
  return ok(body);
}

/** An auditing event row: the audited parts of a notification event, with `id` = eventID. */
function auditRow(event: NotificationEvent) {
  const { eventID, organizationID, action, entityType, entityID, entityName, entityStatus, partner, priority, title, message, createdBy, createdBySource, timestamp, lastUpdateTime } = event;
  return { id: eventID, eventID, organizationID, action, entityType, entityID, entityName, entityStatus, partner, priority, title, message, createdBy, createdBySource, timestamp, lastUpdateTime };
}

export const eventHandlers: HandlerTable = {
  'GET /org/{orgId}/notificationEvent': ({ state, query }) => eventPage(state.store.events.rows, query),

  'GET /org/{orgId}/notificationEvent/{entityType}/{entityId}': ({ state, params, query }) =>
    eventPage(state.store.events.forEntity(params.entityType!, params.entityId!), query),

  'GET /org/{orgId}/auditingEvent/query': ({ state, query }) => {
    const rows = state.store.events.rows.filter((event) => event.requireAudit).map(auditRow);
    rows.sort((a, b) => compareIds(a.id, b.id));
    return ok(runQuery(rows, query, state.settings.totalCountCap));
  },
};
