// The mapping in effect for one connection, as a person reads it: per entity and direction, which CRM
// object and key, each CRM field and where its value comes from, after the connection's overrides
// (renamed, disabled, constant, picklists merged), and the co-sell conflict policy. Pure.
import { CRM_FLOWS } from '../flows/index.ts';
import { mappingsFor } from '../crm/registry.ts';
import type { ObjectSchema } from '../crm/connector.ts';
import { effectiveCreateOnly, effectiveSellerKeeps, type EntityOverrides, type MappingOverrides } from '../mappings/overrides.ts';
import type { Entity, EntityMapping, PicklistMap } from '../mappings/types.ts';
import type { ConnectionSettings } from '../sync/connection-settings.ts';

export type FieldInEffect = { field: string; from: string; createOnly?: boolean; sellerKeeps?: boolean; renamedFrom?: string; constant?: boolean; canonical?: string };

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
  const createOnly = effectiveCreateOnly(mapping, overrides);
  const sellerKeeps = effectiveSellerKeeps(mapping, overrides);
  const fields: FieldInEffect[] = [];
  for (const [field, from] of Object.entries(mapping.describe)) {
    if (disabled.includes(field)) continue;
    const renamed = overrides?.rename?.[field];
    fields.push({ field: renamed ?? field, from, ...(renamed && { renamedFrom: field }) });
  }
  // A field given a canonical value (the console's mapping page) takes it instead of its default source.
  for (const [field, value] of Object.entries(overrides?.map ?? {})) {
    const shown = { field, from: `the ${mapping.entity}'s ${value}`, canonical: value };
    const at = fields.findIndex((existing) => existing.field === field);
    if (at >= 0) fields[at] = shown;
    else fields.push(shown);
  }
  for (const [field, value] of Object.entries(overrides?.constants ?? {})) {
    const shown = { field, from: `always ${JSON.stringify(value)}`, constant: true };
    const at = fields.findIndex((existing) => existing.field === field);
    if (at >= 0) fields[at] = shown;
    else fields.push(shown);
  }
  for (const field of fields) {
    if (createOnly.includes(field.field) || (field.renamedFrom && createOnly.includes(field.renamedFrom))) field.createOnly = true;
    if (sellerKeeps.includes(field.field)) field.sellerKeeps = true;
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

/** One CRM field as the mapping page edits it (issue #26 section 3). */
export type EditorRow = {
  field: string;
  type: string;
  required: boolean;
  length?: number;
  /** The external id the records are keyed by: filled with the commerce id, not editable here. */
  key: boolean;
  /** Where the value comes from now: the default mapping, a canonical value, a constant, or nothing. */
  source: 'default' | 'canonical' | 'constant' | 'none';
  /** What the default mapping writes here (its description), and from which default field when renamed. */
  defaultFrom?: string;
  defaultField?: string;
  canonical?: string;
  constant?: string;
  createOnly: boolean;
  /** Create-only by the mapping itself (the CRM may refuse a change later): not to be unticked. */
  createOnlyLocked: boolean;
  sellerKeeps: boolean;
  sellerKeepsLocked: boolean;
  /** Source value -> CRM value, for a picklist field a status fills; `suggested` where a label is the same. */
  picklist?: { values: string[]; restricted: boolean; rows: { source: string; value?: string; suggested?: string }[]; open: boolean };
  /** Matches the type filter. */
  shown: boolean;
};

export type MappingEditorView = {
  entity: Entity;
  object: string;
  externalIdField: string;
  /** The canonical values a field can take, with where each comes from. */
  canonical: { name: string; describe: string }[];
  types: string[];
  typeFilter?: string;
  /** The flow can update a seller's own record (CommerceToCrmFlow.sellersRecordsFrom): ownership per field applies. */
  sellerRecords: boolean;
  rows: EditorRow[];
};

const PICKLIST_TYPES = new Set(['picklist', 'multipicklist', 'enumeration', 'select', 'radio', 'status', 'state', 'optionset', 'picklisttype']);

/** Default CRM field (after renames) -> the default field it comes from. */
function defaultTargets(mapping: EntityMapping<any, any>, overrides: EntityOverrides | undefined): Map<string, string> {
  return new Map(Object.keys(mapping.describe).map((field) => [overrides?.rename?.[field] ?? field, field]));
}

export function mappingEditorView(input: {
  mapping: EntityMapping<any, any>;
  overrides: EntityOverrides | undefined;
  schema: ObjectSchema;
  canonical: Record<string, string>;
  sellerRecords: boolean;
  typeFilter?: string;
}): MappingEditorView {
  const { mapping, overrides, schema } = input;
  const targets = defaultTargets(mapping, overrides);
  const createOnly = effectiveCreateOnly(mapping, overrides);
  const sellerKeeps = effectiveSellerKeeps(mapping, overrides);
  const byRelationship = new Map([...schema.fields.values()].flatMap((field) => (field.relationshipName ? [[field.relationshipName, field.name] as const] : [])));
  // A default field written through its lookup's relationship (Account: {key}) is shown on the lookup field.
  for (const [target, origin] of [...targets]) if (!schema.fields.has(target) && byRelationship.has(target)) targets.set(byRelationship.get(target)!, origin);
  const writable = [...schema.fields.values()].filter((field) => field.createable || field.updateable || field.name === mapping.externalIdField);
  const rows = writable.map((field): EditorRow => {
    const origin = targets.get(field.name);
    const constant = overrides?.constants && Object.hasOwn(overrides.constants, field.name) ? overrides.constants[field.name] : undefined;
    const canonical = overrides?.map?.[field.name];
    const disabled = origin !== undefined && overrides?.disable?.includes(origin);
    const source: EditorRow['source'] = constant !== undefined ? 'constant' : canonical ? 'canonical' : origin !== undefined && !disabled ? 'default' : 'none';
    const pickKey = origin !== undefined && origin in mapping.picklists ? origin : canonical ? field.name : undefined;
    let picklist: EditorRow['picklist'];
    if (field.picklistValues?.length && (PICKLIST_TYPES.has(field.type.toLowerCase()) || pickKey)) {
      const defaults = pickKey && origin === pickKey ? mapping.picklists[pickKey]! : {};
      const table = { ...defaults, ...(pickKey ? overrides?.picklists?.[pickKey] : undefined) };
      const values = field.picklistValues;
      picklist = {
        values,
        restricted: Boolean(field.restrictedPicklist),
        // Rows only where a status fills the field; other picklists show their values for constants.
        rows: pickKey
          ? Object.entries(table).map(([sourceValue, value]) => {
              const suggested = values.includes(value) ? undefined : suggestPicklistValue(sourceValue, values);
              return { source: sourceValue, value, ...(suggested && { suggested }) };
            })
          : [],
        // A mapped field's own table can take new source values (the domain of a canonical value is not known here).
        open: Boolean(canonical && !(origin && origin in mapping.picklists)),
      };
    }
    return {
      field: field.name,
      type: field.type,
      required: field.required,
      ...(field.length && { length: field.length }),
      key: field.name === mapping.externalIdField,
      source,
      ...(origin !== undefined && { defaultFrom: mapping.describe[origin], ...(origin !== field.name && { defaultField: origin }) }),
      ...(canonical && { canonical }),
      ...(constant !== undefined && { constant: typeof constant === 'string' ? constant : JSON.stringify(constant) }),
      createOnly: createOnly.includes(field.name),
      createOnlyLocked: Boolean(mapping.createOnly?.includes(field.name)),
      sellerKeeps: sellerKeeps.includes(field.name),
      sellerKeepsLocked: Boolean(mapping.sellerKeeps?.includes(field.name)),
      ...(picklist && { picklist }),
      shown: !input.typeFilter || field.type === input.typeFilter,
    };
  });
  return {
    entity: mapping.entity,
    object: schema.name,
    externalIdField: mapping.externalIdField,
    canonical: Object.entries(input.canonical).map(([name, describe]) => ({ name, describe })),
    types: [...new Set(writable.map((field) => field.type))].sort(),
    ...(input.typeFilter && { typeFilter: input.typeFilter }),
    sellerRecords: input.sellerRecords,
    rows,
  };
}

const NUMERIC = new Set(['double', 'currency', 'int', 'integer', 'percent', 'number', 'decimal', 'money', 'long', 'bigint']);

/** A constant typed in a form, as the field takes it: a number for a number field, true/false for a checkbox. */
function typedConstant(text: string, type: string): unknown {
  const lower = type.toLowerCase();
  if (NUMERIC.has(lower) && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if ((lower === 'boolean' || lower === 'bool') && /^(true|false)$/i.test(text.trim())) return text.trim().toLowerCase() === 'true';
  return text;
}

/**
 * The overrides a submitted mapping page says (its form: `source:<field>` = default | none |
 * canonical:<value> | constant, `constant:<field>`, `createOnly` and `sellerKeeps` ticks, `pick:<field>:<source
 * value>` picklist choices, `pickadd:<field>` and `pickaddvalue:<field>` a new source value). Renames and
 * whatever concerns fields the page did not show (absent from the org) are kept from the saved overrides.
 */
export function overridesFromForm(form: URLSearchParams, input: { mapping: EntityMapping<any, any>; saved: EntityOverrides | undefined; schema: ObjectSchema }): EntityOverrides {
  const { mapping, saved, schema } = input;
  const targets = defaultTargets(mapping, saved);
  const byRelationship = new Map([...schema.fields.values()].flatMap((field) => (field.relationshipName ? [[field.relationshipName, field.name] as const] : [])));
  for (const [target, origin] of [...targets]) if (!schema.fields.has(target) && byRelationship.has(target)) targets.set(byRelationship.get(target)!, origin);
  const rows = [...schema.fields.values()].filter((field) => form.has(`source:${field.name}`));
  const onPage = new Set(rows.map((row) => row.name));
  const originsOnPage = new Set(rows.flatMap((row) => (targets.has(row.name) ? [targets.get(row.name)!] : [])));
  const next = {
    ...(saved?.rename && { rename: saved.rename }),
    disable: (saved?.disable ?? []).filter((field) => !originsOnPage.has(field)),
    constants: Object.fromEntries(Object.entries(saved?.constants ?? {}).filter(([field]) => !onPage.has(field))),
    map: Object.fromEntries(Object.entries(saved?.map ?? {}).filter(([field]) => !onPage.has(field))),
    picklists: Object.fromEntries(Object.entries(saved?.picklists ?? {}).filter(([field]) => !originsOnPage.has(field) && !onPage.has(field))),
    createOnly: (saved?.createOnly ?? []).filter((field) => !onPage.has(field)),
    sellerKeeps: (saved?.sellerKeeps ?? []).filter((field) => !onPage.has(field)),
  } satisfies EntityOverrides;
  const ticked = (name: string) => new Set(form.getAll(name));
  const createOnly = ticked('createOnly');
  const sellerKeeps = ticked('sellerKeeps');
  for (const field of rows) {
    const name = field.name;
    const origin = targets.get(name);
    const source = form.get(`source:${name}`)!;
    if (source === 'none' && origin !== undefined) next.disable.push(origin);
    else if (source.startsWith('canonical:')) next.map[name] = source.slice('canonical:'.length);
    else if (source === 'constant') next.constants[name] = typedConstant(form.get(`constant:${name}`) ?? '', field.type);
    if (createOnly.has(name) && !mapping.createOnly?.includes(name)) next.createOnly.push(name);
    if (sellerKeeps.has(name) && !mapping.sellerKeeps?.includes(name)) next.sellerKeeps.push(name);
    const pickKey = origin !== undefined && origin in mapping.picklists ? origin : next.map[name] ? name : undefined;
    if (!pickKey) continue;
    const defaults = origin === pickKey ? mapping.picklists[pickKey]! : {};
    const table: Record<string, string> = {};
    const prefix = `pick:${name}:`;
    for (const [key, value] of form) {
      if (key.startsWith(prefix) && value && defaults[key.slice(prefix.length)] !== value) table[key.slice(prefix.length)] = value;
    }
    const added = form.get(`pickadd:${name}`)?.trim();
    const addedValue = form.get(`pickaddvalue:${name}`);
    if (added && addedValue) table[added] = addedValue;
    if (Object.keys(table).length) next.picklists[pickKey] = table;
  }
  return next;
}
