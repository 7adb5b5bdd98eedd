// Pure planning of one page: map every record, compare its content hash with the record link, and
// decide what to write. Nothing here performs I/O.
import type { UpsertItem } from '../crm/connector.ts';
import { applyMapping, effectiveCreateOnly, effectiveSellerKeeps, type EntityOverrides } from '../mappings/overrides.ts';
import type { EntityMapping, MappedRecord } from '../mappings/types.ts';
import type { RecordLink } from '../store/record-links.ts';
import { contentHash } from './hash.ts';

export type PlannedWrite = {
  item: UpsertItem;
  record: MappedRecord;
  hash: string;
  linked: boolean;
  /** The source record's version (lastUpdateTime) this write carries. */
  version?: Date;
  /** The seller relinked the record on the commerce side: the CRM record it was linked to before. */
  relinkedFrom?: string;
  /** The CRM id is the one the commerce record carries and this connection has never written: it may name nothing in this org. */
  carriedUnconfirmed?: boolean;
};
export type PlannedRejection = { sourceId: string; reason: string; payload?: unknown };

export type PagePlan = {
  writes: PlannedWrite[];
  unchanged: string[];
  rejected: PlannedRejection[];
  /** Older snapshots than the CRM already holds (another writer was faster): not written. */
  superseded: string[];
  /** Values the picklist maps lack, by record: their fields were left out, the rest written (§9.5). */
  unknown: { sourceId: string; field: string; value: string }[];
};

export function planPage<S extends { id: string }, R>(input: {
  records: S[];
  related: (record: S) => R;
  mapping: EntityMapping<S, R>;
  overrides?: EntityOverrides;
  links: Map<string, RecordLink>;
  /** Each record's version (its lastUpdateTime): an older one than the link records is superseded. */
  version?: (record: S) => Date | undefined;
  /**
   * Whether CRM ids carried on commerce records (metaInfo.crmAOpportunityId, ...) belong to this
   * connection's CRM org: only the connection that writes ids back may follow them. Another org's
   * connection (UAT beside production) keys its records by external id alone.
   */
  followCarriedIds?: boolean;
  /** Source ids whose CRM record is the seller's own (mapping.sellerKeeps stay as the seller keeps them). */
  sellersRecords?: ReadonlySet<string>;
}): PagePlan {
  const plan: PagePlan = { writes: [], unchanged: [], rejected: [], superseded: [], unknown: [] };
  const followCarried = input.followCarriedIds ?? true;
  for (const source of input.records) {
    const link = input.links.get(source.id);
    const version = input.version?.(source);
    if (version && link?.sourceVersion && version < link.sourceVersion) {
      plan.superseded.push(source.id);
      continue;
    }
    const mapped = applyMapping(input.mapping, input.overrides, source, input.related(source));
    if (!mapped.ok) {
      plan.rejected.push({ sourceId: source.id, reason: mapped.reason });
      continue;
    }
    for (const { field, value } of mapped.unknown ?? []) plan.unknown.push({ sourceId: source.id, field, value });
    // The mapping's create-only and seller-kept fields and those the connection added (its overrides, e.g. from the console's mapping page).
    const createOnly = [...effectiveCreateOnly(input.mapping, input.overrides), ...(input.sellersRecords?.has(source.id) ? effectiveSellerKeeps(input.mapping, input.overrides) : [])];
    const hash = contentHash(createOnly.length ? { ...mapped.record, fields: without(mapped.record.fields, createOnly) } : mapped.record);
    const carried = followCarried ? mapped.record.carriedCrmId || undefined : undefined;
    // The commerce side now names another CRM record than the one we linked and than the one it named
    // when we last wrote: the seller relinked it there, and a relink on the commerce side wins (the link
    // moves; the old record is not written again). A carried id we have seen before is not news (an id
    // of another org, or one our write-back has not replaced yet); links from before this rule carry none.
    const relinkedFrom = carried && link?.crmId && link.carriedId && carried !== link.crmId && carried !== link.carriedId ? link.crmId : undefined;
    if (link && link.contentHash === hash && !relinkedFrom) {
      plan.unchanged.push(source.id);
      continue;
    }
    // A relink wins; else the CRM id already recorded; next the id the commerce record carries; else the external id.
    const crmId = relinkedFrom ? carried : (link?.crmId ?? carried);
    // A record the CRM already holds (linked) gets no create-only field.
    const kept = crmId && createOnly.length ? without(mapped.record.fields, createOnly) : mapped.record.fields;
    // A new record takes the opening value where its status is unknown (the CRM may require the field); not in the hash.
    const openings = crmId ? [] : (mapped.unknown ?? []).filter((value) => value.onCreate !== undefined);
    const fields = openings.length ? { ...kept, ...Object.fromEntries(openings.map((value) => [value.field, value.onCreate])) } : kept;
    plan.writes.push({
      item: { sourceId: source.id, externalIdField: mapped.record.externalIdField, externalId: mapped.record.externalId, crmId: crmId ?? undefined, fields },
      record: mapped.record,
      hash,
      linked: Boolean(crmId),
      version,
      relinkedFrom,
      ...(!relinkedFrom && !link?.crmId && carried && { carriedUnconfirmed: true }),
    });
  }
  return plan;
}

function without(fields: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !names.includes(name)));
}
