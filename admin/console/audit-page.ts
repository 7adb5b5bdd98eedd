// The console's audit page (issue #26 section 2): GET /audit, newest first, 50 to a page, filtered by
// connection (?connection=, id or name), by who (?actor=, any part of the name) and by action (?action=);
// each settings or mapping change with its before and after as a diff of the values that changed. Anyone
// signed in may read it (a read: the viewer role). Rows hold no secret (store/audit.ts redacts them).
import type pg from 'pg';
import { auditDiff, detailText } from '../../ops/audit-diff.ts';
import { createAuditStore, type AuditEvent } from '../../store/audit.ts';
import type { Connection, ConnectionStore } from '../../store/connections.ts';
import { html, type Markup } from './html.ts';
import { layout, messagePage, type PageContext } from './pages.ts';
import type { Session } from './sessions.ts';

export const AUDIT_PATH = '/audit';
const PER_PAGE = 50;

type Reply = { status: number; body: string; type: string };
type Filter = { connection?: Connection; actor?: string; action?: string; page: number };
type Shown = { total: number; events: AuditEvent[]; names: Map<string, string>; actions: string[]; connections: Connection[] };

const count = (n: number) => n.toLocaleString('en-US');
const when = (value: Date) => new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/** The audit page's link with these filters (and page), the others kept. */
function auditHref(filter: Filter, page: number): string {
  const query = new URLSearchParams();
  if (filter.connection) query.set('connection', filter.connection.id);
  if (filter.actor) query.set('actor', filter.actor);
  if (filter.action) query.set('action', filter.action);
  if (page > 1) query.set('page', String(page));
  const text = query.toString();
  return text ? `${AUDIT_PATH}?${text}` : AUDIT_PATH;
}

function filterForm(filter: Filter, shown: Shown): Markup {
  const actions = filter.action && !shown.actions.includes(filter.action) ? [...shown.actions, filter.action] : shown.actions;
  return html`<form method="get" action="${AUDIT_PATH}" class="filters audit-filters">
  <label>Connection <select name="connection"><option value="">All connections</option>${shown.connections.map(
    (connection) => html`<option value="${connection.id}"${connection.id === filter.connection?.id ? html` selected` : ''}>${connection.name}</option>`,
  )}</select></label>
  <label>Who <input type="search" name="actor" value="${filter.actor ?? ''}" placeholder="a name, an email, token, cli as ..."></label>
  <label>Action <select name="action"><option value="">All actions</option>${actions.map((action) => html`<option value="${action}"${action === filter.action ? html` selected` : ''}>${action}</option>`)}</select></label>
  <button type="submit">Filter</button>
</form>`;
}

/** What a change changed, value by value; else what the action noted (how many retried, which backfill). */
function changes(event: AuditEvent): Markup {
  const noted = event.detail === undefined ? '' : html`<span class="detail">${detailText(event.detail)}</span>`;
  if (event.before === undefined && event.after === undefined) return html`${noted}`;
  const rows = auditDiff(event.before, event.after);
  if (rows.length === 0) return html`<span class="meta">nothing changed</span> ${noted}`;
  return html`<details><summary>${rows.length} value${rows.length === 1 ? '' : 's'} changed</summary>
  <table class="diff"><thead><tr><th scope="col">Setting</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
  <tbody>${rows.map((row) => html`<tr><th scope="row"><code>${row.path}</code></th><td>${row.before === undefined ? html`<span class="meta">(none)</span>` : html`<code>${row.before}</code>`}</td><td>${row.after === undefined ? html`<span class="meta">(none)</span>` : html`<code>${row.after}</code>`}</td></tr>`)}</tbody></table>
  </details>${noted}`;
}

export function auditPage(context: PageContext, filter: Filter, shown: Shown): string {
  const first = (filter.page - 1) * PER_PAGE + 1;
  const last = first + shown.events.length - 1;
  const pages = Math.max(1, Math.ceil(shown.total / PER_PAGE));
  const showing =
    shown.total === 0 ? 'No audit events match.' : shown.events.length === 0 ? `Page ${filter.page} is past the end: ${count(shown.total)} event${shown.total === 1 ? '' : 's'}.` : `Showing ${count(first)}–${count(last)} of ${count(shown.total)}`;
  const title = filter.connection ? `Audit trail: ${filter.connection.name}` : 'Audit trail';
  return layout(
    title,
    context,
    html`<h1>Audit trail</h1>
<p>Every change made from the console, the API or the command line (<code>crm-sync audit</code>): who, when, on which connection, and for settings and mappings the values before and after. Secrets are never kept here.</p>
${filterForm(filter, shown)}
<p class="meta" id="audit-showing">${showing}</p>
${shown.events.length
  ? html`<table class="grid audit">
  <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Via</th><th scope="col">Action</th><th scope="col">Connection</th><th scope="col">Target</th><th scope="col">Changes</th></tr></thead>
  <tbody>${shown.events.map(
    (event) => html`<tr class="audit-event" data-action="${event.action}">
    <td>${when(event.at)}</td><td>${event.actorLabel}</td><td>${event.via}</td><td>${event.action}</td>
    <td>${event.connectionId ? html`<a href="/connections/${encodeURIComponent(event.connectionId)}">${shown.names.get(event.connectionId) ?? event.connectionId}</a>` : '-'}</td>
    <td>${event.target ?? '-'}</td><td>${changes(event)}</td>
  </tr>`,
  )}</tbody></table>`
  : ''}
${pages > 1
  ? html`<nav aria-label="Audit pages" class="meta pager">
  ${filter.page > 1 ? html`<a href="${auditHref(filter, Math.min(filter.page - 1, pages))}" rel="prev">Previous ${PER_PAGE}</a>` : ''}
  ${filter.page < pages ? html`<a href="${auditHref(filter, filter.page + 1)}" rel="next">Next ${Math.min(PER_PAGE, shown.total - filter.page * PER_PAGE)}</a>` : ''}
</nav>`
  : ''}`,
  );
}

/** GET /audit, or undefined for any other request. */
export async function auditRoute(deps: { pool: pg.Pool; connections: ConnectionStore }, session: Session, method: string, url: URL): Promise<Reply | undefined> {
  if (method !== 'GET' || url.pathname !== AUDIT_PATH) return undefined;
  const context: PageContext = { csrf: session.csrf, flash: session.flash, who: session.identity };
  const connections = await deps.connections.list();
  const asked = url.searchParams.get('connection')?.trim();
  const connection = asked ? connections.find((candidate) => candidate.id === asked || candidate.name === asked) : undefined;
  if (asked && !connection) return { status: 404, type: 'text/html; charset=utf-8', body: messagePage(context, 'Not found', `There is no connection named or numbered "${asked}".`) };
  const page = Number(url.searchParams.get('page'));
  const filter: Filter = {
    connection,
    actor: url.searchParams.get('actor')?.trim() || undefined,
    action: url.searchParams.get('action')?.trim() || undefined,
    // A page that is not a whole number from 1 (a mistyped or old link) shows the first.
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
  const audit = createAuditStore(deps.pool);
  const [{ total, events }, actions] = await Promise.all([
    audit.list({ connectionId: connection?.id, actor: filter.actor, action: filter.action, limit: PER_PAGE, offset: (filter.page - 1) * PER_PAGE }),
    audit.actions(),
  ]);
  const names = new Map(connections.map((candidate) => [candidate.id, candidate.name]));
  return { status: 200, type: 'text/html; charset=utf-8', body: auditPage(context, filter, { total, events, names, actions, connections }) };
}
