// Custom objects: the schemas API (GET and POST /crm-object-schemas/v3/schemas, GET .../{objectType})
// and how API paths name a custom object. HubSpot (developer changelog, "Removed Support for Referencing
// Custom Object Types by Base Name", in force since June 2025): a custom object is named by its
// objectTypeId (2-...), its fully qualified name (p{portalId}_{name}) or the short-hand p_{name}; the
// bare name is an unknown type (400). Custom objects come with Enterprise subscriptions (the schemas
// spec's x-hubspot-product-tier-requirements): an account without them lists no schemas and is refused
// a new one (403; the sandbox's start option customObjects: false).
import { HubSpotError, notFound, validation } from './errors.ts';
import { bodyObject, json, type Ctx, type Reply } from './http.ts';
import { presentProperty } from './properties.ts';
import { findObjectType, prop, type ObjectTypeDef, type PropertyDef, type PropertyType } from './schema.ts';

export type CustomSchema = {
  name: string;
  objectTypeId: string;
  fullyQualifiedName: string;
  labels: { singular: string; plural: string };
  description?: string;
  primaryDisplayProperty?: string;
  requiredProperties: string[];
  searchableProperties: string[];
  secondaryDisplayProperties: string[];
  /** objectTypeIds this object associates with. */
  associatedWith: string[];
  createdAt: string;
  updatedAt: string;
};

const PREMADE_AT = '2020-01-01T00:00:00.000Z';

/** The custom object a portal starts with unless told otherwise (StoreOptions.premadeCustomObjects). */
export function premadeSchemas(portalId: string): { schema: CustomSchema; properties: PropertyDef[] }[] {
  const group = 'marketplace_entitlement_information';
  return [
    {
      schema: {
        name: 'marketplace_entitlement',
        objectTypeId: '2-1234567',
        fullyQualifiedName: `p${portalId}_marketplace_entitlement`,
        labels: { singular: 'Marketplace entitlement', plural: 'Marketplace entitlements' },
        primaryDisplayProperty: 'entitlement_name',
        requiredProperties: [],
        searchableProperties: ['entitlement_name'],
        secondaryDisplayProperties: [],
        associatedWith: ['0-2', '0-3'],
        createdAt: PREMADE_AT,
        updatedAt: PREMADE_AT,
      },
      properties: [
        prop('entitlement_name', 'string', 'text', { hubspotDefined: false, groupName: group }),
        prop('entitlement_id', 'string', 'text', { hubspotDefined: false, hasUniqueValue: true, groupName: group }),
      ],
    },
  ];
}

/** How API paths may name the custom object: objectTypeId, fully qualified name or p_{name}, never the bare name. */
export const customObjectType = (schema: CustomSchema): ObjectTypeDef => ({
  name: schema.name,
  objectTypeId: schema.objectTypeId,
  aliases: [schema.fullyQualifiedName.toLowerCase(), `p_${schema.name}`],
  custom: true,
});

/** The ObjectSchema of the spec (schemas.v3.json), its properties as the store holds them. */
function present(ctx: Ctx, schema: CustomSchema) {
  return {
    id: schema.objectTypeId.slice(2),
    objectTypeId: schema.objectTypeId,
    fullyQualifiedName: schema.fullyQualifiedName,
    name: schema.name,
    labels: schema.labels,
    ...(schema.description !== undefined && { description: schema.description }),
    ...(schema.primaryDisplayProperty !== undefined && { primaryDisplayProperty: schema.primaryDisplayProperty }),
    requiredProperties: schema.requiredProperties,
    searchableProperties: schema.searchableProperties,
    secondaryDisplayProperties: schema.secondaryDisplayProperties,
    properties: ctx.state.store.properties(schema.name).map(presentProperty),
    associations: schema.associatedWith.map((to, index) => ({
      id: String(index + 1),
      fromObjectTypeId: schema.objectTypeId,
      toObjectTypeId: to,
      name: `${schema.name}_to_${findObjectType(to)?.name.replace(/s$/, '') ?? to}`,
      createdAt: schema.createdAt,
      updatedAt: schema.updatedAt,
    })),
    archived: false,
    allowsSensitiveProperties: false,
    createdAt: schema.createdAt,
    updatedAt: schema.updatedAt,
  };
}

export const listSchemas = (ctx: Ctx): Reply => json(200, { results: ctx.state.store.schemas().map((schema) => present(ctx, schema)) });

export function getSchema(ctx: Ctx): Reply {
  const raw = ctx.params.objectType ?? '';
  const type = ctx.state.store.objectType(raw);
  const schema = type?.custom ? ctx.state.store.schema(type.name) : undefined;
  if (!schema) throw notFound(`Unable to find object type ${raw}: give a custom object's objectTypeId or fully qualified name`);
  return json(200, present(ctx, schema));
}

const TYPES: PropertyType[] = ['string', 'number', 'datetime', 'date', 'enumeration', 'bool'];
/** associatedObjects as the spec's example gives them (CONTACT, COMPANY, ...) or as objectTypeIds. */
const ASSOCIABLE: Record<string, string> = { CONTACT: '0-1', COMPANY: '0-2', DEAL: '0-3', LINE_ITEM: '0-8' };

export function createSchema(ctx: Ctx): Reply {
  const { store, config } = ctx.state;
  if (config.customObjects === false) {
    // [inf] HubSpot's exact words for an account without an Enterprise subscription are not published.
    throw new HubSpotError(403, 'FORBIDDEN', 'This account does not have access to custom objects: defining them requires an Enterprise subscription (Marketing, Sales, Service, Content, Operations or Data Hub Enterprise).');
  }
  const input = bodyObject(ctx);
  const name = input.name;
  if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw validation(`name must start with a letter and hold only letters, digits and _, not ${JSON.stringify(name)}`);
  const labels = input.labels as { singular?: unknown; plural?: unknown } | undefined;
  if (typeof labels?.singular !== 'string' || typeof labels.plural !== 'string' || !labels.singular || !labels.plural) throw validation('labels must give the singular and plural label (text)');
  const key = name.toLowerCase();
  const existing = store.schemas().find((schema) => schema.name === key);
  if (existing) throw new HubSpotError(409, 'OBJECT_ALREADY_EXISTS', `Object type already exists: a custom object named ${key} is defined in this account (${existing.objectTypeId}, ${existing.fullyQualifiedName})`);
  if (findObjectType(key)) throw validation(`${key} is the name of one of HubSpot's own objects`);
  if (!Array.isArray(input.properties)) throw validation('properties must be a list of {name, label, type, fieldType}');
  const at = config.now().toISOString();
  const group = `${key}_information`;
  const properties = input.properties.map((raw, i) => {
    const p = raw as Record<string, unknown>;
    for (const field of ['name', 'label', 'type', 'fieldType']) if (typeof p?.[field] !== 'string' || !p[field]) throw validation(`properties[${i}].${field} is required (text)`);
    if (!/^[a-z][a-z0-9_]*$/.test(p.name as string)) throw validation(`properties[${i}].name ${JSON.stringify(p.name)} must start with a lowercase letter and hold only lowercase letters, digits and _`);
    if (!TYPES.includes(p.type as PropertyType)) throw validation(`properties[${i}].type ${JSON.stringify(p.type)} is not one of ${TYPES.join(', ')}`);
    return prop(p.name as string, p.type as PropertyType, p.fieldType as string, {
      label: p.label as string,
      hubspotDefined: false,
      hasUniqueValue: p.hasUniqueValue === true,
      groupName: group,
      description: typeof p.description === 'string' ? p.description : '',
      createdAt: at,
      updatedAt: at,
    });
  });
  const names = new Set(properties.map((p) => p.name));
  const list = (field: string) => {
    const value = input[field] ?? [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw validation(`${field} must be a list of property names`);
    const unknown = value.filter((v) => !names.has(v));
    if (unknown.length) throw validation(`${field} names properties the schema does not define: ${unknown.join(', ')}`);
    return value as string[];
  };
  const requiredProperties = list('requiredProperties');
  const searchableProperties = list('searchableProperties');
  const secondaryDisplayProperties = list('secondaryDisplayProperties');
  const primary = input.primaryDisplayProperty;
  if (primary !== undefined && (typeof primary !== 'string' || !names.has(primary))) throw validation(`primaryDisplayProperty ${JSON.stringify(primary)} must be one of the schema's properties`);
  if (!Array.isArray(input.associatedObjects)) throw validation('associatedObjects must be a list (COMPANY, DEAL, ... or objectTypeIds)');
  const associatedWith = input.associatedObjects.map((raw) => {
    const to = typeof raw === 'string' ? (ASSOCIABLE[raw.toUpperCase()] ?? store.objectType(raw)?.objectTypeId) : undefined;
    if (!to) throw validation(`Unable to infer object type from: ${String(raw)}`);
    return to;
  });
  const schema: CustomSchema = {
    name: key,
    objectTypeId: `2-${store.newId()}`,
    fullyQualifiedName: `p${store.portalId}_${key}`,
    labels: { singular: labels.singular, plural: labels.plural },
    ...(typeof input.description === 'string' && { description: input.description }),
    ...(typeof primary === 'string' && { primaryDisplayProperty: primary }),
    requiredProperties,
    searchableProperties,
    secondaryDisplayProperties,
    associatedWith,
    createdAt: at,
    updatedAt: at,
  };
  store.putSchema(schema);
  for (const property of properties) store.putProperty(key, property);
  return json(201, present(ctx, schema));
}
