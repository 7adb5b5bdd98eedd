// The live records of one sandbox run: the generated data set, indexed by id, plus what the API and the
// change driver add. Rows stay in ascending id order (the default order of A4), events in ascending
// (timestamp, eventID) order (A5).
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
    if (this.byId.has(row.id)) throw new Error(`duplicate id ${row.id}`);
    this.byId.set(row.id, row);
    const last = this.rows[this.rows.length - 1];
    if (!last || compareIds(last.id, row.id) < 0) this.rows.push(row);
    else this.rows.splice(lowerBound(this.rows, (existing) => compareIds(existing.id, row.id) < 0), 0, row);
  }
}

export const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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

const eventBefore = (a: NotificationEvent, b: NotificationEvent) =>
  a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.eventID < b.eventID);

export class EventLog {
  readonly rows: NotificationEvent[] = [];
  readonly byEntity = new Map<string, NotificationEvent[]>();

  constructor(events: readonly NotificationEvent[]) {
    for (const event of events) this.add(event);
  }

  add(event: NotificationEvent): void {
    insertOrdered(this.rows, event);
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
  // A clock moved backwards by a test (the `now` option) still leaves the log in order.
  if (!last || eventBefore(last, event)) rows.push(event);
  else rows.splice(lowerBound(rows, (existing) => eventBefore(existing, event)), 0, event);
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
  };
}

export function addTerm(store: Store, term: EntitlementTerm): void {
  store.entitlementTerms.add(term);
  const list = store.termsByEntitlement.get(term.entitlementID);
  if (list) list.push(term);
  else store.termsByEntitlement.set(term.entitlementID, [term]);
}

/** The next id of a kind: ids are never reused because records are only ever soft-deleted. */
export function nextId(prefix: string, rows: readonly unknown[], width = 6): string {
  return `${prefix}-${String(rows.length + 1).padStart(width, '0')}`;
}
