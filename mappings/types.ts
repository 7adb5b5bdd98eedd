// The mapping model shared by all CRMs: a mapping is a pure function from a commerce record (plus
// what it links to) to the fields of one CRM object, keyed by an external id field.

/** The commerce-to-CRM flows. `inbound-referral` runs with co-sell, not as one of a connection's entities. */
export type Entity =
  | 'buyer' | 'contact' | 'offer' | 'entitlement' | 'referral' | 'inbound-referral' | 'usage' | 'renewal' | 'usage-summary' | 'live-agreement' | 'timeline'
  | 'catalogue' | 'catalogue-standard-price' | 'catalogue-price';
/** The entities a connection syncs by default (and may choose among). */
export const ENTITIES: readonly Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];

/**
 * The product catalogue (issue #28 section 1; docs/catalogue.md): `catalogue` (the products) and its two
 * price flows, which a connection never chooses alone: they come with `catalogue` (withCatalogueFlows).
 */
export const CATALOGUE_PRICE_FLOWS: readonly Entity[] = ['catalogue-standard-price', 'catalogue-price'];
export const CATALOGUE_FLOWS: readonly Entity[] = ['catalogue', ...CATALOGUE_PRICE_FLOWS];
/**
 * The price flows each CRM kind runs (the ones flows/catalogue.ts maps for it): Salesforce's standard
 * price book first, then the named one; Dynamics' price lists; none on HubSpot, whose products hold their prices.
 */
export const CATALOGUE_PRICE_FLOWS_BY_KIND: Readonly<Record<'salesforce' | 'hubspot' | 'dynamics', readonly Entity[]>> = {
  salesforce: ['catalogue-standard-price', 'catalogue-price'],
  hubspot: [],
  dynamics: ['catalogue-price'],
};

/** A connection's entities with its CRM's catalogue price flows exactly when `catalogue` is among them. */
export function withCatalogueFlows(entities: readonly Entity[], kind: keyof typeof CATALOGUE_PRICE_FLOWS_BY_KIND): Entity[] {
  const others = entities.filter((entity) => !CATALOGUE_PRICE_FLOWS.includes(entity));
  return others.includes('catalogue') ? [...others, ...CATALOGUE_PRICE_FLOWS_BY_KIND[kind]] : others;
}
/**
 * What a connection may choose: the defaults and the flows it must ask for. Usage (days of usage per
 * entitlement and dimension, issue #25 section 4) is asked for: its CRM object exists once `crm-sync
 * setup` made it, and an account without it (HubSpot without custom objects) must not stop the rest.
 */
export const CHOOSABLE_ENTITIES: readonly Entity[] = [...ENTITIES, 'usage', 'renewal', 'usage-summary', 'live-agreement', 'timeline', ...CATALOGUE_FLOWS];
// usage-summary: an entitlement's usage on its own CRM record (billed amount, commit burn-down, last usage day, failed reports).
// Renewals and live agreements (issue #25 section 3) are asked for too: their fields exist once `crm-sync setup` made them.
// timeline (issue #27 section 1): the notification events about the records a connection syncs, as activities on those records.

export type MappedRecord = {
  object: string;
  externalIdField: string;
  externalId: string;
  /** A CRM id the commerce record itself carries (e.g. metaInfo.crmAOpportunityId). */
  carriedCrmId?: string;
  fields: Record<string, unknown>;
};

/** A source value a picklist map lacks (contract §9.5: the service may add values): its field was left as the CRM holds it. */
export type UnknownValue = { field: string; value: string; /** What a new record takes there instead (EntityMapping.unknownOnCreate). */ onCreate?: unknown };

/**
 * A mapping either produces a record or says, for a person, why the source cannot be mapped. `unknown`:
 * values the record's picklist maps lack, whose fields were left out (the rest of the record is written).
 */
export type MappingResult = { ok: true; record: MappedRecord; unknown?: UnknownValue[] } | { ok: false; reason: string };

/** Picklist translation: source value -> CRM value (e.g. offer status -> Opportunity stage). */
export type PicklistMap = Record<string, string>;

export type EntityMapping<Source, Related = unknown> = {
  entity: Entity;
  object: string;
  externalIdField: string;
  /**
   * Default picklist maps, by the CRM field they fill; overridable per connection. A source value a map
   * lacks leaves its field as the CRM holds it (the last known stage), the rest of the record is written,
   * and the value is counted and logged once (contract §9.5; activities/unknown-values.ts).
   */
  picklists: Record<string, PicklistMap>;
  /**
   * Picklist-mapped fields for which a source value the map lacks means "leave the CRM's value as it is".
   * Every picklist field now does (issue #25 section 5); kept for the declarations that name it.
   */
  unmappedLeavesAlone?: string[];
  /**
   * The source value whose mapping a NEW record takes in a picklist field whose value the map lacks (the
   * CRM may require the field on a create: Salesforce's StageName): the offer's PENDING_CREATE, an
   * opening stage. An existing record keeps its value.
   */
  unknownOnCreate?: string;
  /** Which source field feeds each picklist-mapped CRM field. */
  map(source: Source, related: Related): MappingResult;
  /** Documentation of every default field: CRM field -> where its value comes from. */
  describe: Record<string, string>;
  /**
   * Fields written only when the CRM record is made, never on an update (another flow owns them after
   * that, e.g. the stage, kept in step both ways under the connection's policy). Not in the content hash.
   */
  createOnly?: string[];
  /**
   * Fields that stay the seller's on a seller's own CRM record: one the seller made in the CRM, from which
   * a CRM-to-commerce flow made the commerce record (CommerceToCrmFlow.sellersRecordsFrom), e.g. the
   * Opportunity a private offer was drafted from keeps its stage and close date. Never written onto such
   * a record (as createOnly: the sync never makes it); written as usual onto records the sync made.
   */
  sellerKeeps?: string[];
  /**
   * Fields not every org has (Salesforce's CurrencyIsoCode exists only where multi-currency is on):
   * written where the described object has them, left out of the record (and its content hash) where it
   * does not, so such an org sees exactly what it saw before the field was mapped (mappings/fit-to-schema.ts).
   */
  optionalFields?: string[];
  /**
   * The key may be an external id the CRM does not keep unique (Salesforce activity fields: the timeline's
   * Task.Commerce_Event_Id__c): the connection check accepts it, and exactly once rests on the record
   * links and the upsert's lookup by the key under the entity lock (docs/timeline.md).
   */
  keyNeedNotBeUnique?: boolean;
};

export const ok = (record: MappedRecord): MappingResult => ({ ok: true, record });
export const fail = (reason: string): MappingResult => ({ ok: false, reason });
