// The connection page's alert routes (issue #27 section 2), read-only: which events go where, as the
// masked hint shows it (never a webhook URL or SMTP password: those columns are not even read), with
// how many alerts were sent, wait, or failed. Changing routes is `crm-sync alerts`.
import type pg from 'pg';
import { html, type Markup } from './html.ts';

export type AlertRouteView = { id: string; events: string[]; marketplaces: string[]; destination: string; hint: string; sent: number; waiting: number; failed: number };

export async function alertRouteViews(pool: pg.Pool, connectionId: string): Promise<AlertRouteView[]> {
  const { rows } = await pool.query(
    `SELECT r.id, r.event_types, r.marketplaces, r.destination_kind, r.hint,
            count(d.*) FILTER (WHERE d.status = 'sent')::int AS sent,
            count(d.*) FILTER (WHERE d.status IN ('pending', 'sending'))::int AS waiting,
            count(d.*) FILTER (WHERE d.status = 'failed')::int AS failed
     FROM alert_routes r LEFT JOIN alert_deliveries d ON d.route_id = r.id
     WHERE r.connection_id = $1 GROUP BY r.id ORDER BY r.created_at, r.id`,
    [connectionId],
  );
  return rows.map((row) => ({ id: row.id, events: row.event_types, marketplaces: row.marketplaces, destination: row.destination_kind, hint: row.hint, sent: row.sent, waiting: row.waiting, failed: row.failed }));
}

const KIND: Record<string, string> = { slack: 'Slack', teams: 'Teams', email: 'Email', 'owner-email': "Record owner's email" };

export function alertsSection(name: string, routes: AlertRouteView[] | undefined): Markup {
  if (!routes) return html``;
  return html`<section aria-labelledby="alerts-title" id="alerts">
  <h2 id="alerts-title">Alerts</h2>
  ${routes.length === 0
    ? html`<p>No alert routes. Add one with <code>crm-sync alerts ${name} --add --events OFFER.ACCEPTED --slack &lt;webhook URL&gt;</code>.</p>`
    : html`<table>
    <thead><tr><th>Route</th><th>Events</th><th>Marketplaces</th><th>Destination</th><th>Where</th><th>Sent</th><th>Waiting</th><th>Failed</th></tr></thead>
    <tbody>${routes.map((route) => html`<tr><td>${route.id}</td><td>${route.events.join(', ')}</td><td>${route.marketplaces.join(', ') || 'all'}</td><td>${KIND[route.destination] ?? route.destination}</td><td>${route.hint}</td><td>${route.sent}</td><td>${route.waiting}</td><td>${route.failed}</td></tr>`)}</tbody>
  </table>
  <p>Failed alerts are in the dead letters above (entity <code>alert</code>), with the service's answer. Change routes with <code>crm-sync alerts ${name}</code>.</p>`}
</section>`;
}
