// The check every Dynamics 365 (Dataverse) sync test ends with: the environment holds what the documented
// Dynamics rules (mappings/dynamics/README.md, issue #12) say the commerce side should produce, worked out
// here field by field from the commerce records with the shared rules (expected-rules.ts), never with
// mappings/ or crm/: one row per buyer (account), offer (opportunity), entitlement and referral, one contact
// per email, each lookup pointing at the row of the record it belongs to (resolved through the key columns).
// A record Dataverse cannot take (a value that cannot be mapped, a lookup bound by key to a row that is not
// there, a carried GUID of no row) is not written: it is expected as a dead letter with its reason.
// Interface (as hubspot-state.ts): expectDynamicsMatchesCommerce(commerce, dynamics) -> the witness's view,
// dynamicsRejections(view) -> `entity:id` sorted, expectOpportunityWriteBack(commerce, dynamics).
//
// Choices where the README is silent (each stated so a reader can dispute it):
// - Offer status -> stepname: the README names the steps (1-Qualify, 2-Develop, 3-Propose, 4-Close, Won,
//   Lost) and says the table is in stages.ts, which holds only the co-sell tables. OFFER_STEP below follows
//   the other CRMs' tables step for step (draft -> first step, open -> proposal, failing/cancelling ->
//   the last open step, accepted/used -> won, expired/deleted -> lost) and the hand-worked fixtures
//   (test/fixtures/dynamics/expected-records.ts: ACCEPTED Won, PENDING_ACCEPTANCE 3-Propose, EXPIRED and
//   DELETED Lost). No createOnly column is documented for the five synced tables.
// - websiteurl is `https://<buyer.emailDomain>` (README: "buyer email domain"; the fixtures and the
//   Salesforce Website say how it is written).
// - A buyer carrying metaInfo.crmCAccountId / an offer carrying metaInfo.crmCOpportunityId is that row
//   (updated by GUID, never made: a GUID of no row is a rejection when the witness knows the rows).
// - Columns: every documented column of a row the sync made is compared; one the record does not give must
//   be empty. On a row the commerce record names by GUID (a seller's record the sync took over) only the
//   columns and lookups the record gives are compared.
import { expect } from 'vitest';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { commerceDump, commerceSnapshot, type CommerceSnapshot, type Entity } from './expected-crm.ts';
import {
  ACCOUNT_STATUS,
  expectedDate,
  expectedDateTime,
  ExpectedRejection,
  marketplaceOf,
  money,
  withoutAbsent,
  expectedEntitlementFacts,
} from './expected-rules.ts';

type Commerce = Pick<CommerceSandbox, 'apiUrl'>;
/** The Dataverse sandbox as the witness needs it: its test controls (GET /records/<table>). */
type Dynamics = Pick<DynamicsSandbox, 'controlUrl'>;

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];

/** Where each entity lives in Dataverse: table, entity set and key column (README "Tables, keys and links"). */
export const DYNAMICS_TARGET: Record<Entity, { table: string; entitySet: string; key: string }> = {
  buyer: { table: 'account', entitySet: 'accounts', key: 'ccs_commercebuyerid' },
  contact: { table: 'contact', entitySet: 'contacts', key: 'ccs_commercecontactid' },
  offer: { table: 'opportunity', entitySet: 'opportunities', key: 'ccs_commerceofferid' },
  entitlement: { table: 'ccs_marketplaceentitlement', entitySet: 'ccs_marketplaceentitlements', key: 'ccs_entitlementid' },
  referral: { table: 'ccs_cosellreferral', entitySet: 'ccs_cosellreferrals', key: 'ccs_commercereferralid' },
};

/** The primary id column of a table (Dataverse: `<logical name>id`). */
const idColumn = (entity: Entity) => `${DYNAMICS_TARGET[entity].table}id`;

/** README "Columns per table (besides the key)": the columns the sync of each entity writes. */
const COLUMNS: Record<Entity, string[]> = {
  buyer: ['name', 'websiteurl', 'address1_country', 'ccs_marketplace', 'ccs_marketplaceaccountid', 'ccs_marketplacestatus'],
  contact: ['emailaddress1', 'firstname', 'lastname', 'telephone1', 'jobtitle'],
  offer: ['name', 'stepname', 'statecode', 'estimatedclosedate', 'estimatedvalue', 'ccs_marketplace', 'ccs_offertype', 'ccs_offerstatus', 'ccs_offerurl', 'ccs_offerexpiration'],
  entitlement: [
    'ccs_name', 'ccs_status', 'ccs_startdate', 'ccs_enddate', 'ccs_commitamount', 'ccs_usedcommitamount', 'ccs_creditamount', 'ccs_usedcreditamount',
    'ccs_annualizedamount', 'ccs_currency', 'ccs_marketplace', 'ccs_marketplaceagreementid', 'ccs_marketplacesubscriptionid', 'ccs_productid', 'ccs_offerid',
    'ccs_invoicedamount', 'ccs_grossamount', 'ccs_collectableamount', 'ccs_disbursedamount', 'ccs_reportedamount', 'ccs_nettermsdays', 'ccs_autorenew',
    'ccs_agreementstatus', 'ccs_agreementpdfurl', 'ccs_agreementpdfnote', 'ccs_initialagreementid', 'ccs_paymentinstallments',
  ],
  referral: ['ccs_name', 'ccs_partner', 'ccs_status', 'ccs_stage', 'ccs_direction', 'ccs_dealvalue', 'ccs_currency', 'ccs_expectedclosedate'],
};

/** README "links": each table's lookups (logical names) and the entity whose row they point at. */
const LOOKUPS: Record<Entity, Record<string, Entity>> = {
  buyer: {},
  contact: { parentcustomerid: 'buyer' },
  offer: { parentaccountid: 'buyer' },
  entitlement: { ccs_accountid: 'buyer', ccs_opportunityid: 'offer' },
  referral: { ccs_accountid: 'buyer', ccs_opportunityid: 'offer' },
};

/** Date-only columns (README: "date only"); the other date columns are date-times. */
const DATE_ONLY = new Set(['estimatedclosedate', 'ccs_expectedclosedate']);

/**
 * The lengths Dataverse documents for the standard text columns the sync writes (Microsoft's account,
 * contact and opportunity table references): a longer value is refused, and that record waits as a
 * dead letter. The project's own ccs_ columns are long enough for any commerce value.
 */
const MAX_LENGTH: Partial<Record<Entity, Record<string, number>>> = {
  buyer: { name: 160, websiteurl: 200, address1_country: 80 },
  contact: { firstname: 50, lastname: 50, emailaddress1: 100, telephone1: 50, jobtitle: 100 },
  offer: { name: 300, stepname: 200 },
};

function tooLong(entity: Entity, expected: ExpectedDynamicsRecord): string | undefined {
  for (const [column, max] of Object.entries(MAX_LENGTH[entity] ?? {})) {
    const value = expected.columns[column] ?? expected.createOnly?.[column];
    if (typeof value === 'string' && value.length > max) return `${DYNAMICS_TARGET[entity].table}.${column} holds ${max} characters, the record gives ${value.length}`;
  }
  return undefined;
}

/** Offer status (§3) -> stepname, the Sales Process steps of the README (see the header for the choice). */
export const OFFER_STEP: Record<string, string> = {
  PENDING_CREATE: '1-Qualify',
  PENDING_ACCEPTANCE: '3-Propose',
  ACTIVE: '3-Propose',
  UPDATE_FAILED: '4-Close',
  PENDING_CANCEL: '4-Close',
  ACCEPTED: 'Won',
  USED: 'Won',
  EXPIRED: 'Lost',
  DELETED: 'Lost',
};

/**
 * Offer status -> the opportunity's statecode (issue #22 item 8: "an accepted offer ends with the
 * opportunity Won, an expired or cancelled one Lost"): Dataverse's Open 0, Won 1, Lost 2. Accepted and
 * used offers are won; expired, deleted and cancelled ones (Cancel Offer leaves PENDING_CANCEL, contract
 * A9) lost; the rest open.
 */
export const OFFER_STATECODE: Record<string, number> = {
  PENDING_CREATE: 0,
  PENDING_ACCEPTANCE: 0,
  ACTIVE: 0,
  UPDATE_FAILED: 0,
  PENDING_CANCEL: 2,
  ACCEPTED: 1,
  USED: 1,
  EXPIRED: 2,
  DELETED: 2,
};

/** Where a lookup should point: the row of a commerce record (by its key), or a GUID the record carries. */
export type ExpectedLookup = { entity: Entity; id: string } | { guid: string };

/** One expected Dataverse row. */
export type ExpectedDynamicsRecord = {
  key: string;
  /** Column logical name -> value (null clears it; a documented column left out is expected empty). */
  columns: Record<string, unknown>;
  /** Lookup logical name -> what it points at (a documented lookup left out is expected empty). */
  lookups: Record<string, ExpectedLookup>;
  /** Columns written only when the row is made (compared where the test knows the sync made it). */
  createOnly?: Record<string, unknown>;
  /** The GUID the row must have: the commerce record names its row (crmCAccountId, crmCOpportunityId). */
  crmId?: string;
};

export type DynamicsView = Record<Entity, { records: Map<string, ExpectedDynamicsRecord>; rejected: Map<string, string> }>;

/** What the environment holds: every row of each entity's table, as the sandbox stores it. */
export type DynamicsDump = Record<Entity, Record<string, unknown>[]>;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A GUID as Dataverse and the contract (§2.6) write it: lowercase, no braces; undefined when it is none. */
export function normalGuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const guid = value.trim().replace(/^\{(.*)\}$/, '$1').toLowerCase();
  return GUID.test(guid) ? guid : undefined;
}

/** A carried CRM id: absent when none, its GUID, or a rejection when it is no GUID. */
function carriedGuid(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const guid = normalGuid(value);
  if (!guid) throw new ExpectedRejection(`${where} ${JSON.stringify(value)} is not a Dataverse GUID`);
  return guid;
}

const requireId = (entity: Entity, source: { id?: unknown }) => {
  if (typeof source.id !== 'string' || !source.id) throw new ExpectedRejection(`the ${entity} has no id`);
  return source.id;
};

const link = (entity: Entity, id: unknown): ExpectedLookup | undefined => (typeof id === 'string' && id ? { entity, id } : undefined);
const links = (entries: Record<string, ExpectedLookup | undefined>) => withoutAbsent(entries) as Record<string, ExpectedLookup>;

function account(buyer: any): ExpectedDynamicsRecord {
  const id = requireId('buyer', buyer);
  return {
    key: id,
    columns: withoutAbsent({
      name: buyer.name || id,
      websiteurl: buyer.emailDomain ? `https://${buyer.emailDomain}` : undefined,
      address1_country: buyer.country,
      ccs_marketplace: marketplaceOf(buyer.partner),
      ccs_marketplaceaccountid: buyer.externalID,
      ccs_marketplacestatus: buyer.status ? (ACCOUNT_STATUS[buyer.status] ?? buyer.status) : undefined,
    }),
    lookups: {},
    ...withoutAbsent({ crmId: carriedGuid(buyer.metaInfo?.crmCAccountId, `buyer ${id}: metaInfo.crmCAccountId`) }),
  };
}

function contact(source: any): ExpectedDynamicsRecord {
  const id = requireId('contact', source);
  return {
    key: id,
    columns: withoutAbsent({ emailaddress1: source.email, firstname: source.firstName, lastname: source.lastName, telephone1: source.phone, jobtitle: source.title }),
    lookups: links({ parentcustomerid: link('buyer', source.buyerID) }),
  };
}

function opportunity(offer: any): ExpectedDynamicsRecord {
  const id = requireId('offer', offer);
  const where = (field: string) => `offer ${id}: ${field}`;
  // §9.5: a status no step is mapped for opens a new opportunity at PENDING_CREATE's step, state Open; the raw status is in ccs_offerstatus.
  const step = offer.status === undefined || offer.status === null ? OFFER_STEP.PENDING_CREATE : (OFFER_STEP[offer.status] ?? OFFER_STEP.PENDING_CREATE);
  const closeDate = expectedDate(offer.expireTime, where('expireTime')) ?? expectedDate(offer.metaInfo?.offerAcceptDate, where('metaInfo.offerAcceptDate')) ?? expectedDate(offer.creationTime, where('creationTime'));
  return {
    key: id,
    columns: withoutAbsent({
      name: offer.name || `Offer ${id}`,
      stepname: step,
      statecode: OFFER_STATECODE[offer.status ?? 'PENDING_CREATE'] ?? 0,
      estimatedclosedate: closeDate ?? undefined,
      estimatedvalue: money(offer.info?.commitAmount),
      ccs_marketplace: marketplaceOf(offer.partner),
      ccs_offertype: offer.offerType,
      ccs_offerstatus: offer.status,
      ccs_offerurl: offer.info?.privateOfferUrl,
      ccs_offerexpiration: expectedDateTime(offer.expireTime, where('expireTime')),
    }),
    lookups: links({ parentaccountid: link('buyer', offer.buyerID) }),
    ...withoutAbsent({ crmId: carriedGuid(offer.metaInfo?.crmCOpportunityId, where('metaInfo.crmCOpportunityId')) }),
  };
}

function entitlementRow(entitlement: any, terms: any[]): ExpectedDynamicsRecord {
  const id = requireId('entitlement', entitlement);
  const facts = expectedEntitlementFacts(entitlement, terms, id);
  return {
    key: id,
    columns: withoutAbsent({
      ccs_name: facts.name,
      ccs_status: facts.status,
      ccs_startdate: facts.start,
      ccs_enddate: facts.end,
      ccs_commitamount: facts.commitAmount,
      ccs_usedcommitamount: facts.usedCommitAmount,
      ccs_creditamount: facts.creditAmount,
      ccs_usedcreditamount: facts.usedCreditAmount,
      ccs_annualizedamount: facts.annualizedAmount,
      ccs_currency: facts.currency,
      ccs_marketplace: facts.marketplace,
      ccs_marketplaceagreementid: facts.agreementId,
      ccs_marketplacesubscriptionid: facts.subscriptionId,
      ccs_productid: facts.productId,
      ccs_offerid: facts.offerId,
      ccs_invoicedamount: facts.invoicedAmount,
      ccs_grossamount: facts.grossAmount,
      ccs_collectableamount: facts.collectableAmount,
      ccs_disbursedamount: facts.disbursedAmount,
      ccs_reportedamount: facts.reportedAmount,
      ccs_nettermsdays: facts.netTermsInDays,
      ccs_autorenew: facts.autoRenew,
      ccs_agreementstatus: facts.agreementStatus,
      ccs_agreementpdfurl: facts.agreementPdfUrl,
      ccs_agreementpdfnote: facts.agreementPdfNote,
      ccs_initialagreementid: facts.initialAgreementId,
      ccs_paymentinstallments: facts.paymentInstallments,
    }),
    lookups: links({ ccs_accountid: link('buyer', entitlement.buyerID), ccs_opportunityid: link('offer', entitlement.offerID) }),
  };
}

function referralRow(referral: any): ExpectedDynamicsRecord {
  const id = requireId('referral', referral);
  const carried = carriedGuid(referral.crmCOpportunityId, `referral ${id}: crmCOpportunityId`);
  return {
    key: id,
    columns: withoutAbsent({
      ccs_name: referral.name || id,
      ccs_partner: marketplaceOf(referral.partner),
      ccs_status: referral.status,
      ccs_stage: referral.stage,
      ccs_direction: referral.direction,
      ccs_dealvalue: money(referral.dealValue),
      ccs_currency: referral.currency,
      ccs_expectedclosedate: expectedDate(referral.expectedCloseDate, `referral ${id}: expectedCloseDate`),
    }),
    lookups: links({ ccs_accountid: link('buyer', referral.buyerID), ccs_opportunityid: carried ? { guid: carried } : link('offer', referral.offerID) }),
  };
}

/**
 * What the environment should hold for a commerce data set, when the connection syncs `synced`, parents
 * first. `environment.opportunityIds`: the opportunity GUIDs the environment really has, to tell whether a
 * carried crmCOpportunityId names one (an update by GUID of no row answers 404); without it, carried ids
 * are taken as valid.
 */
export function expectedDynamics(snapshot: CommerceSnapshot, synced: Entity[] = ENTITIES, environment: { opportunityIds?: ReadonlySet<string>; accountIds?: ReadonlySet<string> } = {}): DynamicsView {
  const termsOf = Map.groupBy(snapshot.entitlementTerms, (term: { entitlementID: string }) => term.entitlementID);
  const build: Record<Entity, (source: any) => ExpectedDynamicsRecord> = {
    buyer: account,
    contact,
    offer: opportunity,
    entitlement: (entitlement) => entitlementRow(entitlement, termsOf.get(entitlement.id) ?? []),
    referral: referralRow,
  };
  const known: Partial<Record<Entity, ReadonlySet<string>>> = { buyer: environment.accountIds, offer: environment.opportunityIds };
  const view = {} as DynamicsView;
  for (const entity of ENTITIES) {
    const entry = { records: new Map<string, ExpectedDynamicsRecord>(), rejected: new Map<string, string>() };
    view[entity] = entry;
    if (!synced.includes(entity)) continue;
    for (const source of snapshot[entity]) {
      try {
        const expected = build[entity](source);
        // A carried GUID of no row: the update by GUID answers 404 and the sync writes the record by its
        // key instead (as for Salesforce and HubSpot), so the row is one the sync made.
        if (expected.crmId && known[entity] && !known[entity]!.has(expected.crmId)) delete expected.crmId;
        const reason = tooLong(entity, expected) ?? unboundLookup(expected, view, synced, environment.opportunityIds);
        if (reason) entry.rejected.set(expected.key, reason);
        else entry.records.set(expected.key, expected);
      } catch (error) {
        if (!(error instanceof ExpectedRejection)) throw error;
        entry.rejected.set(String(source.id), error.message);
      }
    }
  }
  return view;
}

/** A lookup bound by key to a row Dataverse will not hold, or by a GUID of no row: the write is refused. */
function unboundLookup(expected: ExpectedDynamicsRecord, view: DynamicsView, synced: Entity[], opportunityIds?: ReadonlySet<string>): string | undefined {
  for (const [name, target] of Object.entries(expected.lookups)) {
    if ('guid' in target) {
      if (opportunityIds && !opportunityIds.has(target.guid)) return `${name}: the carried opportunity ${target.guid} is no opportunity of this environment (Dataverse answers 404)`;
      continue;
    }
    if (view[target.entity].records.has(target.id)) continue;
    const why = !synced.includes(target.entity) ? `${target.entity}s are not synced` : (view[target.entity].rejected.get(target.id) ?? `no ${target.entity} ${target.id} on the commerce side`);
    return `${name}: no ${DYNAMICS_TARGET[target.entity].table} with ${DYNAMICS_TARGET[target.entity].key} '${target.id}' (${why})`;
  }
  return undefined;
}

/**
 * Every row of one table through the sandbox's test control (a table setup has not made holds none), by
 * its logical name: an environment may give a custom table another entity set name.
 */
async function rowsOf(dynamics: Dynamics, table: string): Promise<Record<string, unknown>[]> {
  let body: any;
  try {
    body = await control(dynamics as DynamicsSandbox, 'GET', `/records/${table}`);
  } catch (error) {
    if (error instanceof Error && /HTTP 404 .*no table or entity set/.test(error.message)) return [];
    throw error;
  }
  return Array.isArray(body) ? body : (body?.records ?? body?.value ?? body?.rows ?? []);
}

export async function dynamicsDump(dynamics: Dynamics): Promise<DynamicsDump> {
  const entries = await Promise.all(ENTITIES.map(async (entity) => [entity, await rowsOf(dynamics, DYNAMICS_TARGET[entity].table)] as const));
  return Object.fromEntries(entries) as DynamicsDump;
}

const empty = (value: unknown) => value === undefined || value === null || value === '';

/** Compares one expected column with what Dataverse stored: numbers as numbers, date-times as instants (to the second), dates as days. */
function same(column: string, expected: unknown, stored: unknown): boolean {
  if (expected === null || expected === undefined) return empty(stored);
  if (empty(stored)) return false;
  if (typeof expected === 'number') return Number(stored) === expected;
  if (typeof expected === 'boolean') return stored === expected || String(stored) === String(expected);
  if (typeof expected === 'string' && DATE_ONLY.has(column)) return String(stored).slice(0, 10) === expected;
  if (typeof expected === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(expected)) {
    const [a, b] = [Date.parse(expected), typeof stored === 'number' ? stored : Date.parse(String(stored))];
    return !Number.isNaN(b) && Math.floor(a / 1000) === Math.floor(b / 1000);
  }
  return expected === stored;
}

/** A lookup as the sandbox answers it: `_<name>_value` (or the stored `{ id }`), lowercased. */
function lookupOf(row: Record<string, unknown>, name: string): string | undefined {
  const value = row[`_${name}_value`] ?? row[name];
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : value;
  return empty(id) ? undefined : (normalGuid(id) ?? String(id));
}

const show = (value: unknown) => JSON.stringify(value === undefined ? null : value);

/** Every way the environment differs from the witness (empty when in step). `createdBySync`: compare createOnly columns. */
export function dynamicsDifferences(snapshot: CommerceSnapshot, dump: DynamicsDump, view: DynamicsView, options: { createdBySync?: boolean } = {}): string[] {
  const problems: string[] = [];
  const guidOf = (entity: Entity, row: Record<string, unknown>) => normalGuid(row[idColumn(entity)]) ?? String(row[idColumn(entity)]);
  // Commerce id -> the row's GUID (contacts: of the row holding the person, filled below).
  const crmIdOf = {} as Record<Entity, Map<string, string>>;
  const keyed = {} as Record<Entity, Map<string, Record<string, unknown>[]>>;
  for (const entity of ENTITIES) {
    const { key } = DYNAMICS_TARGET[entity];
    keyed[entity] = Map.groupBy(dump[entity].filter((row) => !empty(row[key])), (row) => String(row[key]));
    crmIdOf[entity] = new Map([...keyed[entity]].map(([id, rows]) => [id, guidOf(entity, rows[0]!)]));
  }
  const rowDifferences = (entity: Entity, where: string, expected: ExpectedDynamicsRecord, row: Record<string, unknown>, compareColumns: boolean) => {
    const strict = !expected.crmId; // a row the sync made: a documented column it does not give is empty
    if (expected.crmId && guidOf(entity, row) !== expected.crmId) problems.push(`${where}: is ${idColumn(entity)} ${guidOf(entity, row)}, expected the carried ${expected.crmId}`);
    if (compareColumns) {
      const columns = { ...(strict ? Object.fromEntries(COLUMNS[entity].map((name) => [name, null])) : {}), ...expected.columns, ...(options.createdBySync ? expected.createOnly : {}) };
      for (const [name, value] of Object.entries(columns)) {
        if (!same(name, value, row[name])) problems.push(`${where}: ${name} is ${show(row[name])}, expected ${show(value)}`);
      }
    }
    for (const [name, target] of Object.entries(LOOKUPS[entity])) {
      const want = expected.lookups[name];
      if (!want && !strict) continue;
      const have = lookupOf(row, name);
      let wantGuid: string | undefined;
      let what = 'none';
      if (want && 'guid' in want) [wantGuid, what] = [want.guid, `the carried ${want.guid}`];
      else if (want) [wantGuid, what] = [crmIdOf[want.entity].get(want.id) ?? `(no ${DYNAMICS_TARGET[want.entity].table} for ${want.id})`, `the ${DYNAMICS_TARGET[want.entity].table} of ${want.entity} ${want.id}`];
      const pointedTable = row[`_${name}_value@Microsoft.Dynamics.CRM.lookuplogicalname`];
      if (have && have === wantGuid && want && !('guid' in want) && pointedTable !== undefined && pointedTable !== DYNAMICS_TARGET[want.entity].table) {
        problems.push(`${where}: _${name}_value points at a ${String(pointedTable)}, expected the ${DYNAMICS_TARGET[want.entity].table} of ${want.entity} ${want.id}`);
      }
      if (have !== wantGuid) {
        const pointsAt = have ? ([...crmIdOf[target]].find(([, guid]) => guid === have)?.[0] ?? 'no synced row') : undefined;
        problems.push(`${where}: _${name}_value is ${show(have)}${pointsAt ? ` (${target} ${pointsAt})` : ''}, expected ${what} (${show(wantGuid)})`);
      }
    }
  };

  // Rows by key, each entity but contacts (one per email: below); parents before children, so a
  // contact's account is known when its lookup is compared.
  for (const entity of ENTITIES) {
    if (entity === 'contact') continue;
    for (const [key, rows] of keyed[entity]) {
      if (rows.length > 1) problems.push(`${entity} ${key}: ${rows.length} ${DYNAMICS_TARGET[entity].table} rows hold it (duplicates)`);
      if (view[entity].rejected.has(key)) problems.push(`${entity} ${key}: in Dataverse, but expected to be rejected: ${view[entity].rejected.get(key)}`);
      else if (!view[entity].records.has(key)) problems.push(`${entity} ${key}: in Dataverse, but the witness expects none`);
    }
  }
  // Contacts: one per email (without case); a contact without an email is one of its own. The row holding
  // a person carries the key of the commerce contact that made it and keeps that contact's account; the
  // others of the same email are written onto it (their columns: any of them, the last written wins).
  const contactRows = dump.contact;
  const byPerson = Map.groupBy([...view.contact.records.values()], (expected) =>
    typeof expected.columns.emailaddress1 === 'string' && expected.columns.emailaddress1 ? `email ${expected.columns.emailaddress1.toLowerCase()}` : `id ${expected.key}`,
  );
  const held = new Set<string>();
  for (const [person, group] of byPerson) {
    const keys = group.map((expected) => expected.key);
    const holders = contactRows.filter((row) =>
      person.startsWith('email ') ? String(row.emailaddress1 ?? '').toLowerCase() === person.slice(6) : row.ccs_commercecontactid === group[0]!.key,
    );
    if (holders.length !== 1) {
      problems.push(`contact ${keys.join(', ')}: ${holders.length} contact rows hold ${person}${holders.length > 1 ? ' (duplicates)' : ''}`);
      if (holders.length === 0) continue;
    }
    const holder = holders.find((row) => keys.includes(String(row.ccs_commercecontactid))) ?? holders[0]!;
    held.add(guidOf('contact', holder));
    const first = group.find((expected) => expected.key === holder.ccs_commercecontactid);
    if (!first) {
      problems.push(`contact ${person}: held by ccs_commercecontactid ${show(holder.ccs_commercecontactid)}, none of ${keys.join(', ')}`);
      continue;
    }
    for (const expected of group) crmIdOf.contact.set(expected.key, guidOf('contact', holder));
    rowDifferences('contact', `contact ${first.key}`, first, holder, group.length === 1);
  }
  for (const [key, rows] of keyed.contact) {
    for (const row of rows) {
      if (held.has(guidOf('contact', row))) continue;
      if (view.contact.rejected.has(key)) problems.push(`contact ${key}: in Dataverse, but expected to be rejected: ${view.contact.rejected.get(key)}`);
      else if (view.contact.records.has(key)) problems.push(`contact ${key}: a second contact row holds it (${String(row.emailaddress1 ?? 'no email')}), the person is one contact`);
      else problems.push(`contact ${key}: in Dataverse, but the witness expects none`);
    }
  }
  for (const entity of ENTITIES) {
    if (entity === 'contact') continue;
    for (const [key, expected] of view[entity].records) {
      const row = keyed[entity].get(key)?.[0];
      if (!row) problems.push(`${entity} ${key}: missing from Dataverse`);
      else rowDifferences(entity, `${entity} ${key}`, expected, row, true);
    }
  }
  void snapshot;
  return problems;
}

/** The environment matches the commerce side; returns the witness's view (for its rejections). */
/** The witness's view for the commerce side now, knowing which account and opportunity GUIDs the environment has. */
export async function expectedAgainstEnvironment(commerce: Commerce, dynamics: Dynamics, synced: Entity[] = ENTITIES) {
  const [snapshot, dump] = await Promise.all([commerceSnapshot(commerce), dynamicsDump(dynamics)]);
  const guids = (entity: Entity) => new Set(dump[entity].map((row) => normalGuid(row[idColumn(entity)])).filter((id): id is string => Boolean(id)));
  return { snapshot, dump, view: expectedDynamics(snapshot, synced, { opportunityIds: guids('offer'), accountIds: guids('buyer') }) };
}

export async function expectDynamicsMatchesCommerce(commerce: Commerce, dynamics: Dynamics, synced: Entity[] = ENTITIES): Promise<DynamicsView> {
  const { snapshot, dump, view } = await expectedAgainstEnvironment(commerce, dynamics, synced);
  const differences = dynamicsDifferences(snapshot, dump, view);
  if (differences.length) throw new Error(`Dataverse differs from the commerce side (${differences.length}):\n${differences.join('\n')}`);
  return view;
}

/** Every record the witness expects to be a dead letter, as `entity:sourceId`, sorted. */
export function dynamicsRejections(view: DynamicsView): string[] {
  return ENTITIES.flatMap((entity) => [...view[entity].rejected.keys()].map((id) => `${entity}:${id}`)).sort();
}

/**
 * Write-back (README "Ids going back"): every offer with an opportunity carries its GUID, lowercase without
 * braces, in metaInfo.crmCOpportunityId; so does every referral with an inbound opportunity
 * (ccs_commercereferralid on an opportunity row) in crmCOpportunityId.
 */
export async function expectOpportunityWriteBack(commerce: Commerce, dynamics: Dynamics): Promise<void> {
  const opportunities = await rowsOf(dynamics, DYNAMICS_TARGET.offer.table);
  const opportunityOf = (key: string) => new Map(opportunities.filter((row) => !empty(row[key])).map((row) => [String(row[key]), normalGuid(row.opportunityid) ?? String(row.opportunityid)]));
  let checked = 0;
  for (const [kind, key, read] of [
    ['offers', 'ccs_commerceofferid', (record: any) => record.metaInfo?.crmCOpportunityId],
    ['referrals', 'ccs_commercereferralid', (record: any) => record.crmCOpportunityId],
  ] as const) {
    const rows = opportunityOf(key);
    for (const record of await commerceDump(commerce, kind)) {
      const guid = rows.get(record.id);
      if (!guid) continue;
      expect(read(record), `${kind} ${record.id} carries its opportunity's GUID (lowercase, no braces)`).toBe(guid);
      checked += 1;
    }
  }
  expect(checked).toBeGreaterThan(0);
}
