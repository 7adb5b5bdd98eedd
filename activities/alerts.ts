// Alerts' activities (issue #27 section 2), thin adapters over alerts/: read the notification feed
// from the alerts' own position and queue what each route takes; say what waits (one digest for a
// route with a storm waiting); deliver one alert (or one digest); keep a failed one as a dead letter.
// A destination's secrets are opened here, in the activity, never in workflow inputs or histories.
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { classifyEvent } from '../commerce/index.ts';
import type { NotificationEvent } from '../commerce/models.ts';
import { flowForEvent } from '../flows/index.ts';
import { readEachById } from './refused-reads.ts';
import { createAlertDeliveryStore } from '../alerts/deliveries-store.ts';
import { STORM_THRESHOLD, digestMessage } from '../alerts/digest.ts';
import { alertMessage, eventType, isAuditOnly, typeMatches, type AlertContext, type AlertMessage } from '../alerts/message.ts';
import { ownerEmail, ownerEmailCache } from '../alerts/owner-email.ts';
import { createAlertRouteStore, type AlertRoute, type Destination } from '../alerts/routes-store.ts';
import { AlertSendError } from '../alerts/send-error.ts';
import { sendEmail } from '../alerts/email.ts';
import { sendSlack } from '../alerts/slack.ts';
import { sendTeams } from '../alerts/teams.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createDeadLetterStore } from '../store/dead-letters.ts';
import type { SecretBox } from '../store/secret-box.ts';
import { withTransaction } from '../store/transaction.ts';
import type { ConnectionRuntime, RuntimeFor } from '../sync/runtime.ts';
import { guard } from './failures.ts';

/** The alerts' own position in the notification feed: the sync's position moves on its own. */
export const ALERT_FEED = 'alert-feed';
/** Failed alerts are dead letters of this pseudo-entity. */
export const ALERT_LETTERS = 'alert';
/** What a failed alert's type is called, so the workflow's retry policy stops at once on it. */
export const ALERT_REFUSED = 'AlertRefused';

export type AlertJob = { routeId: string; eventId?: string; digest?: true };

export type AlertActivityDeps = {
  pool: pg.Pool;
  secretBox: SecretBox;
  runtimeFor: RuntimeFor;
  /** The console's address as people reach it (CRM_SYNC_CONSOLE_URL): alerts link to the connection's page. */
  consoleUrl?: string;
  clock?: () => Date;
};

/** Whether a route takes this event: its types, and its marketplaces when it names any. */
export function routeTakes(route: Pick<AlertRoute, 'eventTypes' | 'marketplaces'>, event: NotificationEvent): boolean {
  if (!typeMatches(route.eventTypes, eventType(event))) return false;
  return route.marketplaces.length === 0 || route.marketplaces.some((name) => name.toLowerCase() === String(event.partner ?? '').toLowerCase());
}

export function createAlertActivities(deps: AlertActivityDeps) {
  const routes = createAlertRouteStore(deps.pool, deps.secretBox);
  const deliveries = createAlertDeliveryStore(deps.pool);
  const cursors = createCursorStore(deps.pool);
  const deadLetters = createDeadLetterStore(deps.pool);
  const clock = deps.clock ?? (() => new Date());

  const consoleLink = (connectionId: string) => (deps.consoleUrl ? `${deps.consoleUrl.replace(/\/$/, '')}/connections/${encodeURIComponent(connectionId)}` : undefined);

  /** The CRM record an event concerns, if the sync linked one: its object, id and address. */
  async function crmRecord(rt: ConnectionRuntime, connectionId: string, event: NotificationEvent) {
    const entity = flowForEvent(event.entityType);
    if (!entity || !event.entityID) return undefined;
    const { rows } = await deps.pool.query('SELECT crm_object, crm_id FROM record_links WHERE connection_id = $1 AND entity = $2 AND source_id = $3', [connectionId, entity, event.entityID]);
    if (!rows[0]?.crm_id) return undefined;
    const url = await rt.crm.recordUrl(rows[0].crm_id, rows[0].crm_object).catch(() => undefined);
    return { object: rows[0].crm_object as string, id: rows[0].crm_id as string, url };
  }

  /** The buyer and offer behind the event's record, read from the commerce API; best effort. */
  async function commerceContext(rt: ConnectionRuntime, event: NotificationEvent): Promise<Pick<AlertContext, 'buyer' | 'offer'>> {
    const entity = flowForEvent(event.entityType);
    const org = rt.settings.commerce.organizationId;
    if (!entity || !event.entityID) return {};
    try {
      const [record] = (await readEachById(rt.commerce, org, entity, [event.entityID])).records as { buyerID?: string; offerID?: string }[];
      const name = async (of: 'buyer' | 'offer', id?: string) => (id ? ((await readEachById(rt.commerce, org, of, [id])).records[0] as { name?: string } | undefined)?.name : undefined);
      const [buyer, offer] = await Promise.all([entity === 'buyer' ? undefined : name('buyer', record?.buyerID), entity === 'offer' ? undefined : name('offer', record?.offerID)]);
      return { ...(buyer && { buyer }), ...(offer && { offer }) };
    } catch {
      return {}; // the alert goes out without them rather than not at all
    }
  }

  async function send(destination: Destination, message: AlertMessage, owner?: () => Promise<string | undefined>): Promise<void> {
    switch (destination.kind) {
      case 'slack':
        return sendSlack(destination.url, message);
      case 'teams':
        return sendTeams(destination.url, message);
      case 'email':
        return sendEmail(destination.smtp, destination.to, message);
      case 'owner-email': {
        const to = owner ? await owner() : undefined;
        if (!to) throw new AlertSendError("The record has no owner with an email address in the CRM (or is not in the CRM yet), so there is nobody to send this alert to", { service: 'CRM', permanent: true });
        return sendEmail(destination.smtp, [to], message);
      }
    }
  }

  /** A send error as Temporal should treat it: not retried when refused, after Retry-After on a 429. */
  function asFailure(error: unknown): never {
    if (!(error instanceof AlertSendError)) throw error;
    const { permanent, retryAfterMs, service, status, answer } = error.details;
    throw ApplicationFailure.create({
      type: permanent ? ALERT_REFUSED : 'AlertNotDelivered',
      message: error.message,
      nonRetryable: permanent,
      details: [{ service, status, answer }],
      ...(retryAfterMs !== undefined && !permanent && { nextRetryDelay: Math.max(1, retryAfterMs) }),
    });
  }

  return {
    /**
     * One page of the feed from the alerts' position: each event a route takes is queued once, in the
     * same transaction as the position moves. Without routes the position is dropped, so routes added
     * later start at the feed's end instead of alerting its whole history.
     */
    async readAlertEvents(input: { connectionId: string; limit?: number }): Promise<{ events: number; queued: number; done: boolean }> {
      const all = await routes.list(input.connectionId);
      if (all.length === 0) {
        await deps.pool.query('DELETE FROM sync_cursors WHERE connection_id = $1 AND entity = $2', [input.connectionId, ALERT_FEED]);
        return { events: 0, queued: 0, done: true };
      }
      const rt = await deps.runtimeFor(input.connectionId);
      const org = rt.settings.commerce.organizationId;
      const stored = await cursors.get(input.connectionId, ALERT_FEED);
      if (!stored) {
        const head = await guard(() => rt.commerce.notificationEvents.list(org, { limit: 1, offset: 0 }).next());
        const end = head.done ? 0 : (head.value.totalCount ?? 0);
        await cursors.advance(input.connectionId, ALERT_FEED, { time: clock(), id: String(end).padStart(12, '0') });
        return { events: 0, queued: 0, done: true };
      }
      const offset = Number(stored.id);
      const pages = rt.commerce.notificationEvents.list(org, { limit: input.limit ?? 200, offset });
      const next = await guard(() => pages.next());
      await pages.return(undefined);
      if (next.done) return { events: 0, queued: 0, done: true };
      const page = next.value;
      const wanted = page.records.filter((event) => classifyEvent(event).accepted && !isAuditOnly(event));
      const queue = all.flatMap((route) => wanted.filter((event) => routeTakes(route, event)).map((event) => ({ routeId: route.id, event })));
      const events = page.records.length + page.rejected.length;
      const queued = await withTransaction(deps.pool, async (tx) => {
        const count = await deliveries.enqueue(input.connectionId, queue, tx);
        await cursors.advance(input.connectionId, ALERT_FEED, { time: clock(), id: String(page.nextOffset ?? offset + events).padStart(12, '0') }, tx);
        return count;
      });
      return { events, queued, done: page.nextOffset === undefined };
    },

    /** What waits to be sent: one job per event, or one digest for a route with more than STORM_THRESHOLD waiting. */
    async pendingAlerts(input: { connectionId: string }): Promise<AlertJob[]> {
      const waiting = await deliveries.pending(input.connectionId, STORM_THRESHOLD + 1);
      return [...waiting].flatMap(([routeId, { count, eventIds }]): AlertJob[] => (count > STORM_THRESHOLD ? [{ routeId, digest: true }] : eventIds.map((eventId) => ({ routeId, eventId }))));
    },

    /** Sends one alert (or one digest) once: claimed first, marked sent after. `claim` is the same on each retry. */
    async deliverAlert(input: { connectionId: string; job: AlertJob; claim: string }): Promise<{ sent: number }> {
      const route = await routes.getWithDestination(input.job.routeId);
      if (!route) return { sent: 0 }; // removed meanwhile: its rows went with it
      const rt = await deps.runtimeFor(input.connectionId);
      const consoleUrl = consoleLink(input.connectionId);
      let message: AlertMessage;
      let owner: (() => Promise<string | undefined>) | undefined;
      // Owners' emails are read once per delivery pass: the claim is `<workflow>/<run>/<digest or event id>`.
      const owners = ownerEmailCache(rt.crm, input.claim.slice(0, input.claim.length - (input.job.digest ? 'digest' : input.job.eventId!).length - 1));
      if (input.job.digest) {
        const events = await deliveries.claimAll(route.id, input.claim);
        if (events.length === 0) return { sent: 0 };
        message = digestMessage(events, consoleUrl);
        // A digest goes to the owner of its first record: one message, not one per owner.
        owner = async () => { const record = await crmRecord(rt, input.connectionId, events[0]!); return record ? ownerEmail(rt.crm, rt.crm.kind, record.object, record.id, owners) : undefined; };
      } else {
        const event = await deliveries.claim(route.id, input.job.eventId!, input.claim);
        if (!event) return { sent: 0 }; // sent already, or another delivery holds it
        const record = await crmRecord(rt, input.connectionId, event).catch(() => undefined);
        message = alertMessage(event, { ...(await commerceContext(rt, event)), crmUrl: record?.url, consoleUrl });
        owner = async () => (record ? ownerEmail(rt.crm, rt.crm.kind, record.object, record.id, owners) : undefined);
      }
      try {
        await send(route.destination, message, owner);
      } catch (error) {
        asFailure(error);
      }
      return { sent: await deliveries.markSent(route.id, input.claim) };
    },

    /** An alert that could not be delivered: its rows marked failed, and a dead letter with the service's answer. */
    async recordAlertFailure(input: { connectionId: string; job: AlertJob; claim: string; reason: string; answer?: unknown }): Promise<void> {
      const eventIds = await deliveries.markFailed(input.job.routeId, input.claim, input.reason);
      const sourceId = `${input.job.routeId}:${input.job.digest ? `digest-${input.claim.split('/').at(-1)}` : input.job.eventId}`;
      await deadLetters.record(input.connectionId, ALERT_LETTERS, [{ sourceId, reason: input.reason, crmError: input.answer, payload: { routeId: input.job.routeId, events: eventIds } }]);
    },

    /** `crm-sync alerts --test`: one sample alert to a route, straight away (no queue, no retries). */
    async sendSampleAlert(input: { routeId: string; consoleUrl?: string }): Promise<void> {
      const route = await routes.getWithDestination(input.routeId);
      if (!route) throw new Error(`No alert route ${input.routeId}`);
      const sample: NotificationEvent = { eventID: 'sample', entityType: 'OFFER', action: 'ACCEPTED', entityID: 'offer-sample', entityName: 'Sample offer (a test from crm-sync alerts --test)', title: 'Offer accepted', message: 'This is a test alert: the route works.', partner: 'cloudA', customFields: { amount: 12000, currency: 'USD' } };
      const message = alertMessage(sample, { buyer: 'Sample buyer', consoleUrl: input.consoleUrl ?? deps.consoleUrl });
      await send(route.destination, message, async () => undefined);
    },
  };
}

export type AlertActivities = ReturnType<typeof createAlertActivities>;
