// Pure planning of one page: map every record, compare its content hash with the record link, and
// decide what to write. Nothing here performs I/O.
import type { UpsertItem } from '../crm/connector.ts';
import { applyMapping, type EntityOverrides } from '../mappings/overrides.ts';
import type { EntityMapping, MappedRecord } from '../mappings/types.ts';
import type { RecordLink } from '../store/record-links.ts';
import { contentHash } from './hash.ts';

export type PlannedWrite = { item: UpsertItem; record: MappedRecord; hash: string; linked: boolean };
export type PlannedRejection = { sourceId: string; reason: string; payload?: unknown };

export type PagePlan = {
  writes: PlannedWrite[];
  unchanged: string[];
  rejected: PlannedRejection[];
};

export function planPage<S extends { id: string }, R>(input: {
  records: S[];
  related: (record: S) => R;
  mapping: EntityMapping<S, R>;
  overrides?: EntityOverrides;
  links: Map<string, RecordLink>;
}): PagePlan {
  const plan: PagePlan = { writes: [], unchanged: [], rejected: [] };
  for (const source of input.records) {
    const mapped = applyMapping(input.mapping, input.overrides, source, input.related(source));
    if (!mapped.ok) {
      plan.rejected.push({ sourceId: source.id, reason: mapped.reason });
      continue;
    }
    const hash = contentHash(mapped.record);
    const link = input.links.get(source.id);
    if (link && link.contentHash === hash) {
      plan.unchanged.push(source.id);
      continue;
    }
    // A CRM id already recorded wins; next the id the commerce record carries; else the external id.
    const crmId = link?.crmId ?? mapped.record.carriedCrmId;
    plan.writes.push({
      item: { sourceId: source.id, externalIdField: mapped.record.externalIdField, externalId: mapped.record.externalId, crmId: crmId ?? undefined, fields: mapped.record.fields },
      record: mapped.record,
      hash,
      linked: Boolean(crmId),
    });
  }
  return plan;
}
