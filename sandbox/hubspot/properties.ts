// Properties v3 (read all, read one, create with hasUniqueValue, in a group that exists), property
// groups (read, create) and deal pipelines (read, create).
import { HubSpotError, notFound, validation } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { ACTIVITY_TYPES, NO_UNIQUE_VALUE_TYPES, type PropertyDef, type PropertyType } from './schema.ts';
import type { Pipeline, PropertyGroup } from './store.ts';

const TYPES: PropertyType[] = ['string', 'number', 'datetime', 'date', 'enumeration', 'bool'];
const FIELD_TYPES = ['text', 'textarea', 'number', 'date', 'select', 'radio', 'checkbox', 'booleancheckbox', 'phonenumber', 'html', 'file', 'calculation_equation'];

function objectType(ctx: Ctx) {
  const type = ctx.state.store.objectType(ctx.params.objectType ?? '');
  if (!type) throw validation(`Unable to infer object type from: ${ctx.params.objectType}`);
  return type.name;
}

export function presentProperty(p: PropertyDef) {
  return {
    name: p.name,
    label: p.label,
    type: p.type,
    fieldType: p.fieldType,
    description: p.description,
    groupName: p.groupName,
    options: p.options,
    hasUniqueValue: p.hasUniqueValue,
    hubspotDefined: p.hubspotDefined,
    hidden: false,
    formField: false,
    displayOrder: -1,
    calculated: false,
    externalOptions: false,
    archived: false,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    modificationMetadata: { archivable: !p.hubspotDefined, readOnlyDefinition: p.hubspotDefined, readOnlyValue: p.readOnlyValue },
  };
}

export const readAll = (ctx: Ctx): Reply => json(200, { results: ctx.state.store.properties(objectType(ctx)).map(presentProperty) });

export function readOne(ctx: Ctx): Reply {
  const type = objectType(ctx);
  const property = ctx.state.store.property(type, ctx.params.name!);
  if (!property) throw notFound(`Unable to find property ${ctx.params.name} on ${type}`);
  return json(200, presentProperty(property));
}

export function create(ctx: Ctx): Reply {
  const type = objectType(ctx);
  const input = bodyObject(ctx);
  const text = (key: string, required = true) => {
    const value = input[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value.trim() === '') throw validation(`${key} is required (text)`, { context: { [key]: [String(value)] } });
    return value;
  };
  const name = text('name')!;
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw validation(`Property name ${JSON.stringify(name)} must start with a lowercase letter and hold only lowercase letters, digits and _`);
  const propertyType = text('type') as PropertyType;
  if (!TYPES.includes(propertyType)) throw validation(`type ${JSON.stringify(propertyType)} is not one of ${TYPES.join(', ')}`);
  const fieldType = text('fieldType')!;
  if (!FIELD_TYPES.includes(fieldType)) throw validation(`fieldType ${JSON.stringify(fieldType)} is not one of ${FIELD_TYPES.join(', ')}`);
  if (input.hasUniqueValue !== undefined && typeof input.hasUniqueValue !== 'boolean') throw validation('hasUniqueValue must be true or false');
  // Unique values are kept for contacts, companies, deals, tickets and custom objects, not activities
  // (docs/crm-wire-behaviour.md, issue #27 section 1); HubSpot's words for the refusal are not published [inf].
  if (input.hasUniqueValue === true && ACTIVITY_TYPES.includes(type)) throw validation(`${type} properties cannot require unique values: unique-value properties exist on contacts, companies, deals, tickets and custom objects only`, { context: { hasUniqueValue: ['true'] } });
  // Products neither (issue #28): HubSpot's changelog names the objects with unique properties, and products are not among them.
  if (input.hasUniqueValue === true && NO_UNIQUE_VALUE_TYPES.includes(type)) throw validation(`${type} properties cannot require unique values: unique-value properties exist on contacts, companies, deals, tickets and custom objects only`, { context: { hasUniqueValue: ['true'] } });
  const rawOptions = input.options ?? [];
  if (!Array.isArray(rawOptions)) throw validation('options must be a list of {label, value}');
  const options = rawOptions.map((o, i) => {
    const option = o as { label?: unknown; value?: unknown; displayOrder?: unknown; hidden?: unknown };
    if (typeof option?.label !== 'string' || typeof option.value !== 'string') throw validation(`options[${i}] must have a label and a value (text)`);
    return { label: option.label, value: option.value, displayOrder: typeof option.displayOrder === 'number' ? option.displayOrder : i, hidden: option.hidden === true };
  });
  if (propertyType === 'enumeration' && options.length === 0) throw validation('an enumeration property needs options');
  if (ctx.state.store.property(type, name)) throw new HubSpotError(409, 'OBJECT_ALREADY_EXISTS', `Property already exists: a property named ${name} exists on ${type}`);
  const groupName = text('groupName')!;
  // [inf] A property lives in one of its object's groups; HubSpot's words for an unknown one are not published.
  if (!ctx.state.store.group(type, groupName)) {
    throw validation(`Property group ${groupName} does not exist on ${type}: create it first (POST /crm/v3/properties/${ctx.params.objectType}/groups) or use one of ${ctx.state.store.groups(type).map((g) => g.name).join(', ')}`, { context: { groupName: [groupName] } });
  }
  const at = ctx.state.config.now().toISOString();
  const property: PropertyDef = {
    name,
    label: text('label')!,
    type: propertyType,
    fieldType,
    groupName,
    description: text('description', false) ?? '',
    hasUniqueValue: input.hasUniqueValue === true,
    hubspotDefined: false,
    readOnlyValue: false,
    options,
    createdAt: at,
    updatedAt: at,
  };
  ctx.state.store.putProperty(type, property);
  return json(201, presentProperty(property));
}

const presentGroup = (group: PropertyGroup) => ({ name: group.name, label: group.label, displayOrder: group.displayOrder, archived: group.archived });

export const readGroups = (ctx: Ctx): Reply => json(200, { results: ctx.state.store.groups(objectType(ctx)).map(presentGroup) });

export function readGroup(ctx: Ctx): Reply {
  const type = objectType(ctx);
  const group = ctx.state.store.group(type, ctx.params.groupName!);
  if (!group) throw notFound(`Unable to find property group ${ctx.params.groupName} on ${type}`);
  return json(200, presentGroup(group));
}

/** A property group: `name` (lowercase letters, digits, _) unique per object, `label`; 409 when the name is taken. */
export function createGroup(ctx: Ctx): Reply {
  const type = objectType(ctx);
  const input = bodyObject(ctx);
  if (typeof input.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(input.name)) throw validation(`name must start with a lowercase letter and hold only lowercase letters, digits and _, not ${JSON.stringify(input.name)}`);
  if (typeof input.label !== 'string' || input.label.trim() === '') throw validation('label is required (text)');
  if (input.displayOrder !== undefined && !Number.isInteger(input.displayOrder)) throw validation('displayOrder must be a whole number');
  if (ctx.state.store.group(type, input.name)) throw new HubSpotError(409, 'OBJECT_ALREADY_EXISTS', `Property group already exists: a group named ${input.name} exists on ${type}`);
  const group: PropertyGroup = { name: input.name, label: input.label, displayOrder: (input.displayOrder as number | undefined) ?? -1, archived: false };
  ctx.state.store.putGroup(type, group);
  return json(201, presentGroup(group));
}

function dealsOnly(ctx: Ctx) {
  const type = ctx.state.store.objectType(ctx.params.objectType ?? '');
  if (type?.name !== 'deals') throw validation(`Pipelines in this sandbox are for deals only, not ${ctx.params.objectType}`);
}

export function readPipelines(ctx: Ctx): Reply {
  dealsOnly(ctx);
  return json(200, { results: ctx.state.store.pipelines().sort((a, b) => a.displayOrder - b.displayOrder) });
}

export function readPipeline(ctx: Ctx): Reply {
  dealsOnly(ctx);
  const pipeline = ctx.state.store.pipeline(ctx.params.pipelineId!);
  if (!pipeline) throw notFound(`Unable to find pipeline ${ctx.params.pipelineId}`);
  return json(200, pipeline);
}

export function createPipeline(ctx: Ctx): Reply {
  dealsOnly(ctx);
  const input = bodyObject(ctx);
  if (typeof input.label !== 'string' || input.label.trim() === '') throw validation('label is required (text)');
  if (typeof input.displayOrder !== 'number') throw validation('displayOrder is required (a number)');
  if (!Array.isArray(input.stages) || input.stages.length === 0) throw validation('stages must be a non-empty list of {label, displayOrder, metadata}');
  const { store } = ctx.state;
  if (store.pipelines().some((p) => p.label === input.label)) throw new HubSpotError(409, 'OBJECT_ALREADY_EXISTS', `A deal pipeline labelled ${input.label} already exists`);
  const at = ctx.state.config.now().toISOString();
  const stages = input.stages.map((s, i) => {
    const stage = s as { label?: unknown; displayOrder?: unknown; metadata?: unknown };
    if (typeof stage?.label !== 'string' || typeof stage.displayOrder !== 'number') throw validation(`stages[${i}] must have a label (text) and a displayOrder (number)`);
    const metadata = (stage.metadata ?? {}) as Record<string, unknown>;
    if (typeof metadata !== 'object' || (metadata.probability === undefined && metadata.isClosed === undefined)) {
      throw validation(`stages[${i}].metadata must give the deal stage's probability (0.0 to 1.0)`);
    }
    return { id: store.newId(), label: stage.label, displayOrder: stage.displayOrder, metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)])), createdAt: at, updatedAt: at, archived: false };
  });
  const pipeline: Pipeline = { id: store.newId(), label: input.label, displayOrder: input.displayOrder, stages, createdAt: at, updatedAt: at, archived: false };
  store.putPipeline(pipeline);
  return json(201, pipeline);
}
