// The mapping model shared by all CRMs: a mapping is a pure function from a commerce record (plus
// what it links to) to the fields of one CRM object, keyed by an external id field.

/** The commerce-to-CRM flows. `inbound-referral` runs with co-sell, not as one of a connection's entities. */
export type Entity = 'buyer' | 'contact' | 'offer' | 'entitlement' | 'referral' | 'inbound-referral';
/** The entities a connection syncs by default (and may choose among). */
export const ENTITIES: readonly Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];

export type MappedRecord = {
  object: string;
  externalIdField: string;
  externalId: string;
  /** A CRM id the commerce record itself carries (e.g. metaInfo.crmAOpportunityId). */
  carriedCrmId?: string;
  fields: Record<string, unknown>;
};

/** A mapping either produces a record or says, for a person, why the source cannot be mapped. */
export type MappingResult = { ok: true; record: MappedRecord } | { ok: false; reason: string };

/** Picklist translation: source value -> CRM value (e.g. offer status -> Opportunity stage). */
export type PicklistMap = Record<string, string>;

export type EntityMapping<Source, Related = unknown> = {
  entity: Entity;
  object: string;
  externalIdField: string;
  /**
   * Default picklist maps, by the CRM field they fill; overridable per connection. A source value a map
   * lacks refuses the record (it names the value and the map to add it to), unless its field is in
   * `unmappedLeavesAlone`.
   */
  picklists: Record<string, PicklistMap>;
  /**
   * Picklist-mapped fields for which a source value the map lacks means "leave the CRM's value as it is":
   * the field is left out of the record and the rest is written. For a field that moves the CRM record
   * somewhere (Dataverse's opportunity state: a close or a re-open), where an unknown status must not
   * stop the record's other columns.
   */
  unmappedLeavesAlone?: string[];
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
};

export const ok = (record: MappedRecord): MappingResult => ({ ok: true, record });
export const fail = (reason: string): MappingResult => ({ ok: false, reason });
