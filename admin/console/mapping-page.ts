// The console's mapping page (issue #26 section 3): one flow of one connection, each field of the CRM
// object as its describe gives it, where its value comes from (the default mapping, a canonical value,
// a constant or nothing), picklist values with a suggestion where labels are the same, create-only and
// owner per field; then a test on a real record, the versions saved, and a roll back. One form, no
// script: "Test", "Filter" and "Save" post the whole page, so unsaved choices come back as they were.
import type { MappingTestResult } from '../../ops/mapping-test.ts';
import type { EditorRow, MappingEditorView } from '../../ops/mapping-view.ts';
import type { MappingVersion } from '../../store/mapping-versions.ts';
import { allows } from '../permissions.ts';
import { html, type Markup } from './html.ts';
import { layout, type PageContext } from './pages.ts';

export type MappingEditorPage = {
  connection: { id: string; name: string; crm: string };
  flows: string[];
  /** The connection's CRM-to-commerce flows, each with its own page (admin/console/mapping-reverse-page.ts). */
  crmFlows?: string[];
  view: MappingEditorView;
  recordId?: string;
  test?: MappingTestResult;
  /** Why the last save was refused, each naming the field or value. */
  refused?: string[];
  versions: MappingVersion[];
};

const when = (value: Date) => new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
// Option texts are cut short so the table fits a laptop screen; the whole text is the option's title.
const short = (text: string, length = 34) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);
const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function sourceCell(view: MappingEditorView, row: EditorRow): Markup {
  if (row.key) return html`<td>the commerce record's id (the key records are matched by)<input type="hidden" name="source:${row.field}" value="default"></td>`;
  const id = `source-${row.field}`;
  const constantValues = row.picklist?.values;
  return html`<td>
  <label class="visually-hidden" for="${id}">Value of ${row.field}</label>
  <select id="${id}" name="source:${row.field}">
    ${row.defaultFrom ? html`<option value="default" title="${row.defaultFrom}" ${row.source === 'default' ? 'selected' : ''}>default: ${short(row.defaultFrom)}</option>` : ''}
    <option value="none" ${row.source === 'none' ? 'selected' : ''}>nothing (not written)</option>
    <optgroup label="A ${view.entity} value">
      ${view.canonical.map((value) => html`<option value="canonical:${value.name}" title="${value.describe}" ${row.source === 'canonical' && row.canonical === value.name ? 'selected' : ''}>${short(`${value.name}: ${value.describe}`)}</option>`)}
    </optgroup>
    <option value="constant" ${row.source === 'constant' ? 'selected' : ''}>a constant…</option>
  </select>
  <label class="visually-hidden" for="constant-${row.field}">Constant for ${row.field}</label>
  ${
    constantValues
      ? html`<select id="constant-${row.field}" name="constant:${row.field}"><option value="">(constant)</option>${constantValues.map((value) => html`<option ${row.constant === value ? 'selected' : ''}>${value}</option>`)}</select>`
      : html`<input id="constant-${row.field}" name="constant:${row.field}" value="${row.constant ?? ''}" placeholder="constant" size="10">`
  }
  ${row.defaultField ? html`<p class="meta">renamed from ${row.defaultField}</p>` : ''}
</td>`;
}

function picklistCell(row: EditorRow): Markup {
  const picklist = row.picklist;
  if (!picklist || (!picklist.rows.length && !picklist.open)) return html`<td>${picklist ? html`<span class="meta">${picklist.values.length} values</span>` : ''}</td>`;
  return html`<td><table class="inner picklist" aria-label="${row.field} values">
  ${picklist.rows.map((entry) => {
    const chosen = entry.suggested ?? entry.value;
    return html`<tr><th scope="row">${entry.source}</th><td>
      <label class="visually-hidden" for="pick-${row.field}-${entry.source}">${row.field} for ${entry.source}</label>
      <select id="pick-${row.field}-${entry.source}" name="pick:${row.field}:${entry.source}">
        ${entry.value !== undefined && !picklist.values.includes(entry.value) ? html`<option value="${entry.value}" ${chosen === entry.value ? 'selected' : ''}>${entry.value} (not in this org)</option>` : ''}
        ${picklist.values.map((value) => html`<option ${chosen === value ? 'selected' : ''}>${value}</option>`)}
      </select>
      ${entry.suggested ? html`<span class="suggested">suggested: same label</span>` : ''}
    </td></tr>`;
  })}
  ${
    picklist.open
      ? html`<tr><td><label class="visually-hidden" for="pickadd-${row.field}">New source value for ${row.field}</label><input id="pickadd-${row.field}" name="pickadd:${row.field}" placeholder="source value" size="12"></td>
      <td><label class="visually-hidden" for="pickaddvalue-${row.field}">${row.field} value for it</label><select id="pickaddvalue-${row.field}" name="pickaddvalue:${row.field}"><option value=""></option>${picklist.values.map((value) => html`<option>${value}</option>`)}</select></td></tr>`
      : ''
  }
</table></td>`;
}

function fieldRow(view: MappingEditorView, row: EditorRow): Markup {
  const fixed = (locked: boolean) => (locked ? 'disabled' : '');
  return html`<tr data-field="${row.field}" ${row.shown ? '' : 'hidden'}>
  <th scope="row"><code>${row.field}</code>${row.required ? html` <span class="meta">required</span>` : ''}</th>
  <td>${row.type}${row.length ? html` <span class="meta">(${row.length})</span>` : ''}</td>
  ${sourceCell(view, row)}
  ${picklistCell(row)}
  <td>${row.key ? '' : html`<label class="check"><input type="checkbox" name="createOnly" value="${row.field}" ${row.createOnly ? 'checked' : ''} ${fixed(row.createOnlyLocked)}><span class="visually-hidden">${row.field} create only</span></label>`}</td>
  ${
    view.sellerRecords
      ? html`<td>${
          row.key
            ? ''
            : html`<label class="visually-hidden" for="owner-${row.field}">Owner of ${row.field}</label>
        <select id="owner-${row.field}" name="sellerKeeps" ${fixed(row.sellerKeepsLocked)} data-owner="${row.field}">
          <option value="" ${row.sellerKeeps ? '' : 'selected'}>sync</option>
          <option value="${row.field}" ${row.sellerKeeps ? 'selected' : ''}>seller</option>
        </select>`
        }</td>`
      : ''
  }
</tr>`;
}

function testSection(page: MappingEditorPage): Markup {
  const test = page.test;
  const results = !test
    ? ''
    : test.refused && !test.payload
      ? html`<p class="error" role="alert" id="test-result">${test.refused}</p>`
      : html`<div id="test-result">
  <p class="${test.ok ? 'ok' : 'error'}" role="status">${
    test.ok ? `${page.connection.crm} would take this record as it stands (checked against its describe; nothing was written).` : `${page.connection.crm} would refuse this record (checked against its describe; nothing was written).`
  }</p>
  <p>${test.crmId ? `An update of ${test.object} ${test.crmId}` : `A new ${test.object}, keyed by ${test.externalIdField} = ${test.externalId}`}, with these fields:</p>
  <table class="grid test-payload"><thead><tr><th>Field</th><th>Value sent</th><th>${page.connection.crm}'s answer</th></tr></thead><tbody>
    ${test.fields.map((field) => html`<tr data-test-field="${field.field}"><th scope="row"><code>${field.field}</code></th><td><code>${show(field.value)}</code></td><td class="${field.refused ? 'error' : 'ok'}">${field.refused ?? 'accepted'}</td></tr>`)}
  </tbody></table>
  ${test.missing.length ? html`<ul class="error">${test.missing.map((line) => html`<li>${line}</li>`)}</ul>` : ''}
  ${test.unknown.length ? html`<p class="meta">Left out, the picklist map lacks the value: ${test.unknown.map((value) => `${value.field} ${JSON.stringify(value.value)}`).join(', ')}</p>` : ''}
  ${test.problems.length ? html`<p>The mapping with these choices does not fit ${page.connection.crm}:</p><ul class="error">${test.problems.map((line) => html`<li>${line}</li>`)}</ul>` : ''}
  <details><summary>The payload as JSON</summary><pre>${JSON.stringify(test.payload, null, 2)}</pre></details>
</div>`;
  return html`<section aria-labelledby="test-title" id="test">
  <h2 id="test-title">Test on a real record</h2>
  <p>The ${page.view.entity} is read from the commerce API as the sync reads it; the payload is what the choices above would send, checked against ${page.connection.crm}'s description of ${page.view.object}. Nothing is saved or written.</p>
  <label for="record">${page.view.entity} id</label>
  <input id="record" name="record" value="${page.recordId ?? ''}" size="40">
  <button type="submit" name="action" value="test">Test</button>
  ${results}
</section>`;
}

function versionsSection(context: PageContext, page: MappingEditorPage, here: string): Markup {
  const mayRollBack = !context.who || allows(context.who.role, 'POST', `${here}/rollback`);
  return html`<section aria-labelledby="versions-title" id="versions">
  <h2 id="versions-title">Versions</h2>
  ${
    page.versions.length === 0
      ? html`<p>No version saved here yet. The first save keeps what is in effect now as version 1.</p>`
      : html`<table class="grid versions"><thead><tr><th>Version</th><th>Saved by</th><th>Saved</th><th>Overrides</th><th></th></tr></thead><tbody>
    ${page.versions.map(
      (version, index) => html`<tr data-version="${version.version}">
      <td>${version.version}${index === 0 ? html` <span class="meta">(in effect)</span>` : ''}${version.rolledBackFrom ? html` <span class="meta">rolled back to ${version.rolledBackFrom}</span>` : ''}</td>
      <td>${version.savedBy}</td><td>${when(version.savedAt)}</td><td><code>${JSON.stringify(version.overrides)}</code></td>
      <td>${index > 0 && mayRollBack ? html`<form method="post" action="${here}/rollback" class="inline"><input type="hidden" name="csrf" value="${context.csrf}"><input type="hidden" name="version" value="${version.version}"><button type="submit">Roll back to ${version.version}</button></form>` : ''}</td>
    </tr>`,
    )}
  </tbody></table>`
  }
</section>`;
}

export function mappingEditorPage(context: PageContext, page: MappingEditorPage): string {
  const { connection, view } = page;
  const here = `/connections/${encodeURIComponent(connection.id)}/mappings/${encodeURIComponent(view.entity)}`;
  const maySave = !context.who || allows(context.who.role, 'POST', here);
  return layout(
    `${connection.name}: ${view.entity} mapping`,
    context,
    html`<h1>${view.entity} → ${connection.crm} ${view.object}: ${connection.name}</h1>
<p><a href="/connections/${encodeURIComponent(connection.id)}">Back to ${connection.name}</a> · <a href="/connections/${encodeURIComponent(connection.id)}/mapping">The whole mapping in effect</a> · Other flows: ${page.flows.filter((flow) => flow !== view.entity).map((flow, index) => html`${index ? ', ' : ''}<a href="/connections/${encodeURIComponent(connection.id)}/mappings/${encodeURIComponent(flow)}">${flow}</a>`)}${page.crmFlows?.length ? html` · ${connection.crm} to commerce: ${page.crmFlows.map((flow, index) => html`${index ? ', ' : ''}<a href="/connections/${encodeURIComponent(connection.id)}/mappings/crm/${encodeURIComponent(flow)}">${flow}</a>`)}` : ''}</p>
${page.refused ? html`<div class="error" role="alert" id="save-refused"><p>Not saved: the mapping does not fit ${connection.crm}.</p><ul>${page.refused.map((line) => html`<li>${line}</li>`)}</ul></div>` : ''}
<form method="post" action="${here}" class="mapping-editor">
<input type="hidden" name="csrf" value="${context.csrf}">
<section aria-labelledby="fields-title">
  <h2 id="fields-title">Fields of ${view.object}</h2>
  <p>Read from ${connection.crm}'s description of ${view.object}. For each field: where its value comes from, its picklist values (a suggestion is preselected where a label is the same), whether it is written only when the record is made${view.sellerRecords ? ", and who owns it on a seller's own record (seller: the seller's value is kept)" : ''}.</p>
  <label for="type">Show fields of type</label>
  <select id="type" name="type"><option value="">all types</option>${view.types.map((type) => html`<option ${view.typeFilter === type ? 'selected' : ''}>${type}</option>`)}</select>
  <button type="submit" name="action" value="filter">Filter</button>
  <table class="grid mapping-fields">
    <thead><tr><th>Field</th><th>Type</th><th>Value</th><th>Picklist values</th><th>Create only</th>${view.sellerRecords ? html`<th>Owner</th>` : ''}</tr></thead>
    <tbody>${view.rows.map((row) => fieldRow(view, row))}</tbody>
  </table>
</section>
${testSection(page)}
${maySave ? html`<p><button type="submit" name="action" value="save" id="save">Save the mapping</button> <span class="meta">Checked against ${connection.crm} as <code>crm-sync mapping --edit</code> checks; a version is kept and the change goes in the audit trail.</span></p>` : ''}
</form>
${versionsSection(context, page, here)}`,
  );
}
