// The live records of one sandbox run: the generated data set, indexed by id, plus what the API and the
// change driver add. Rows stay in ascending id order (the default order of A4), events in ascending
// (timestamp, eventID) order (A5). Injected poison rows (poison.ts) may lack an id or hold one that is
// not a string: they come after every string id, in the order they arrived, and get-by-id cannot
// reach them.
import { recordId } from './data/common.ts';
import { generateDataset, type GeneratorOptions } from './generator.ts';
import type { Buyer, Contact, Entitlement, EntitlementTerm, NotificationEvent, Offer, Organization, Product, Referral } from './types.ts';

export class Collection<T extends { id: string }> {
  readonly rows: T[];
  readonly byId: Map<string, T>;

  constructor(rows: T[]) {
    this.rows = rows.slice().sort((a, b) => compareIds(a.id, b.id));
    this.byId = new Map(this.rows.map((row) => [row.id, row]));
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  add(row: T): void {
    const indexed = typeof row.id === 'string';
    if (indexed && this.byId.has(row.id)) throw new Error(`duplicate id ${row.id}`);
    if (indexed) this.byId.set(row.id, row);
    // After every row that does not sort after it: rows without a string id keep their arrival order.
    const last = this.rows[this.rows.length - 1];
    if (!last || compareIds(last.id, row.id) <= 0) this.rows.push(row);
    else this.rows.splice(lowerBound(this.rows, (existing) => compareIds(existing.id, row.id) <= 0), 0, row);
  }
}

/** String ids by code unit; any other id (missing, null, a number: poison rows) after them, all equal. */
export function compareIds(a: unknown, b: unknown): number {
  const aString = typeof a === 'string';
  const bString = typeof b === 'string';
  if (aString && bString) return a < b ? -1 : a > b ? 1 : 0;
  return aString === bString ? 0 : aString ? -1 : 1;
}

/** First index whose row is not `before` (rows sorted so `before` is true on a prefix). */
function lowerBound<T>(rows: readonly T[], before: (row: T) => boolean): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(rows[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** (timestamp, eventID) by code unit; an injected event whose field is not a string sorts after the strings. */
const eventBefore = (a: NotificationEvent, b: NotificationEvent) => {
  const time = compareIds(a.timestamp, b.timestamp);
  return time < 0 || (time === 0 && compareIds(a.eventID, b.eventID) < 0);
};

export class EventLog {
  readonly rows: NotificationEvent[] = [];
  readonly byEntity = new Map<string, NotificationEvent[]>();
  /** Every string eventID held, so a new event never takes one an injected event already has. */
  readonly ids = new Set<string>();

  constructor(events: readonly NotificationEvent[]) {
    for (const event of events) this.add(event);
  }

  add(event: NotificationEvent): void {
    insertOrdered(this.rows, event);
    if (typeof event.eventID === 'string') this.ids.add(event.eventID);
    // An injected event without a string entityType and entityID names no entity to list it under.
    if (typeof event.entityType !== 'string' || typeof event.entityID !== 'string') return;
    const key = entityKey(event.entityType, event.entityID);
    const list = this.byEntity.get(key);
    if (list) insertOrdered(list, event);
    else this.byEntity.set(key, [event]);
  }

  forEntity(entityType: string, entityId: string): readonly NotificationEvent[] {
    return this.byEntity.get(entityKey(entityType, entityId)) ?? [];
  }
}

const entityKey = (entityType: string, entityId: string) => `${entityType.toUpperCase()}\u0000${entityId}`;

function insertOrdered(rows: NotificationEvent[], event: NotificationEvent) {
  const last = rows[rows.length - 1];
  // A clock moved backwards by a test (the `now` option) still leaves the log in order; events that
  // tie (only injected ones can) keep their arrival order.
  if (!last || !eventBefore(event, last)) rows.push(event);
  else rows.splice(lowerBound(rows, (existing) => !eventBefore(event, existing)), 0, event);
}

export type Store = {
  organizations: Collection<Organization>;
  products: Collection<Product>;
  buyers: Collection<Buyer>;
  contacts: Collection<Contact>;
  offers: Collection<Offer>;
  entitlements: Collection<Entitlement>;
  entitlementTerms: Collection<EntitlementTerm>;
  referrals: Collection<Referral>;
  events: EventLog;
  offersByExternalId: Map<string, Offer>;
  termsByEntitlement: Map<string, EntitlementTerm[]>;
  /** Rows that hold injected poison (poison.ts): the change driver leaves them alone. */
  injected: WeakSet<object>;
};

export function createStore(options: GeneratorOptions): Store {
  const data = generateDataset(options);
  const termsByEntitlement = new Map<string, EntitlementTerm[]>();
  for (const term of data.entitlementTerms) {
    const list = termsByEntitlement.get(term.entitlementID);
    if (list) list.push(term);
    else termsByEntitlement.set(term.entitlementID, [term]);
  }
  const offersByExternalId = new Map<string, Offer>();
  for (const offer of data.offers) if (offer.externalID) offersByExternalId.set(offer.externalID, offer);
  return {
    organizations: new Collection(data.organizations),
    products: new Collection(data.products),
    buyers: new Collection(data.buyers),
    contacts: new Collection(data.contacts),
    offers: new Collection(data.offers),
    entitlements: new Collection(data.entitlements),
    entitlementTerms: new Collection(data.entitlementTerms),
    referrals: new Collection(data.referrals),
    events: new EventLog(data.notificationEvents),
    offersByExternalId,
    termsByEntitlement,
    injected: new WeakSet(),
  };
}

export function addTerm(store: Store, term: EntitlementTerm): void {
  store.entitlementTerms.add(term);
  const list = store.termsByEntitlement.get(term.entitlementID);
  if (list) list.push(term);
  else store.termsByEntitlement.set(term.entitlementID, [term]);
}

/**
 * The number of the next record of a kind: one more than the rows held (ids are never reused because
 * records are only ever soft-deleted), skipping a number an injected row already took as its id.
 */
export function nextNumber(prefix: string, collection: Collection<{ id: string }>, width = 6): number {
  let n = collection.rows.length + 1;
  while (collection.get(recordId(prefix, n, width))) n++;
  return n;
}

export const nextId = (prefix: string, collection: Collection<{ id: string }>, width = 6) => recordId(prefix, nextNumber(prefix, collection, width), width);
