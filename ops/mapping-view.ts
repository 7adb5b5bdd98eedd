// The mapping in effect for one connection, as a person reads it: per entity and direction, which CRM
// object and key, each CRM field and where its value comes from, after the connection's overrides
// (renamed, disabled, constant, picklists merged), and the co-sell conflict policy. Pure.
import { CRM_FLOWS } from '../flows/index.ts';
import { mappingsFor } from '../crm/registry.ts';
import type { MappingOverrides } from '../mappings/overrides.ts';
import type { Entity, EntityMapping, PicklistMap } from '../mappings/types.ts';
import type { ConnectionSettings } from '../sync/connection-settings.ts';

export type FieldInEffect = { field: string; from: string; createOnly?: boolean; renamedFrom?: string; constant?: boolean };

export type EntityInEffect = {
  entity: Entity;
  direction: 'commerce-to-crm';
  object: string;
  key: string;
  synced: boolean;
  fields: FieldInEffect[];
  disabled: string[];
  picklists: Record<string, PicklistMap>;
};

export type CrmFlowInEffect = { flow: string; direction: 'crm-to-commerce'; object: string; enabled: boolean; reads: string[]; commerceIdField: string };

export type MappingInEffect = {
  crmKind: string;
  commerceToCrm: EntityInEffect[];
  crmToCommerce: CrmFlowInEffect[];
  cosell: { enabled: boolean; stageOwner: string; share: unknown; stages: unknown };
  overrides: MappingOverrides;
};

function entityInEffect(mapping: EntityMapping<any, any>, overrides: MappingOverrides[Entity], synced: boolean): EntityInEffect {
  const disabled = overrides?.disable ?? [];
  const fields: FieldInEffect[] = [];
  for (const [field, from] of Object.entries(mapping.describe)) {
    if (disabled.includes(field)) continue;
    const renamed = overrides?.rename?.[field];
    fields.push({ field: renamed ?? field, from, ...(renamed && { renamedFrom: field }), ...(mapping.createOnly?.includes(field) && { createOnly: true }) });
  }
  for (const [field, value] of Object.entries(overrides?.constants ?? {})) {
    const shown = { field, from: `always ${JSON.stringify(value)}`, constant: true };
    const at = fields.findIndex((existing) => existing.field === field);
    if (at >= 0) fields[at] = shown;
    else fields.push(shown);
  }
  const picklists = Object.fromEntries(Object.entries(mapping.picklists).map(([field, defaults]) => [overrides?.rename?.[field] ?? field, { ...defaults, ...overrides?.picklists?.[field] }]));
  return { entity: mapping.entity, direction: 'commerce-to-crm', object: mapping.object, key: mapping.externalIdField, synced, fields, disabled, picklists };
}

export function mappingInEffect(settings: ConnectionSettings): MappingInEffect {
  const kind = settings.crm.kind;
  const overrides = (settings.overrides ?? {}) as MappingOverrides;
  const mappings = mappingsFor(kind, settings.crm);
  const syncs = (entity: Entity) => (entity === 'inbound-referral' ? settings.cosell.enabled : settings.entities.includes(entity));
  const commerceToCrm = (Object.entries(mappings) as [Entity, EntityMapping<any, any>][]).map(([entity, mapping]) => entityInEffect(mapping, overrides[entity], syncs(entity)));
  const crmToCommerce = Object.values(CRM_FLOWS).flatMap((flow) => {
    const side = flow.crm[kind];
    return side ? [{ flow: flow.name, direction: 'crm-to-commerce' as const, object: side.object, enabled: flow.enabled(settings), reads: side.fields(settings), commerceIdField: side.madeField }] : [];
  });
  return {
    crmKind: kind,
    commerceToCrm,
    crmToCommerce,
    cosell: { enabled: settings.cosell.enabled, stageOwner: settings.cosell.owners.stage, share: settings.cosell.share, stages: settings.cosell.stages },
    overrides,
  };
}

/**
 * The CRM picklist (option-set) value to suggest for a source value: the one whose label is the same,
 * ignoring case and whether words are joined by '_', '-' or spaces (ACCEPTED -> "Accepted",
 * PENDING_ACCEPTANCE -> "Pending Acceptance"); undefined when none or more than one is.
 */
export function suggestPicklistValue(sourceValue: string, crmValues: readonly string[]): string | undefined {
  const label = (value: string) => value.trim().toLowerCase().replace(/[\s_-]+/g, ' ');
  const same = crmValues.filter((value) => label(value) === label(sourceValue));
  return same.length === 1 ? same[0] : undefined;
}
