// The demo connections' alert routes (issue #27 acceptance): each demo connection sends its offer and
// referral events to the demo's Slack-style receiver and its entitlement and buyer events to the
// Teams-style one (demo-alerts-receiver.ts), which print them on the demo's output. They are ordinary
// routes, made through the routes store and sealed like any other (the local URL is no secret, but a
// route is a route). The receiver gets a new port on each start, so the demo's own routes (told apart
// by the receiver's loopback paths) are replaced when their URL moved; routes a person added to a demo
// connection are left alone.
import type pg from 'pg';
import type { Logger } from '../config/logger.ts';
import { createAlertRouteStore, type AlertRoute, type Destination } from '../alerts/routes-store.ts';
import type { SecretBox } from '../store/secret-box.ts';
import { withTransaction } from '../store/transaction.ts';
import { DEMO_ALERT_PATHS, type DemoAlertKind } from './demo-alerts-receiver.ts';

/** Which events each receiver takes: offers and referrals (action items among them) to Slack, the rest of the business to Teams. */
export const DEMO_ALERT_EVENTS: Record<DemoAlertKind, string[]> = {
  slack: ['OFFER.*', 'REFERRAL.*'],
  teams: ['ENTITLEMENT.*', 'BUYER.*'],
};

/** A route made by a demo: a Slack or Teams webhook on loopback at one of the receiver's paths. */
function demoKind(destination: Destination): DemoAlertKind | undefined {
  if (destination.kind !== 'slack' && destination.kind !== 'teams') return undefined;
  try {
    const url = new URL(destination.url);
    return url.hostname === '127.0.0.1' && url.pathname === DEMO_ALERT_PATHS[destination.kind] ? destination.kind : undefined;
  } catch {
    return undefined;
  }
}

/** Makes (or re-points) the connection's demo routes at `urls`; safe to repeat on every start. */
export async function ensureDemoAlertRoutes(pool: pg.Pool, box: SecretBox, connectionId: string, urls: Record<DemoAlertKind, string>, logger: Logger): Promise<void> {
  const routes = createAlertRouteStore(pool, box);
  const ours: (AlertRoute & { url: string })[] = [];
  for (const route of await routes.list(connectionId)) {
    const opened = await routes.getWithDestination(route.id);
    const kind = opened && demoKind(opened.destination);
    if (kind) ours.push({ ...route, url: (opened.destination as { url: string }).url });
  }
  const current = (kind: DemoAlertKind) => ours.some((route) => route.kind === kind && route.url === urls[kind] && route.eventTypes.join() === DEMO_ALERT_EVENTS[kind].join());
  const kinds = Object.keys(DEMO_ALERT_PATHS) as DemoAlertKind[];
  if (ours.length === kinds.length && kinds.every(current)) return;
  // One transaction: the connection always has routes, so the alerts' feed position is kept across the swap
  // (a connection with no route drops it, and its next route would start at the feed's end).
  // Not in the audit trail: the demo's own plumbing, replaced on each start, is not a person's change.
  await withTransaction(pool, async (tx) => {
    for (const route of ours) await routes.remove(connectionId, route.id, tx);
    for (const kind of kinds) await routes.add({ connectionId, eventTypes: DEMO_ALERT_EVENTS[kind], destination: { kind, url: urls[kind] } }, tx);
  });
  logger.debug({ connectionId, routes: DEMO_ALERT_EVENTS }, 'Demo alert routes point at the local receiver');
}
