// The console's pages, as pure functions from what ops/ read to HTML. No secret is ever among their
// inputs: connections come without secrets, dead letters redacted. Every form carries the CSRF token.
import { alertsSection, type AlertRouteView } from './alerts-section.ts';
import { commerceQuotaText } from '../../ops/commerce-quota.ts';
import { formatSeconds, type ConnectionHealth } from '../../ops/connection-health.ts';
import type { CosellQueue } from '../../ops/cosell-queue.ts';
import type { DeadLetterPage } from '../../ops/dead-letter-view.ts';
import type { MappingInEffect } from '../../ops/mapping-view.ts';
import type { RunView } from '../../ops/run-history.ts';
import { allows } from '../permissions.ts';
import { html, jsonBlock, Markup } from './html.ts';
import type { SessionIdentity } from './sessions.ts';

/** The project's own stylesheet, inlined on the login page: trusted text, not escaped. */
class RawCss extends Markup {}

/** `who`: the signed-in person or token, shown in the header; buttons their role cannot use are left out. */
export type PageContext = { csrf: string; flash?: string; who?: SessionIdentity };

/** Whether the page should offer a form (the server checks again: admin/permissions.ts). */
const may = (context: PageContext, method: string, path: string) => !context.who || allows(context.who.role, method, path);

function whoBadge(who: SessionIdentity | undefined): Markup {
  if (!who) return html``;
  const name = who.via === 'oidc' ? who.person.name : 'admin token';
  return html`<p class="who" id="signed-in-as">${name} <span class="role">${who.role}</span></p>`;
}

const when = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '-');

export function layout(title: string, context: PageContext | undefined, body: Markup, scripts: string[] = [], inlineStyle?: { nonce: string; css: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · crm-sync</title>
${inlineStyle ? html`<style nonce="${inlineStyle.nonce}">${new RawCss(inlineStyle.css)}</style>` : html`<link rel="stylesheet" href="/assets/console.css">`}
${scripts.includes('chart') ? html`<link rel="stylesheet" href="/assets/uPlot.min.css">` : ''}
</head>
<body>
<header class="top">
  <a class="brand" href="/">crm-sync</a>
  ${context ? html`<nav aria-label="Main"><a href="/">Connections</a><a href="/audit">Audit</a><a href="/metrics">Metrics</a></nav>
  ${whoBadge(context.who)}
  <form method="post" action="/logout" class="signout"><input type="hidden" name="csrf" value="${context.csrf}"><button type="submit">Sign out</button></form>` : ''}
</header>
<main id="main">
${context?.flash ? html`<p class="flash" role="status">${context.flash}</p>` : ''}
${body}
</main>
${scripts.includes('chart') ? html`<script src="/assets/uPlot.iife.min.js"></script>` : ''}
${scripts.length ? html`<script src="/assets/console.js"></script>` : ''}
</body>
</html>`.text;
}

export function loginPage(options: { failed?: boolean; next?: string; nonce: string; css: string }): string {
  return layout(
    'Sign in',
    undefined,
    html`<section class="login" aria-labelledby="login-title">
  <h1 id="login-title">Sign in to the console</h1>
  <p>Use the admin token: <code>npm start</code> prints it, and it is kept in the data directory's <code>admin-token</code> file (or set by <code>CRM_SYNC_ADMIN_TOKEN</code>).</p>
  ${options.failed ? html`<p class="error" role="alert">That token is not this worker's admin token.</p>` : ''}
  <form method="post" action="/login">
    <input type="hidden" name="next" value="${options.next ?? '/'}">
    <input type="text" name="username" value="admin" autocomplete="username" hidden>
    <label for="token">Admin token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
    <button type="submit">Sign in</button>
  </form>
</section>`,
    [],
    { nonce: options.nonce, css: options.css },
  );
}

function statusBadge(status: string): Markup {
  return html`<span class="status status-${status.replace(/[^a-z]+/g, '-')}">${status}</span>`;
}

const lag = (health: ConnectionHealth) => (health.lagSeconds === null ? '-' : formatSeconds(health.lagSeconds));
const budget = (health: ConnectionHealth) => (health.apiBudget ? `${Math.round(health.apiBudget.share * 100)}% of ${health.apiBudget.limit}` : '-');
const quotaDetail = (health: ConnectionHealth) =>
  health.commerceQuota && health.commerceQuota.length > 0
    ? health.commerceQuota.map((quota) => `${quota.name}: ${quota.used} of ${quota.limit} per ${quota.period.toLowerCase()} (${Math.round(quota.share * 100)}%)${quota.resetsAt ? `, until ${when(quota.resetsAt)}` : ''}`).join('; ')
    : 'unknown (the commerce API did not say)';

export function connectionsPage(context: PageContext, connections: ConnectionHealth[]): string {
  return layout(
    'Connections',
    context,
    html`<h1>Connections</h1>
${connections.length === 0
  ? html`<p>No connections yet. Wire one with <code>crm-sync connect</code> (see <code>crm-sync connect --help</code>).</p>`
  : html`<table class="grid" id="connections">
  <caption>Each connection's health: its last run, how far the CRM trails the commerce side, records waiting as dead letters, the CRM's daily API budget and the commerce organization's quota.</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">CRM</th><th scope="col">Status</th><th scope="col">Last run</th><th scope="col">Lag</th><th scope="col">Dead letters</th><th scope="col">API budget</th><th scope="col">Commerce quota</th><th scope="col">Writes back</th></tr></thead>
  <tbody>
  ${connections.map(
    (connection) => html`<tr data-connection="${connection.name}">
    <th scope="row"><a href="/connections/${encodeURIComponent(connection.id)}">${connection.name}</a></th>
    <td>${connection.crm}</td>
    <td>${statusBadge(connection.status)}<div class="summary">${connection.summary}</div></td>
    <td>${connection.lastRun ? `${connection.lastRun.kind} ${connection.lastRun.status}, ${when(connection.lastRun.finishedAt ?? connection.lastRun.startedAt)}` : 'none'}</td>
    <td>${lag(connection)}</td>
    <td>${connection.openDeadLetters ? html`<a href="/connections/${encodeURIComponent(connection.id)}#dead-letters">${connection.openDeadLetters}</a>` : '0'}</td>
    <td>${budget(connection)}</td>
    <td>${commerceQuotaText(connection.commerceQuota)}</td>
    <td>${connection.writesBack ? 'yes' : 'no'}</td>
  </tr>`,
  )}
  </tbody>
</table>`}`,
  );
}

export type ConnectionPageData = {
  health: ConnectionHealth;
  runs: RunView[];
  /** One page of open dead letters, with the totals (see ops/dead-letter-view.ts). */
  letters: DeadLetterPage;
  /** The entity the letters are narrowed to, if any. */
  lettersEntity?: string;
  cosell: CosellQueue;
  entities: string[];
  /** Backfills of this connection running now (workflow ids). */
  backfills: string[];
  /** The one to watch (just started, or picked). */
  watch?: string;
  /** The connection's alert routes, masked (admin/console/alerts-section.ts). */
  alerts?: AlertRouteView[];
};

function runsSection(runs: RunView[]): Markup {
  const series = [...runs]
    .filter((run) => run.finishedAt)
    .reverse()
    .map((run) => ({ at: new Date(run.finishedAt!).getTime() / 1000, written: run.counts.created + run.counts.updated, failed: run.counts.failed }));
  return html`<section aria-labelledby="runs-title" id="runs">
  <h2 id="runs-title">Runs</h2>
  <figure>
    <div id="runs-chart" role="img" aria-label="Records written and failed per run over time"></div>
    <figcaption>Records written (created or updated) and failed by each finished run.</figcaption>
  </figure>
  ${jsonBlock('runs-data', series)}
  ${runs.length === 0
    ? html`<p>No runs yet.</p>`
    : html`<table class="grid" id="runs-table">
    <thead><tr><th scope="col">Started</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Read</th><th scope="col">Created</th><th scope="col">Updated</th><th scope="col">Unchanged</th><th scope="col">Failed</th><th scope="col">Per entity</th></tr></thead>
    <tbody>
    ${runs.map(
      (run) => html`<tr>
      <td>${when(run.startedAt)}</td><td>${run.kind}</td><td>${statusBadge(run.status)}${run.error ? html`<div class="summary">${run.error}</div>` : ''}</td>
      <td>${run.seconds === null ? '-' : formatSeconds(run.seconds)}</td>
      <td>${run.counts.records}</td><td>${run.counts.created}</td><td>${run.counts.updated}</td><td>${run.counts.unchanged}</td><td>${run.counts.failed}</td>
      <td>${Object.keys(run.entities).length
        ? html`<details><summary>${Object.keys(run.entities).length} entities</summary><table class="inner">
          <thead><tr><th scope="col">Entity</th><th scope="col">Read</th><th scope="col">Created</th><th scope="col">Updated</th><th scope="col">Unchanged</th><th scope="col">Failed</th></tr></thead>
          <tbody>${Object.entries(run.entities).map(([entity, c]) => html`<tr><th scope="row">${entity}</th><td>${c.records}</td><td>${c.created}</td><td>${c.updated}</td><td>${c.unchanged}</td><td>${c.failed}</td></tr>`)}</tbody></table></details>`
        : '-'}</td>
    </tr>`,
    )}
    </tbody></table>`}
</section>`;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The connection page showing some letters: an entity (or all) and a page; the anchor brings the section into view. */
function lettersHref(connectionId: string, entity: string | undefined, page: number): string {
  const query = new URLSearchParams();
  if (entity) query.set('entity', entity);
  if (page > 1) query.set('page', String(page));
  const search = query.toString();
  return `/connections/${encodeURIComponent(connectionId)}${search ? `?${search}` : ''}#dead-letters`;
}

/** All, then each entity with open letters and its count; the one shown is marked as current. */
function entityFilter(connectionId: string, letters: DeadLetterPage, chosen: string | undefined): Markup {
  const all = Object.values(letters.byEntity).reduce((sum, n) => sum + n, 0);
  const link = (label: string, entity: string | undefined, n: number) =>
    entity === chosen ? html`<strong aria-current="page">${label} (${count(n)})</strong>` : html`<a href="${lettersHref(connectionId, entity, 1)}">${label} (${count(n)})</a>`;
  return html`<nav aria-label="Dead letters by entity" class="meta">Show: ${link('all', undefined, all)}${Object.entries(letters.byEntity).map(([entity, n]) => html` · ${link(entity, entity, n)}`)}</nav>`;
}

function lettersPager(connectionId: string, letters: DeadLetterPage, entity: string | undefined): Markup {
  if (letters.pages <= 1) return html``;
  return html`<nav aria-label="Dead letter pages" class="meta pager">
    Showing ${count(letters.first)}–${count(letters.last)} of ${count(letters.total)}, page ${letters.page} of ${count(letters.pages)}.
    ${letters.page > 1 ? html`<a href="${lettersHref(connectionId, entity, letters.page - 1)}" rel="prev">Previous ${letters.limit}</a>` : ''}
    ${letters.page < letters.pages ? html`<a href="${lettersHref(connectionId, entity, letters.page + 1)}" rel="next">Next ${Math.min(letters.limit, letters.total - letters.last)}</a>` : ''}
  </nav>`;
}

function lettersSection(context: PageContext, connectionId: string, letters: DeadLetterPage, entity: string | undefined): Markup {
  const action = `/connections/${encodeURIComponent(connectionId)}/retry`;
  const anyOpen = Object.keys(letters.byEntity).length > 0;
  return html`<section aria-labelledby="letters-title" id="dead-letters">
  <h2 id="letters-title">Dead letters <span class="count">(${count(letters.total)}${entity ? ` ${entity}` : ''})</span></h2>
  ${!anyOpen
    ? html`<p>No record is waiting.</p>`
    : html`<p>Records the CRM or the commerce side refused, kept with the reason and retried on their own with a growing delay. Fix the cause (often the mapping), then retry. Newest first; <code>crm-sync errors</code> filters by record or words of the reason too.</p>
  ${entityFilter(connectionId, letters, entity)}
  ${letters.total > 0 && may(context, 'POST', action)
    ? html`<form method="post" action="${action}" class="inline"><input type="hidden" name="csrf" value="${context.csrf}">${entity ? html`<input type="hidden" name="entity" value="${entity}">` : ''}<button type="submit">Retry all ${count(letters.total)}${entity ? ` ${entity}` : ''}</button></form>`
    : ''}
  ${letters.letters.length === 0
    ? html`<p>${letters.total > 0 ? html`Page ${letters.page} is past the end: <a href="${lettersHref(connectionId, entity, 1)}">the first page</a>.` : entity ? `No ${entity} record is waiting.` : 'No record is waiting.'}</p>`
    : html`<table class="grid letters">
  <thead><tr><th scope="col">Record</th><th scope="col">Why it failed</th><th scope="col">Attempts</th><th scope="col">Next retry</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>
  ${letters.letters.map(
    (letter) => html`<tr class="letter" data-source-id="${letter.sourceId}">
    <th scope="row">${letter.entity}<br><code>${letter.sourceId}</code></th>
    <td><p class="reason">${letter.reason}</p>
    ${letter.crmError !== undefined || letter.payload !== undefined
      ? html`<details><summary>The CRM's answer and the mapped payload</summary>
      ${letter.crmError !== undefined ? html`<p class="crm-error"><span class="label">The CRM said:</span> <code>${JSON.stringify(letter.crmError)}</code></p>` : ''}
      ${letter.payload !== undefined ? html`<pre>${JSON.stringify(letter.payload, null, 2)}</pre>` : ''}
      </details>`
      : ''}
    <p class="meta">first failed ${when(letter.firstFailedAt)}</p></td>
    <td>${letter.attempts}</td>
    <td>${letter.nextRetryAt ? when(letter.nextRetryAt) : 'by hand only'}</td>
    <td>${may(context, 'POST', action)
      ? html`<form method="post" action="${action}" class="inline">
      <input type="hidden" name="csrf" value="${context.csrf}">
      <input type="hidden" name="entity" value="${letter.entity}">
      <input type="hidden" name="id" value="${letter.sourceId}">
      <button type="submit" aria-label="Retry ${letter.entity} ${letter.sourceId}">Retry</button>
    </form>`
      : ''}</td>
  </tr>`,
  )}
  </tbody></table>
  ${lettersPager(connectionId, letters, entity)}`}`}
</section>`;
}

function cosellSection(queue: CosellQueue): Markup {
  return html`<section aria-labelledby="cosell-title" id="cosell">
  <h2 id="cosell-title">Co-sell queue</h2>
  <p>${queue.made} made from CRM records so far; ${queue.waiting.length} waiting; ${queue.refused.length} refused; ${queue.queuedStages.length} stage edit${queue.queuedStages.length === 1 ? '' : 's'} queued.</p>
  ${queue.refused.length
    ? html`<table class="grid"><caption>Refused by the commerce side (the reasons also went back onto the CRM record)</caption>
    <thead><tr><th scope="col">Flow</th><th scope="col">CRM record</th><th scope="col">Reason</th><th scope="col">When</th></tr></thead>
    <tbody>${queue.refused.map((ask) => html`<tr><td>${ask.flow}</td><td><code>${ask.crmId}</code></td><td>${ask.message ?? ''}</td><td>${when(ask.updatedAt)}</td></tr>`)}</tbody></table>`
    : ''}
  ${queue.waiting.length
    ? html`<table class="grid"><caption>Waiting for the commerce side</caption>
    <thead><tr><th scope="col">Flow</th><th scope="col">CRM record</th><th scope="col">Since</th></tr></thead>
    <tbody>${queue.waiting.map((ask) => html`<tr><td>${ask.flow}</td><td><code>${ask.crmId}</code></td><td>${when(ask.updatedAt)}</td></tr>`)}</tbody></table>`
    : ''}
  ${queue.queuedStages.length
    ? html`<table class="grid"><caption>Stage edits queued</caption>
    <thead><tr><th scope="col">Referral</th><th scope="col">For</th><th scope="col">Stage</th><th scope="col">Why it waits</th><th scope="col">Attempts</th><th scope="col">Next try</th></tr></thead>
    <tbody>${queue.queuedStages.map((stage) => html`<tr><td><code>${stage.referralId}</code></td><td>${stage.side}</td><td>${stage.stage}</td><td>${stage.reason ?? ''}</td><td>${stage.attempts}</td><td>${when(stage.nextTryAt)}</td></tr>`)}</tbody></table>`
    : ''}
</section>`;
}

function backfillSection(context: PageContext, data: ConnectionPageData): Markup {
  const id = data.health.id;
  const watched = data.watch ?? data.backfills[0];
  return html`<section aria-labelledby="backfill-title" id="backfill">
  <h2 id="backfill-title">Backfill</h2>
  ${watched
    ? html`<div class="progress-panel" id="backfill-progress" data-url="/api/connections/${encodeURIComponent(id)}/backfills/${encodeURIComponent(watched)}" aria-live="polite">
    <p><strong>${watched}</strong></p>
    <label for="backfill-bar">Progress of the current entity</label>
    <progress id="backfill-bar" max="1" value="0"></progress>
    <p class="progress-text" id="backfill-text">Reading its progress…</p>
  </div>`
    : ''}
  ${!may(context, 'POST', `/connections/${encodeURIComponent(id)}/backfill`)
    ? html`<p>Starting a backfill needs the operator role.</p>`
    : html`<form method="post" action="/connections/${encodeURIComponent(id)}/backfill" class="backfill-form">
    <input type="hidden" name="csrf" value="${context.csrf}">
    <fieldset><legend>Entities</legend>
    ${data.entities.map((entity) => html`<label class="check"><input type="checkbox" name="entities" value="${entity}" checked> ${entity}</label>`)}
    </fieldset>
    <label for="backfill-from">Changed from (UTC, empty: the beginning)</label>
    <input id="backfill-from" name="from" type="datetime-local">
    <label for="backfill-to">Changed up to (UTC, empty: now)</label>
    <input id="backfill-to" name="to" type="datetime-local">
    ${!context.who || context.who.role === 'admin' ? html`<label class="check"><input type="checkbox" name="forgetLinks" value="yes"> Write every record again (forget which were written)</label>` : ''}
    <button type="submit">Start backfill</button>
  </form>`}
</section>`;
}

export function connectionPage(context: PageContext, data: ConnectionPageData): string {
  const { health } = data;
  return layout(
    health.name,
    context,
    html`<h1>${health.name} <span class="crm">${health.crm}</span></h1>
<p class="health">${statusBadge(health.status)} ${health.summary}</p>
<dl class="facts">
  <dt>Last run</dt><dd>${health.lastRun ? `${health.lastRun.kind} ${health.lastRun.status}, ${when(health.lastRun.finishedAt ?? health.lastRun.startedAt)}` : 'none'}</dd>
  <dt>CRM current as of</dt><dd>${when(health.crmCurrentAsOf)}</dd>
  <dt>Lag</dt><dd>${lag(health)}</dd>
  <dt>API budget</dt><dd>${budget(health)}</dd>
  <dt>Commerce quota</dt><dd>${quotaDetail(health)}</dd>
  <dt>Paused</dt><dd>${health.paused === null ? 'unknown' : health.paused ? 'yes' : 'no'}</dd>
  <dt>Writes CRM ids back</dt><dd>${health.writesBack ? 'yes' : 'no'}</dd>
</dl>
<p><a href="/connections/${encodeURIComponent(health.id)}/mapping">The mapping in effect</a> · <a href="/audit?connection=${encodeURIComponent(health.id)}">Audit trail of ${health.name}</a></p>
${lettersSection(context, health.id, data.letters, data.lettersEntity)}
${backfillSection(context, data)}
${cosellSection(data.cosell)}
${alertsSection(health.name, data.alerts)}
${runsSection(data.runs)}`,
    ['chart'],
  );
}

export function mappingPage(context: PageContext, name: string, connectionId: string, view: MappingInEffect): string {
  return layout(
    `${name}: mapping`,
    context,
    html`<h1>Mapping in effect: ${name}</h1>
<p><a href="/connections/${encodeURIComponent(connectionId)}">Back to ${name}</a>. Change the overrides with <code>crm-sync mapping ${name} --edit FILE</code> (checked against the CRM before saving).</p>
<p>Co-sell ${view.cosell.enabled ? 'on' : 'off'}; the stage is owned by ${view.cosell.stageOwner === 'latest' ? 'the side that changed it last' : `the ${view.cosell.stageOwner} side`}.</p>
<h2>Commerce to CRM</h2>
${view.commerceToCrm.map(
  (entity) => html`<section class="mapping" aria-labelledby="map-${entity.entity}">
  <h3 id="map-${entity.entity}">${entity.entity} → ${entity.object} <small>key ${entity.key}${entity.synced ? '' : ', not synced by this connection'}</small></h3>
  <table class="grid"><thead><tr><th scope="col">CRM field</th><th scope="col">From</th></tr></thead>
  <tbody>${entity.fields.map((field) => html`<tr><th scope="row"><code>${field.field}</code></th><td>${field.from}${field.renamedFrom ? ` (renamed from ${field.renamedFrom})` : ''}${field.createOnly ? ' (on create only)' : ''}</td></tr>`)}</tbody></table>
  ${entity.disabled.length ? html`<p>Not written: ${entity.disabled.join(', ')}</p>` : ''}
</section>`,
)}
<h2>CRM to commerce</h2>
<ul>${view.crmToCommerce.map((flow) => html`<li><strong>${flow.object}</strong> → commerce (${flow.flow})${flow.enabled ? '' : ', off'}: reads ${flow.reads.join(', ')}; the commerce id goes back into <code>${flow.commerceIdField}</code></li>`)}</ul>
<h2>Overrides</h2>
<pre>${JSON.stringify(view.overrides, null, 2)}</pre>`,
  );
}

export function messagePage(context: PageContext | undefined, title: string, message: string): string {
  return layout(title, context, html`<h1>${title}</h1><p>${message}</p><p><a href="/">Connections</a></p>`);
}
