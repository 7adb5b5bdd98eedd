// "Test on a real record" for the CRM-to-commerce flows (issue #26 section 3): what one CRM record
// (an Opportunity, a deal) would ask of the commerce side, read and decided exactly as the co-sell
// activity does (activities/crm-to-commerce.ts: the flow's fields, its `related` for the record, its
// `ask`), and what the commerce side's own rules say of the request (the flow's validate, a dry run).
// Nothing is written on either side: no commerce create, no write-back onto the CRM record; the
// write-back is only shown. Reads are injected, so this runs against any CRM.
import { readableFields } from '../activities/crm-to-commerce.ts';
import { recordId, type CrmConnector, type CrmKind, type CrmRecord } from '../crm/connector.ts';
import type { CrmSide, CrmToCommerceFlow } from '../flows/crm-to-commerce.ts';
import type { ConnectionSettings, ShareRule } from '../sync/connection-settings.ts';
import type { ConnectionRuntime } from '../sync/runtime.ts';

export type ReverseTestDeps = {
  kind: CrmKind;
  settings: ConnectionSettings;
  /** The connector the record is read through (and the side's `related` reads with). */
  crm: CrmConnector;
  /** The fields the flow reads that this org has (a missing required one throws, naming it). */
  fields(side: CrmSide<unknown>): Promise<string[]>;
  /** The commerce side's rules for a request, in its own words (none: it would take it). A dry run. */
  validate(flow: CrmToCommerceFlow<unknown>, request: unknown): Promise<string[]>;
};

export type ReverseTestResult = {
  flow: string;
  object: string;
  recordId: string;
  /** The fields read from the record, with their values as the CRM gave them. */
  record?: CrmRecord;
  /** The record could not be read or tested (not there, a field missing in the org): nothing else is shown. */
  failed?: string;
  asks: boolean;
  /** Why the record asks for nothing. */
  why?: string;
  /** The flow's own refusal (the reasons written onto the record, before the commerce side is asked). */
  refused?: string;
  /** The exact request the commerce create would get. */
  request?: unknown;
  /** What the commerce side's rules say of the request (empty: it would take it). */
  problems: string[];
  /** The record already holds a commerce id in the flow's field: the sync makes nothing new for it. */
  alreadyMade?: { field: string; id: string };
  /** What the sync would write back onto the record (the new id shown as a placeholder). */
  writeBack?: CrmRecord;
  /** The connection does not run this flow now (co-sell off): said, the test still shows what it would do. */
  notRun?: string;
  ok: boolean;
};

/** Placeholders for what only a commerce record actually made would say (a test never makes one). */
export const NEW_ID = '(the id of the record made)';
const AS_MADE = { id: NEW_ID, status: '(its status once made)', stage: '(its stage once made)' };

const STAGE_FIELD: Record<CrmKind, string> = { salesforce: 'StageName', hubspot: 'dealstage', dynamics: 'stepname' };
const DRAFT_FIELD: Record<CrmKind, string> = { salesforce: 'Private_Offer_Requested__c', hubspot: 'private_offer_requested', dynamics: 'ccs_privateofferrequested' };
const shown = (value: unknown) => (value === undefined || value === null || value === '' ? 'empty' : JSON.stringify(value));

/** The share rule in words, with what the record holds in the field it reads. */
function notShared(rule: ShareRule, kind: CrmKind, record: CrmRecord): string {
  const field = rule.by === 'stage' ? STAGE_FIELD[kind] : rule.field;
  const wants = rule.by === 'checkbox' ? `${field} ticked` : `${field} one of ${(rule.by === 'stage' ? rule.stages : rule.values).join(', ')}`;
  return `It is not shared for co-sell: this connection's share rule wants ${wants}, and the record's ${field} is ${shown(record[field])}.`;
}

/** Why a record asks nothing of this flow, in the words of the flow's rule. */
function whyNot(flow: string, kind: CrmKind, settings: ConnectionSettings, record: CrmRecord): string {
  if (flow === 'opportunity-referral') return notShared(settings.cosell.share, kind, record);
  if (flow === 'opportunity-draft-offer') return `It does not ask for a private offer: ${DRAFT_FIELD[kind]} is ${shown(record[DRAFT_FIELD[kind]])}, not ticked.`;
  return 'The flow finds nothing to ask for in this record.';
}

export async function testCrmFlowOnRecord(deps: ReverseTestDeps, input: { flow: CrmToCommerceFlow<unknown>; recordId: string }): Promise<ReverseTestResult> {
  const { flow } = input;
  const side = flow.crm[deps.kind];
  const id = input.recordId.trim();
  const base = { flow: flow.name, object: side?.object ?? '', recordId: id, asks: false, problems: [], ok: false };
  if (!side) return { ...base, failed: `The ${flow.name} flow does not run on this CRM.` };
  const notRun = flow.enabled(deps.settings) ? undefined : `This connection does not run ${flow.name} now (co-sell is off in its settings); this is what it would do.`;
  const withNote = notRun ? { notRun } : {};

  let fields: string[];
  try {
    fields = await deps.fields(side);
  } catch (error) {
    const problems = (error as { problems?: string[] }).problems;
    return { ...base, ...withNote, failed: problems?.length ? problems.join('; ') : (error as Error).message };
  }
  // A query by id, as the co-sell read is one (a by-id retrieve takes no relationship paths such as
  // Account.Commerce_Buyer_Id__c); the activity's page is this page of one.
  const [record] = await deps.crm.findWhereIn(side.object, deps.crm.idField, [id], fields);
  if (!record) return { ...base, ...withNote, failed: `There is no ${side.object} ${id} in the CRM.` };
  const read = Object.fromEntries(fields.filter((field) => !field.includes('.')).map((field) => [field, record[field] ?? null]));
  // Relationship paths (Account.Commerce_Buyer_Id__c) come back nested; shown as the CRM gave them.
  for (const field of fields.filter((name) => name.includes('.'))) {
    const [head] = field.split('.');
    read[head!] = record[head!] ?? null;
  }
  const answer = { ...base, ...withNote, record: read };

  // As the activity asks: `related` for the page (here a page of one), then `ask` with what it found.
  const related = side.related ? await side.related(deps.crm, [record]) : undefined;
  const ask = side.ask(record, deps.settings, related?.get(recordId(deps.crm, record)));
  if (!ask.asks) return { ...answer, why: whyNot(flow.name, deps.kind, deps.settings, record), ok: true };

  const made = record[side.madeField];
  const alreadyMade = made ? { alreadyMade: { field: side.madeField, id: String(made) } } : {};
  if ('refused' in ask) return { ...answer, ...alreadyMade, asks: true, refused: ask.refused, writeBack: side.refused(ask.refused), ok: false };
  const problems = await deps.validate(flow, ask.request);
  return {
    ...answer,
    ...alreadyMade,
    asks: true,
    request: ask.request,
    problems,
    // The activity writes the problems as one message, one per line; a new record's id once made.
    writeBack: problems.length ? side.refused(problems.join('\n')) : side.made(AS_MADE),
    ok: problems.length === 0,
  };
}

/** The reads of a connection's runtime, as the co-sell activity makes them; validate is the commerce side's dry run. */
export function connectionReverseReads(rt: Pick<ConnectionRuntime, 'crm' | 'commerce' | 'settings'>): ReverseTestDeps {
  const orgId = rt.settings.commerce.organizationId;
  return {
    kind: rt.crm.kind,
    settings: rt.settings,
    crm: rt.crm,
    fields: (side) => readableFields(rt as ConnectionRuntime, side),
    validate: async (flow, request) => (flow.target.validate ? flow.target.validate(rt.commerce, orgId, request) : []),
  };
}

/** What a CRM flow reads and writes back on one connection, for its page (pure). */
export type CrmFlowView = {
  flow: string;
  object: string;
  /** Whether the connection runs it (co-sell on). */
  enabled: boolean;
  /** Fields read from each record (relationship paths included). */
  reads: string[];
  /** Read, and written back, only where the org has them. */
  optional: string[];
  /** The field that holds the commerce id once made. */
  madeField: string;
  /** Fields written back once the commerce record is made, and when it is refused. */
  writesWhenMade: string[];
  writesWhenRefused: string[];
};

export function crmFlowView(flow: CrmToCommerceFlow<unknown>, kind: CrmKind, settings: ConnectionSettings): CrmFlowView | undefined {
  const side = flow.crm[kind];
  if (!side) return undefined;
  return {
    flow: flow.name,
    object: side.object,
    enabled: flow.enabled(settings),
    reads: side.fields(settings),
    optional: side.optionalFields ?? [],
    madeField: side.madeField,
    writesWhenMade: Object.keys(side.made(AS_MADE)),
    writesWhenRefused: Object.keys(side.refused('reasons')),
  };
}
