// The web console's routes, answered by the admin server once a request is signed in: the pages, the
// forms (retry, backfill, sign out; each checked against the session's CSRF token) and the progress of a
// running backfill as JSON for the page's script. Reads and actions go through ops/, as the CLI's do.
import { alertRouteViews } from './alerts-section.ts';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type pg from 'pg';
import { progressView, type Reading } from '../../ops/backfill-progress.ts';
import { liveCommerceQuotas } from '../../ops/commerce-quota.ts';
import { readConnectionHealth } from '../../ops/connection-health.ts';
import { cosellQueue } from '../../ops/cosell-queue.ts';
import { openDeadLetters } from '../../ops/dead-letter-view.ts';
import { mappingInEffect } from '../../ops/mapping-view.ts';
import { retryDeadLetters } from '../../ops/retry-dead-letters.ts';
import { runHistory } from '../../ops/run-history.ts';
import { ENTITIES, type Entity } from '../../mappings/types.ts';
import type { Connection, ConnectionStore } from '../../store/connections.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { readProgress, startBackfill } from '../../temporal/sync-schedules.ts';
import { schedulePause } from '../../ops/schedule-pause.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { roleIncludes } from '../permissions.ts';
import { mappingRoute } from './mapping-routes.ts';
import { auditRoute } from './audit-page.ts';
import { recordRequestAudit } from './audit-record.ts';
import { connectionPage, connectionsPage, mappingPage, messagePage, type PageContext } from './pages.ts';
import type { Session } from './sessions.ts';

export type ConsoleDeps = {
  pool: pg.Pool;
  connections: ConnectionStore;
  temporal: () => Promise<Client>;
  taskQueue: string;
};

type Reply = { status: number; headers?: Record<string, string>; body: string; type?: string };

const page = (body: string, status = 200): Reply => ({ status, body, type: 'text/html; charset=utf-8' });
const json = (data: unknown, status = 200): Reply => ({ status, body: JSON.stringify(data), type: 'application/json; charset=utf-8' });
const redirect = (to: string): Reply => ({ status: 303, headers: { location: to }, body: '' });

// Where each watched backfill's rate is measured from (bounded: old watches are forgotten).
const watchStarts = new Map<string, Reading>();

function scheduleState(deps: ConsoleDeps) {
  return async (connectionId: string) => {
    try {
      return await schedulePause(await deps.temporal(), connectionId);
    } catch {
      return undefined; // Temporal not reachable: the pause shows as unknown
    }
  };
}

async function runningBackfills(deps: ConsoleDeps, connectionId: string): Promise<string[]> {
  try {
    const client = await deps.temporal();
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPES.backfill}' AND ExecutionStatus = 'Running'` })) {
      if (execution.workflowId.startsWith(`backfill-${connectionId}-`)) ids.push(execution.workflowId);
    }
    return ids;
  } catch {
    return []; // Temporal's visibility unavailable: the form still works
  }
}

async function health(deps: ConsoleDeps, only?: Connection) {
  const all = await deps.connections.list();
  const chosen = only ? all.filter((connection) => connection.id === only.id) : all;
  return readConnectionHealth(deps.pool, chosen, { scheduleState: scheduleState(deps), all, commerceQuota: liveCommerceQuotas(deps.connections) });
}

/** Which dead letters the connection page shows: ?entity= and ?page= (a page of LETTERS_PER_PAGE, newest first). */
export type LettersShown = { entity?: string; page: number };

const LETTERS_PER_PAGE = 50;

function lettersShown(url: URL): LettersShown {
  const page = Number(url.searchParams.get('page'));
  // A page that is not a whole number from 1 (a mistyped or old link) shows the first.
  return { entity: url.searchParams.get('entity') || undefined, page: Number.isSafeInteger(page) && page >= 1 ? page : 1 };
}

async function connectionPageReply(deps: ConsoleDeps, context: PageContext, connection: Connection, shown: LettersShown, watch?: string): Promise<Reply> {
  const settings = connectionSettingsSchema.parse(connection.settings);
  const [[entry], runs, letters, cosell, backfills] = await Promise.all([
    health(deps, connection),
    runHistory(deps.pool, connection.id, 50),
    // Payloads only for the page's rows: the row's details show them.
    openDeadLetters(deps.pool, connection.id, { entity: shown.entity, page: shown.page, limit: LETTERS_PER_PAGE, withPayload: true }),
    cosellQueue(deps.pool, connection.id),
    runningBackfills(deps, connection.id),
  ]);
  const alerts = await alertRouteViews(deps.pool, connection.id);
  const watched = watch && watch.startsWith(`backfill-${connection.id}-`) ? watch : undefined;
  return page(connectionPage(context, { health: entry!, runs, letters, lettersEntity: shown.entity, cosell, entities: settings.entities, backfills, watch: watched, alerts }));
}

function localTime(value: string | null): string | undefined {
  if (!value) return undefined;
  const parsed = new Date(/Z|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`); // datetime-local has no zone: UTC, as the label says
  if (Number.isNaN(parsed.getTime())) throw new Error(`"${value}" is not a date and time`);
  return parsed.toISOString();
}

/** Answers a signed-in request, or undefined when no console route matches. */
export async function consoleRoute(deps: ConsoleDeps, session: Session, method: string, url: URL, form: URLSearchParams | undefined): Promise<Reply | undefined> {
  const context: PageContext = { csrf: session.csrf, flash: session.flash, who: session.identity };
  const path = url.pathname;
  if (method === 'GET' && path === '/') {
    session.flash = undefined;
    return page(connectionsPage(context, await health(deps)));
  }
  const mappingReply = await mappingRoute(deps, session, method, url, form); // the mapping editor: admin/console/mapping-routes.ts
  if (mappingReply) return mappingReply;
  const auditReply = await auditRoute(deps, session, method, url); // the audit trail: admin/console/audit-page.ts
  if (auditReply) return auditReply;
  const match = /^\/(api\/)?connections\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) return undefined;
  const [, api, rawId, rest = ''] = match;
  const connection = await deps.connections.get(decodeURIComponent(rawId!));
  if (!connection) return api ? json({ error: 'No such connection' }, 404) : page(messagePage(context, 'Not found', 'There is no such connection.'), 404);
  const here = `/connections/${encodeURIComponent(connection.id)}`;

  if (!api && method === 'GET' && rest === '') {
    session.flash = undefined;
    return connectionPageReply(deps, context, connection, lettersShown(url), url.searchParams.get('backfill') ?? undefined);
  }
  if (!api && method === 'GET' && rest === '/mapping') {
    return page(mappingPage(context, connection.name, connection.id, mappingInEffect(connectionSettingsSchema.parse(connection.settings))));
  }
  // The page's form, or a script's POST /api/connections/<id>/retry (answered with the outcome as JSON).
  if (method === 'POST' && rest === '/retry') {
    const entity = form?.get('entity') || undefined;
    const id = form?.get('id') || undefined;
    const outcome = await retryDeadLetters(deps.pool, deps.temporal, connection, { entity, sourceIds: id ? [id] : undefined });
    // A retry that found no letter changed nothing, so it is not an audit event.
    if (outcome.due > 0) {
      const detail = { due: outcome.due, hadUsedAllAttempts: outcome.hadUsedAllAttempts, syncStarted: outcome.syncStarted };
      await recordRequestAudit(deps.pool, session, { action: 'retry', connectionId: connection.id, target: [entity, id].filter(Boolean).join(' ') || undefined, detail });
    }
    if (api) return json(outcome);
    session.flash = outcome.message;
    return redirect(`${here}#dead-letters`);
  }
  if (!api && method === 'POST' && rest === '/backfill') {
    // The permission table goes by path, and an operator may start backfills; forgetting the links makes
    // the backfill rewrite every record in the CRM, so that option alone needs an admin.
    if (form?.get('forgetLinks') === 'yes' && !roleIncludes(session.identity.role, 'admin')) {
      const who = session.identity.via === 'oidc' ? session.identity.person.name : 'the admin token';
      return page(messagePage(context, 'Not allowed', `Writing every record again (forgetting which were written) needs the admin role; ${who} has the ${session.identity.role} role.`), 403);
    }
    const settings = connectionSettingsSchema.parse(connection.settings);
    const chosen = (form?.getAll('entities') ?? []).filter((entity): entity is Entity => (ENTITIES as readonly string[]).includes(entity));
    let from: string | undefined;
    let to: string | undefined;
    try {
      from = localTime(form?.get('from') || null);
      to = localTime(form?.get('to') || null);
    } catch (error) {
      session.flash = `The backfill was not started: ${(error as Error).message}`;
      return redirect(`${here}#backfill`);
    }
    const request = { connectionId: connection.id, entities: chosen.length ? chosen : settings.entities, from, to, forgetLinks: form?.get('forgetLinks') === 'yes' };
    const handle = await startBackfill(await deps.temporal(), deps.taskQueue, request);
    const { connectionId: _id, entities, ...asked } = request;
    await recordRequestAudit(deps.pool, session, { action: 'backfill', connectionId: connection.id, target: entities.join(','), detail: { workflowId: handle.workflowId, ...asked } });
    session.flash = `Backfill ${handle.workflowId} is running; its progress shows below (it goes on if you leave this page).`;
    return redirect(`${here}?backfill=${encodeURIComponent(handle.workflowId)}#backfill`);
  }
  const progress = /^\/backfills\/([^/]+)$/.exec(rest);
  if (api && method === 'GET' && progress) {
    const workflowId = decodeURIComponent(progress[1]!);
    if (!workflowId.startsWith(`backfill-${connection.id}-`)) return json({ error: 'Not a backfill of this connection' }, 404);
    const handle = (await deps.temporal()).workflow.getHandle(workflowId);
    try {
      const [described, state] = await Promise.all([handle.describe(), readProgress(handle)]);
      if (watchStarts.size > 200) watchStarts.clear();
      const first = watchStarts.get(workflowId) ?? { at: Date.now(), records: state.totals.records };
      watchStarts.set(workflowId, first);
      return json({ workflowId, status: described.status.name, ...progressView(state, Date.now(), first) });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return json({ error: 'No such backfill' }, 404);
      throw error;
    }
  }
  return undefined;
}
