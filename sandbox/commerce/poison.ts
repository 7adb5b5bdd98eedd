// Poison records (POST /_sandbox/records/{kind}): rows stored verbatim, however wrong, so a client
// meets what production will send one day: no id, a lastUpdateTime that is no date, a number where a
// string belongs, an unknown enum value, an event without eventID or of an unknown version. The
// sandbox serves them as a service serves a bad row it holds: through the same lists, queries,
// filters and (lastUpdateTime, id) order as every other row (README "Poison records").
import { forgetParties } from './change-driver.ts';
import { badRequest, notFound } from './errors.ts';
import { isPlainObject } from './http-util.ts';
import type { SandboxState } from './state.ts';
import { addTerm, type Store } from './store.ts';
import type { EntitlementTerm, NotificationEvent, Offer } from './types.ts';

export const INJECTABLE_KINDS = ['buyers', 'contacts', 'offers', 'entitlements', 'entitlementTerms', 'referrals', 'products', 'notificationEvents'] as const;
export type InjectableKind = (typeof INJECTABLE_KINDS)[number];
type Row = Record<string, unknown>;

const MAX_ROWS = 10_000;

const describeJson = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/** The kind and rows of an injection request; a bad kind is a 404, a bad body a 400 naming the item. */
export function parseInjection(kind: string, body: unknown): { kind: InjectableKind; rows: Row[] } {
  if (!(INJECTABLE_KINDS as readonly string[]).includes(kind)) throw notFound(`records of kind ${kind} cannot be injected; one of ${INJECTABLE_KINDS.join(', ')}`);
  if (!isPlainObject(body)) throw badRequest('the body must be a JSON object {"records": [ ... ]}');
  for (const key of Object.keys(body)) if (key !== 'records') throw badRequest(`unknown field ${key}; expected records`);
  const rows = body.records;
  if (!Array.isArray(rows)) throw badRequest('records must be a list of JSON objects', { field: 'records' });
  if (rows.length > MAX_ROWS) throw badRequest(`at most ${MAX_ROWS} records at a time, got ${rows.length}`, { field: 'records' });
  rows.forEach((row, index) => {
    if (!isPlainObject(row)) throw badRequest(`records[${index}] must be a JSON object, got ${describeJson(row)}`, { field: `records[${index}]` });
  });
  return { kind: kind as InjectableKind, rows: rows as Row[] };
}

/** Keeps the by-external-id and terms indexes right when a row's content is swapped in place. */
function unindex(store: Store, kind: InjectableKind, row: Row) {
  if (kind === 'offers' && typeof row.externalID === 'string' && store.offersByExternalId.get(row.externalID) === (row as unknown)) store.offersByExternalId.delete(row.externalID);
  if (kind === 'entitlementTerms' && typeof row.entitlementID === 'string') {
    const list = store.termsByEntitlement.get(row.entitlementID);
    const at = list ? list.indexOf(row as unknown as EntitlementTerm) : -1;
    if (at >= 0) list!.splice(at, 1);
  }
}

function index(store: Store, kind: InjectableKind, row: Row) {
  if (kind === 'offers' && typeof row.externalID === 'string') store.offersByExternalId.set(row.externalID, row as unknown as Offer);
  if (kind === 'entitlementTerms' && typeof row.entitlementID === 'string') {
    const list = store.termsByEntitlement.get(row.entitlementID);
    if (list) list.push(row as unknown as EntitlementTerm);
    else store.termsByEntitlement.set(row.entitlementID, [row as unknown as EntitlementTerm]);
  }
}

/**
 * Stores `rows` verbatim. A row whose string id is already held replaces that record's content in
 * place (a known record turned bad: every index keeps pointing at it); any other row is added. Events
 * are always added. Every row stored is marked, so the change driver leaves it alone.
 */
export function injectRecords(store: Store, kind: InjectableKind, rows: readonly Row[]): { added: number; replaced: number } {
  let added = 0;
  let replaced = 0;
  for (const row of rows) {
    if (kind === 'notificationEvents') {
      store.events.add(row as unknown as NotificationEvent);
      store.injected.add(row);
      added++;
      continue;
    }
    const collection = store[kind];
    const current = typeof row.id === 'string' ? (collection.get(row.id) as Row | undefined) : undefined;
    if (current) {
      unindex(store, kind, current);
      for (const key of Object.keys(current)) delete current[key];
      Object.assign(current, row);
      index(store, kind, current);
      store.injected.add(current);
      replaced++;
    } else {
      if (kind === 'entitlementTerms') {
        // addTerm indexes by entitlementID; a term without a string one is held but listed under no entitlement.
        if (typeof row.entitlementID === 'string') addTerm(store, row as unknown as EntitlementTerm);
        else store.entitlementTerms.add(row as unknown as EntitlementTerm);
      } else {
        collection.add(row as never);
        index(store, kind, row);
      }
      store.injected.add(row);
      added++;
    }
  }
  if (kind === 'buyers' || kind === 'contacts') forgetParties(store);
  return { added, replaced };
}

/** POST /_sandbox/records/{kind}: stores the rows, then journals them (one line) before the answer. */
export function injectPoison(state: SandboxState, kind: InjectableKind, rows: readonly Row[]) {
  const result = injectRecords(state.store, kind, rows);
  state.journal?.inject(kind, rows);
  return { kind, ...result, total: kind === 'notificationEvents' ? state.store.events.rows.length : state.store[kind].rows.length };
}
