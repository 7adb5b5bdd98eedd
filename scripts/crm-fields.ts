// Every CRM field the sync reads or writes, one table per CRM (issue #25: "every field per CRM in one
// table"), made from the declarations themselves so the page cannot drift from the code: the
// commerce-to-CRM flows' mappings (object, key, each field and where its value comes from) and the
// CRM-to-commerce flows' CRM sides (the fields read to ask, the fields written back when made or refused).
// `node scripts/crm-fields.ts` writes docs/crm-fields.md; test/unit/crm-fields-page.test.ts fails when
// the page is not the one the declarations make.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CRM_FLOWS, FLOW_ORDER, FLOWS } from '../flows/index.ts';
import type { CrmKind } from '../crm/connector.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { PREVIOUS_ENTITLEMENT_LINKS } from '../flows/previous-entitlement-links.ts';
import { RENEWAL_LINKS } from '../flows/renewal-links.ts';
import type { LifecycleFields } from '../mappings/lifecycle-fields.ts';
import { OPPORTUNITY_LIFECYCLE as SALESFORCE_LIFECYCLE } from '../mappings/salesforce/referral-lifecycle.ts';
import { DEAL_LIFECYCLE as HUBSPOT_LIFECYCLE } from '../mappings/hubspot/referral-lifecycle.ts';
import { OPPORTUNITY_LIFECYCLE as DYNAMICS_LIFECYCLE } from '../mappings/dynamics/referral-lifecycle.ts';

const CRMS: { kind: CrmKind; title: string }[] = [
  { kind: 'salesforce', title: 'Salesforce' },
  { kind: 'hubspot', title: 'HubSpot' },
  { kind: 'dynamics', title: 'Dynamics 365' },
];

/** A connection of each kind on the default settings (the page shows the defaults). */
const DEFAULT_CRM: Record<CrmKind, Record<string, unknown>> = {
  salesforce: { kind: 'salesforce', loginUrl: 'https://example.my.salesforce.com', clientId: 'x' },
  hubspot: { kind: 'hubspot', baseUrl: 'https://api.hubapi.com', auth: 'private-app' },
  dynamics: { kind: 'dynamics', orgUrl: 'https://example.crm.dynamics.com', authority: 'https://login.microsoftonline.com', tenantId: 't', clientId: 'x' },
};

type Row = { flow: string; object: string; field: string; value: string; how: string };

/** One row per flow, object and field (a field both written back and a lifecycle field shows once). */
function dedupe(rows: Row[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = `${row.object}|${row.field}`;
    if (row.flow === 'co-sell lifecycle' && seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A table cell: pipes escaped and line breaks folded, so a description cannot break the table. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function commerceToCrmRows(kind: CrmKind): Row[] {
  return FLOW_ORDER.flatMap((flow) => {
    const mapping = FLOWS[flow].mappings[kind];
    if (!mapping) return [];
    const table = (mapping as { table?: Record<string, unknown> }).table;
    const key: Row = { flow, object: mapping.object, field: mapping.externalIdField, value: 'key', how: 'the commerce id: written on create, found by on every write' };
    const fields = Object.entries(mapping.describe as Record<string, string>)
      .filter(([field]) => field !== mapping.externalIdField)
      .map(([field, describe]): Row => {
        const source = table?.[field];
        const how = [mapping.createOnly?.includes(field) && 'set on create only', mapping.optionalFields?.includes(field) && 'only where the CRM has the field'].filter(Boolean).join('; ');
        return { flow, object: mapping.object, field, value: typeof source === 'string' ? source : '', how: how ? `${describe} (${how})` : describe };
      });
    return [key, ...fields];
  });
}

function crmToCommerceRows(kind: CrmKind): Row[] {
  const settings = connectionSettingsSchema.parse({ commerce: { baseUrl: 'https://commerce.invalid', authUrl: 'https://auth.invalid', clientId: 'x', organizationId: 'o' }, crm: DEFAULT_CRM[kind] });
  return Object.values(CRM_FLOWS).flatMap((flow) => {
    const side = flow.crm[kind];
    if (!side) return [];
    const read = side.fields(settings).map((field): Row => ({ flow: flow.name, object: side.object, field, value: '', how: 'read to ask the commerce side' }));
    const written = new Set([...Object.keys(side.made({ id: 'id', status: 'status', stage: 'stage' })), ...Object.keys(side.refused('reason'))]);
    const back = [...written].map((field): Row => ({ flow: flow.name, object: side.object, field, value: '', how: field === side.madeField ? 'written back: the commerce id once made' : 'written back when made or refused' }));
    const readOnly = read.filter((row) => !written.has(row.field));
    // Fields not every org has (set up before they were added): read, and written back, only where they exist.
    const listed = new Set([...read, ...back].map((row) => row.field));
    const optional = (side.optionalFields ?? []).filter((field) => !listed.has(field)).map((field): Row => ({ flow: flow.name, object: side.object, field, value: '', how: 'read, and written back, only where the CRM has the field' }));
    const marked = [...readOnly, ...back].map((row) => (side.optionalFields?.includes(row.field) ? { ...row, how: `${row.how} (only where the CRM has the field)` } : row));
    return [...marked, ...optional];
  });
}

const LIFECYCLE: Record<CrmKind, { object: string; fields: LifecycleFields }> = {
  salesforce: { object: 'Opportunity', fields: SALESFORCE_LIFECYCLE },
  hubspot: { object: 'deals', fields: HUBSPOT_LIFECYCLE },
  dynamics: { object: 'opportunity', fields: DYNAMICS_LIFECYCLE },
};

/** Fields written after a flow's batch (links along the renewal chain) and the co-sell referral's lifecycle fields. */
function linkAndLifecycleRows(kind: CrmKind): Row[] {
  const previous = PREVIOUS_ENTITLEMENT_LINKS[kind];
  const renewal = RENEWAL_LINKS[kind];
  const { object, fields } = LIFECYCLE[kind];
  return [
    { flow: 'renewal', object: previous.object, field: previous.field, value: '', how: `the entitlement this one renews (${previous.holds === 'crm id' ? 'a lookup' : 'its commerce id'}), written once while empty (flows/previous-entitlement-links.ts)` },
    ...(renewal ? [{ flow: 'renewal', object: renewal.object, field: renewal.field, value: '', how: 'the renewal opportunity made for this entitlement (flows/renewal-links.ts)' }] : []),
    { flow: 'co-sell lifecycle', object, field: fields.decision, value: '', how: "the seller's decision on an inbound referral (Accept / Reject), read" },
    { flow: 'co-sell lifecycle', object, field: fields.decisionReason, value: '', how: 'the reason for that decision, read' },
    { flow: 'co-sell lifecycle', object, field: fields.reviewEnds, value: '', how: "when the partner's review of the submission ends, written" },
    { flow: 'co-sell lifecycle', object, field: fields.errors, value: '', how: `the referral's refusal or rejection reasons, written (up to ${fields.errorsLimit} characters)` },
    ...(fields.lossReason?.fields ?? []).map((field): Row => ({ flow: 'co-sell lifecycle', object, field, value: '', how: 'why the deal was lost, read when it closes lost' })),
  ];
}

export function crmFieldsPage(): string {
  const sections = CRMS.map(({ kind, title }) => {
    const rows = dedupe([...commerceToCrmRows(kind), ...crmToCommerceRows(kind), ...linkAndLifecycleRows(kind)]);
    return [
      `## ${title}`,
      '',
      `${rows.length} fields.`,
      '',
      '| flow | object | field | canonical value | what it holds |',
      '|---|---|---|---|---|',
      ...rows.map((row) => `| ${row.flow} | \`${row.object}\` | \`${cell(row.field)}\` | ${row.value ? `\`${row.value}\`` : ''} | ${cell(row.how)} |`),
      '',
    ].join('\n');
  });
  return [
    '# Every CRM field, per CRM',
    '',
    'Made by `node scripts/crm-fields.ts` from the flows\' declarations (`flows/index.ts`): each commerce-to-CRM',
    'flow\'s mapping (its object, its key and every field with where its value comes from) and each',
    'CRM-to-commerce flow\'s CRM side (what it reads to ask, what it writes back). The canonical value is',
    'the field of the flow\'s CRM-neutral record (`mappings/canonical/`) a field takes as it is; a field without',
    'one is a CRM conversion (a lookup, an option set, a pipeline stage) described beside it. The defaults are',
    'shown: a connection\'s overrides (`crm-sync mapping <connection>`) rename or leave out fields, and',
    '`crm-sync setup` creates what the org lacks (`mappings/*/schema.ts`). The CRM pages',
    '([Salesforce](salesforce.md), [HubSpot](hubspot.md), [Dynamics 365](dynamics.md)) and',
    '[revenue, renewals and usage](revenue-renewals-usage.md) say why each is as it is.',
    '',
    ...sections,
  ].join('\n');
}

if (import.meta.main) {
  const target = path.join(import.meta.dirname, '..', 'docs', 'crm-fields.md');
  writeFileSync(target, crmFieldsPage());
  console.log(`Wrote ${target}`);
}
