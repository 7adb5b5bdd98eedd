// The console's page for a CRM-to-commerce flow (issue #26 section 3): what the flow reads from the CRM
// (its object and fields), what it writes back onto the record, and a test on a real CRM record (an
// Opportunity id, a deal id, an opportunity GUID): whether the record asks at all and why not, the exact
// commerce request, and the commerce side's dry-run answer. Nothing is written on either side
// (ops/mapping-test-reverse.ts). Anyone signed in may view it; the test posts the page, so it needs the
// role a POST here needs (admin/permissions.ts: admin, as the commerce-to-CRM test does).
//   GET  /connections/<id>/mappings/crm/<flow>
//   POST /connections/<id>/mappings/crm/<flow>    action=test, record=<CRM id>
import { CRM_NAMES, type CrmKind } from '../../crm/connector.ts';
import { CRM_FLOWS } from '../../flows/index.ts';
import { connectionReverseReads, crmFlowView, testCrmFlowOnRecord, type CrmFlowView, type ReverseTestResult } from '../../ops/mapping-test-reverse.ts';
import type { Connection } from '../../store/connections.ts';
import { redactText } from '../../store/redact.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import type { ConnectionRuntime } from '../../sync/runtime.ts';
import { allows } from '../permissions.ts';
import { html, type Markup } from './html.ts';
import { layout, messagePage, type PageContext } from './pages.ts';

export type CrmFlowPage = {
  connection: { id: string; name: string; crm: string };
  view: CrmFlowView;
  /** The connection's other CRM flows, and its commerce-to-CRM flows (their mapping pages). */
  crmFlows: string[];
  flows: string[];
  recordId?: string;
  test?: ReverseTestResult;
};

/** What the record is called on this CRM, for the id box's label. */
const RECORD_WORDS: Record<CrmKind, string> = { salesforce: 'Opportunity id', hubspot: 'deal id', dynamics: 'opportunity GUID' };

const code = (names: string[]) => names.map((name, index) => html`${index ? ', ' : ''}<code>${name}</code>`);
const json = (value: unknown) => JSON.stringify(value, null, 2);

function testResult(page: CrmFlowPage): Markup {
  const test = page.test;
  if (!test) return html``;
  if (test.failed) return html`<p class="error" role="alert" id="test-result">${test.failed}</p>`;
  const crm = page.connection.crm;
  const verdict = !test.asks
    ? html`<p class="ok" role="status">This record asks nothing of the commerce side. ${test.why ?? ''}</p>`
    : test.refused
      ? html`<p class="error" role="status">The flow refuses this record before asking the commerce side; these reasons would go onto the record:</p><pre class="error" id="test-refused">${test.refused}</pre>`
      : test.problems.length
        ? html`<p class="error" role="status">The commerce side would refuse this request (its dry run; nothing was created):</p><ul class="error" id="test-problems">${test.problems.map((line) => html`<li>${line}</li>`)}</ul>`
        : html`<p class="ok" role="status">The commerce side would take this request (its dry run; nothing was created).</p>`;
  return html`<div id="test-result">
  ${test.notRun ? html`<p class="meta">${test.notRun}</p>` : ''}
  ${verdict}
  ${test.alreadyMade ? html`<p class="meta">The record already holds <code>${test.alreadyMade.field}</code> = ${test.alreadyMade.id}: the sync makes nothing new for it (a changed request goes to that record as its next step).</p>` : ''}
  ${test.request === undefined ? '' : html`<h3>The request it would send</h3><pre id="test-request">${json(test.request)}</pre>`}
  ${test.writeBack ? html`<h3>What would be written back onto ${test.object} ${test.recordId}</h3><pre id="test-write-back">${json(test.writeBack)}</pre>` : ''}
  <details><summary>The fields read from ${crm}</summary><pre id="test-record">${json(test.record)}</pre></details>
</div>`;
}

export function crmFlowPage(context: PageContext, page: CrmFlowPage, kind: CrmKind): string {
  const { connection, view } = page;
  const connectionPath = `/connections/${encodeURIComponent(connection.id)}`;
  const here = `${connectionPath}/mappings/crm/${encodeURIComponent(view.flow)}`;
  const mayTest = !context.who || allows(context.who.role, 'POST', here);
  const others = page.crmFlows.filter((flow) => flow !== view.flow);
  return layout(
    `${connection.name}: ${view.flow}`,
    context,
    html`<h1>${connection.crm} ${view.object} → commerce (${view.flow}): ${connection.name}</h1>
<p><a href="${connectionPath}">Back to ${connection.name}</a> · <a href="${connectionPath}/mapping">The whole mapping in effect</a> · Commerce to ${connection.crm}: ${page.flows.map((flow, index) => html`${index ? ', ' : ''}<a href="${connectionPath}/mappings/${encodeURIComponent(flow)}">${flow}</a>`)}${others.length ? html` · ${connection.crm} to commerce: ${others.map((flow, index) => html`${index ? ', ' : ''}<a href="${connectionPath}/mappings/crm/${encodeURIComponent(flow)}">${flow}</a>`)}` : ''}</p>
${view.enabled ? '' : html`<p class="meta" id="flow-off">This connection does not run ${view.flow} now: co-sell is off in its settings.</p>`}
<section aria-labelledby="reads-title">
  <h2 id="reads-title">What it reads from ${connection.crm}</h2>
  <p>Each changed ${view.object}, with these fields: ${code(view.reads)}${view.optional.length ? html`; and, where the org has them, ${code(view.optional)}` : ''}.</p>
</section>
<section aria-labelledby="writes-title">
  <h2 id="writes-title">What it writes back</h2>
  <p>Once the commerce record is made: ${code(view.writesWhenMade)} (its id goes into <code>${view.madeField}</code>; a record holding one is never made again). When it is refused: ${code(view.writesWhenRefused)}, with the reasons in the commerce side's words.</p>
</section>
<section aria-labelledby="test-title" id="test">
  <h2 id="test-title">Test on a real record</h2>
  <p>The ${view.object} is read from ${connection.crm} with the fields above, and asked as the co-sell run asks it; a request is checked by the commerce side's dry run. Nothing is created on the commerce side and nothing is written onto the record.</p>
  ${
    mayTest
      ? html`<form method="post" action="${here}">
  <input type="hidden" name="csrf" value="${context.csrf}">
  <label for="record">${RECORD_WORDS[kind]}</label>
  <input id="record" name="record" value="${page.recordId ?? ''}" size="40">
  <button type="submit" name="action" value="test">Test</button>
</form>`
      : html`<p class="meta">Testing takes the role that may change mappings.</p>`
  }
  ${testResult(page)}
</section>`,
  );
}

type Reply = { status: number; body: string; type?: string };
const reply = (body: string, status = 200): Reply => ({ status, body, type: 'text/html; charset=utf-8' });

/** The CRM flows this connection's CRM has a side for (the links from the mapping pages). */
export function crmFlowsOf(kind: CrmKind): string[] {
  return Object.values(CRM_FLOWS).filter((flow) => flow.crm[kind]).map((flow) => flow.name);
}

/** Answers GET and POST of a CRM flow's page; `runtime` is asked for only by a test (a view needs no CRM). */
export async function crmFlowRoute(
  context: PageContext,
  input: { connection: Connection; settings: ConnectionSettings; flows: string[]; flowName: string; method: string; form: URLSearchParams | undefined; runtime: () => Promise<ConnectionRuntime> },
): Promise<Reply | undefined> {
  const { connection, settings, method, form } = input;
  const kind = settings.crm.kind;
  const flow = CRM_FLOWS[input.flowName];
  const view = flow && crmFlowView(flow, kind, settings);
  if (!flow || !view) return reply(messagePage(context, 'Not found', `${CRM_NAMES[kind]} connections have no ${input.flowName} flow; they have: ${crmFlowsOf(kind).join(', ')}.`), 404);
  const page: CrmFlowPage = { connection: { id: connection.id, name: connection.name, crm: CRM_NAMES[kind] }, view, crmFlows: crmFlowsOf(kind), flows: input.flows };
  if (method === 'POST') {
    if (form?.get('action') !== 'test') return undefined;
    const recordId = form.get('record')?.trim() ?? '';
    page.recordId = recordId;
    const untested = (failed: string): ReverseTestResult => ({ flow: flow.name, object: view.object, recordId, failed, asks: false, problems: [], ok: false });
    if (!recordId) page.test = untested(`Type the ${RECORD_WORDS[kind]} to test on.`);
    else {
      try {
        page.test = await testCrmFlowOnRecord(connectionReverseReads(await input.runtime()), { flow, recordId });
      } catch (error) {
        // The CRM or the commerce API did not answer (or refused the id): said on the page, redacted.
        page.test = untested(`The ${view.object} could not be tested: ${redactText((error as Error).message)}`);
      }
    }
  } else if (method !== 'GET') return undefined;
  return reply(crmFlowPage(context, page, kind));
}
