// alert_deliveries: one row per route and event. Read events are queued 'pending' (a second read of the
// same event finds its row and queues nothing); a delivery claims its rows ('sending', with its claim)
// before it sends and marks them 'sent' after, so one event is sent once. A retry of the same delivery
// carries the same claim and may take its rows again. The one window left: a worker that dies after the
// service took the message and before 'sent' is written; Temporal retries that delivery and the message
// goes out a second time. Rows claimed by a run that ended without marking them stay 'sending' and are
// not sent again (at most once wins over at least once there).
import type pg from 'pg';
import type { NotificationEvent } from '../commerce/models.ts';

type Queryable = pg.Pool | pg.PoolClient;

export type QueuedDelivery = { routeId: string; event: NotificationEvent };

export function createAlertDeliveryStore(pool: pg.Pool) {
  return {
    /** Queues each (route, event) not seen before; the number queued. */
    async enqueue(connectionId: string, deliveries: QueuedDelivery[], client: Queryable = pool): Promise<number> {
      if (deliveries.length === 0) return 0;
      const result = await client.query(
        `INSERT INTO alert_deliveries (route_id, event_id, connection_id, status, event)
         SELECT r, e, $1, 'pending', j::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS t(r, e, j)
         ON CONFLICT (route_id, event_id) DO NOTHING`,
        [connectionId, deliveries.map((d) => d.routeId), deliveries.map((d) => d.event.eventID), deliveries.map((d) => JSON.stringify(d.event))],
      );
      return result.rowCount ?? 0;
    },

    /** Events waiting per route of the connection, oldest first (at most `limit` per route). */
    async pending(connectionId: string, limit: number): Promise<Map<string, { count: number; eventIds: string[] }>> {
      const result = await pool.query(
        `SELECT route_id, count(*)::int AS count, (array_agg(event_id ORDER BY created_at, event_id))[1:$2] AS ids
         FROM alert_deliveries WHERE connection_id = $1 AND status = 'pending' GROUP BY route_id`,
        [connectionId, limit],
      );
      return new Map(result.rows.map((row) => [row.route_id, { count: row.count, eventIds: row.ids }]));
    },

    /** Takes one event for a delivery: its event, or undefined when it was sent or is another delivery's. */
    async claim(routeId: string, eventId: string, claim: string): Promise<NotificationEvent | undefined> {
      const result = await pool.query(
        `UPDATE alert_deliveries SET status = 'sending', claim = $3
         WHERE route_id = $1 AND event_id = $2 AND (status = 'pending' OR (status = 'sending' AND claim = $3)) RETURNING event`,
        [routeId, eventId, claim],
      );
      return result.rows[0]?.event;
    },

    /** Takes every waiting event of a route for one digest (and those this digest took before a retry). */
    async claimAll(routeId: string, claim: string): Promise<NotificationEvent[]> {
      const result = await pool.query(
        `UPDATE alert_deliveries SET status = 'sending', claim = $2, digest = $2
         WHERE route_id = $1 AND (status = 'pending' OR (status = 'sending' AND claim = $2)) RETURNING event, created_at`,
        [routeId, claim],
      );
      return result.rows.sort((a, b) => a.created_at - b.created_at || String(a.event.eventID).localeCompare(String(b.event.eventID))).map((row) => row.event);
    },

    async markSent(routeId: string, claim: string): Promise<number> {
      const result = await pool.query(`UPDATE alert_deliveries SET status = 'sent', sent_at = now() WHERE route_id = $1 AND claim = $2 AND status = 'sending'`, [routeId, claim]);
      return result.rowCount ?? 0;
    },

    async markFailed(routeId: string, claim: string, reason: string): Promise<string[]> {
      const result = await pool.query(`UPDATE alert_deliveries SET status = 'failed', last_error = $3 WHERE route_id = $1 AND claim = $2 AND status = 'sending' RETURNING event_id`, [routeId, claim, reason]);
      return result.rows.map((row) => row.event_id);
    },

    async counts(routeId: string): Promise<Record<string, number>> {
      const result = await pool.query(`SELECT status, count(*)::int AS count FROM alert_deliveries WHERE route_id = $1 GROUP BY status`, [routeId]);
      return Object.fromEntries(result.rows.map((row) => [row.status, row.count]));
    },
  };
}

export type AlertDeliveryStore = ReturnType<typeof createAlertDeliveryStore>;
