// The metadata API: EntityDefinitions (one, all, filtered by LogicalName, with $select and $expand
// of Attributes, Keys, ManyToOneRelationships), their Attributes and Keys, and creating tables,
// columns, alternate keys (Pending until their index job ends: key-jobs.ts) and one-to-many relationships with their lookup, as
// dynamics-web-api's createEntity / createAttribute / create on .../Keys / createRelationship send them.
import { randomUUID } from 'node:crypto';
import { DataverseError, odataError } from './errors.ts';
import { parseExpand, selectList } from './expand.ts';
import { json, queryOptions, type ApiRequest, type Reply } from './http.ts';
import { parseKey, type KeySpec } from './keys.ts';
import { ownerAttribute, ownerRelationship, taskRegarding, type AttributeDef, type AttributeType, type EntityDef, type KeyDef, type RelationshipDef } from './schema.ts';

const label = (text: string) => {
  const l = { Label: text, LanguageCode: 1033, IsManaged: false, MetadataId: null, HasChanged: null };
  return { LocalizedLabels: [l], UserLocalizedLabel: l };
};
const ATTRIBUTE_TYPE_NAME: Record<string, string> = { Memo: 'MemoType', String: 'StringType', Boolean: 'BooleanType', Decimal: 'DecimalType', Money: 'MoneyType', Integer: 'IntegerType', BigInt: 'BigIntType', Double: 'DoubleType', DateTime: 'DateTimeType', Lookup: 'LookupType', Customer: 'CustomerType', Owner: 'OwnerType', Picklist: 'PicklistType', Uniqueidentifier: 'UniqueidentifierType', State: 'StateType', Status: 'StatusType' };
const ODATA_TYPE: Record<string, string> = { Memo: 'MemoAttributeMetadata', String: 'StringAttributeMetadata', Boolean: 'BooleanAttributeMetadata', Decimal: 'DecimalAttributeMetadata', Money: 'MoneyAttributeMetadata', Integer: 'IntegerAttributeMetadata', BigInt: 'BigIntAttributeMetadata', Double: 'DoubleAttributeMetadata', DateTime: 'DateTimeAttributeMetadata', Lookup: 'LookupAttributeMetadata', Customer: 'LookupAttributeMetadata', Owner: 'LookupAttributeMetadata', Picklist: 'PicklistAttributeMetadata', Uniqueidentifier: 'UniqueIdentifierAttributeMetadata', State: 'StateAttributeMetadata', Status: 'StatusAttributeMetadata' };
const TYPE_OF_ODATA = Object.fromEntries(Object.entries(ODATA_TYPE).filter(([k]) => !['Customer', 'Owner'].includes(k)).map(([k, v]) => [v.toLowerCase(), k as AttributeType]));

function renderAttribute(entity: EntityDef, a: AttributeDef) {
  const { computed: _c, Options: _o, OptionLabels: _l, IsPrimaryId, IsPrimaryName, DateTimeBehavior, RequiredLevel, ...rest } = a;
  return {
    '@odata.type': `#Microsoft.Dynamics.CRM.${ODATA_TYPE[a.AttributeType] ?? 'AttributeMetadata'}`,
    ...rest,
    EntityLogicalName: entity.LogicalName,
    AttributeTypeName: { Value: ATTRIBUTE_TYPE_NAME[a.AttributeType] ?? `${a.AttributeType}Type` },
    IsPrimaryId: !!IsPrimaryId,
    IsPrimaryName: !!IsPrimaryName,
    IsValidForRead: true,
    RequiredLevel: { Value: RequiredLevel, CanBeChanged: true, ManagedPropertyLogicalName: 'canmodifyrequirementlevelsettings' },
    ...(DateTimeBehavior ? { DateTimeBehavior: { Value: DateTimeBehavior } } : {}),
    DisplayName: label(a.SchemaName),
  };
}
const renderKey = (entity: EntityDef, { buildStartedAt: _queued, ...k }: KeyDef) => ({ EntityLogicalName: entity.LogicalName, ...k, DisplayName: label(k.DisplayName) });
const renderEntity = (e: EntityDef) => ({ ...e, ObjectTypeCode: 0, DisplayName: label(e.DisplayName), Attributes: e.Attributes.map((a) => renderAttribute(e, a)), Keys: e.Keys.map((k) => renderKey(e, k)), ManyToOneRelationships: e.ManyToOneRelationships.map((r) => ({ ...r, RelationshipType: 'OneToManyRelationship' })) });

const EXPANDABLE = ['Attributes', 'Keys', 'ManyToOneRelationships'];
// [inf] What each expanded collection's base type declares: $select inside $expand may name only these
// (a derived attribute type's MaxLength or Targets needs a cast, as on the live service).
const BASE_PROPERTIES: Record<string, { type: string; names: string[] }> = {
  Attributes: { type: 'AttributeMetadata', names: ['LogicalName', 'SchemaName', 'AttributeType', 'AttributeTypeName', 'MetadataId', 'EntityLogicalName', 'IsValidForCreate', 'IsValidForUpdate', 'IsValidForRead', 'RequiredLevel', 'IsCustomAttribute', 'IsPrimaryId', 'IsPrimaryName', 'DisplayName'] },
  Keys: { type: 'EntityKeyMetadata', names: ['LogicalName', 'SchemaName', 'KeyAttributes', 'EntityKeyIndexStatus', 'EntityLogicalName', 'MetadataId', 'DisplayName'] },
  ManyToOneRelationships: { type: 'OneToManyRelationshipMetadata', names: ['SchemaName', 'ReferencingEntity', 'ReferencingAttribute', 'ReferencedEntity', 'ReferencedAttribute', 'ReferencingEntityNavigationPropertyName', 'ReferencedEntityNavigationPropertyName', 'MetadataId', 'IsCustomRelationship', 'RelationshipType'] },
};

/** A metadata $filter the sandbox models: `Prop eq|ne literal` terms joined by `and` / `or` (no parentheses). */
function metadataFilter(text: string, where: string): (item: Record<string, unknown>) => boolean {
  const literal = (raw: string): unknown => {
    const t = raw.trim().replace(/^Microsoft\.Dynamics\.CRM\.\w+(?=')/, '');
    if (/^'(?:[^']|'')*'$/.test(t)) return t.slice(1, -1).replace(/''/g, "'");
    if (t === 'true' || t === 'false') return t === 'true';
    if (t === 'null') return null;
    if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
    throw odataError(`The sandbox does not model the literal ${t} in the $filter '${text}' of ${where}.`);
  };
  const term = (raw: string) => {
    const m = /^\s*(\w+)\s+(eq|ne)\s+(.+?)\s*$/s.exec(raw);
    if (!m) throw odataError(`The sandbox filters ${where} by "Property eq literal" terms joined by and/or only, not '${text}'.`);
    const value = literal(m[3]!);
    return (item: Record<string, unknown>) => {
      const v = item[m[1]!];
      const same = typeof v === 'string' && typeof value === 'string' ? v.toLowerCase() === value.toLowerCase() : (v ?? null) === value;
      return m[2] === 'eq' ? same : !same;
    };
  };
  const ors = text.split(/\s+or\s+/).map((part) => part.split(/\s+and\s+/).map(term));
  return (item) => ors.some((ands) => ands.every((test) => test(item)));
}

/** An expanded collection with its nested $select / $filter / $orderby / $top applied. */
function expandedItems(name: string, items: Record<string, unknown>[], options: Map<string, string>): Record<string, unknown>[] {
  const base = BASE_PROPERTIES[name]!;
  const nested = options.get('$expand');
  if (nested) throw odataError(`The sandbox does not model $expand inside ${name} ('${nested}').`);
  let out = items;
  const filter = options.get('$filter');
  if (filter) out = out.filter(metadataFilter(filter, name));
  const orderBy = options.get('$orderby');
  if (orderBy) {
    const [property, direction] = orderBy.trim().split(/\s+/);
    if (!base.names.includes(property!)) throw odataError(`Could not find a property named '${property}' on type 'Microsoft.Dynamics.CRM.${base.type}'.`);
    const sign = direction === 'desc' ? -1 : 1;
    out = [...out].sort((a, b) => sign * String(a[property!] ?? '').localeCompare(String(b[property!] ?? '')));
  }
  const top = options.get('$top');
  if (top !== undefined) {
    const n = Number(top);
    if (!Number.isInteger(n) || n < 0) throw odataError(`Invalid value '${top}' for $top query option found. The $top query option requires a non-negative integer value.`);
    out = out.slice(0, n);
  }
  const select = selectList(options.get('$select'));
  if (select) {
    for (const s of select) if (!base.names.includes(s)) throw odataError(`Could not find a property named '${s}' on type 'Microsoft.Dynamics.CRM.${base.type}'.`);
    out = out.map((item) => Object.fromEntries(Object.entries(item).filter(([k]) => k === '@odata.type' || k === 'MetadataId' || select.includes(k))));
  }
  return out;
}

function shapeEntity(e: EntityDef, options: Map<string, string>, activities: boolean) {
  const full: Record<string, unknown> = { ...(renderEntity(e) as Record<string, unknown>), HasActivities: activities };
  const select = selectList(options.get('$select'));
  const expand = parseExpand(options.get('$expand'));
  for (const x of expand) if (!EXPANDABLE.includes(x.nav)) throw odataError(`Could not find a property named '${x.nav}' on type 'Microsoft.Dynamics.CRM.EntityMetadata'.`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(full)) {
    if (EXPANDABLE.includes(k)) continue;
    if (select && !select.includes(k) && k !== 'MetadataId') continue;
    out[k] = v;
  }
  if (select) for (const s of select) if (!(s in full)) throw odataError(`Could not find a property named '${s}' on type 'Microsoft.Dynamics.CRM.EntityMetadata'.`);
  for (const x of expand) out[x.nav] = expandedItems(x.nav, full[x.nav] as Record<string, unknown>[], x.options);
  return out;
}

const notFoundEntity = (name: string) =>
  new DataverseError(404, '0x80040217', `Could not find entity with name '${name}'. The entity with a name = '${name}' with namemapping = 'Logical' was not found in the MetadataCache.`);

function entityFor(req: ApiRequest, key: KeySpec): EntityDef {
  const all = req.state.store.entities();
  if ('guid' in key) return all.find((e) => e.MetadataId === key.guid) ?? (() => { throw new DataverseError(404, '0x80040217', `Could not find entity with MetadataId '${key.guid}'.`); })();
  const name = key.values.LogicalName;
  if (typeof name !== 'string') throw odataError('EntityDefinitions can be addressed by MetadataId or LogicalName only.');
  return all.find((e) => e.LogicalName === name.toLowerCase()) ?? (() => { throw notFoundEntity(name); })();
}

const labelText = (value: unknown, fallback: string) => {
  const v = value as { LocalizedLabels?: { Label?: string }[] } | undefined;
  return v?.LocalizedLabels?.[0]?.Label ?? fallback;
};

/**
 * A local choice column's options from its OptionSet (OptionSetMetadata: Options of {Value, Label}). The
 * sandbox models local choices with their values given; a global choice (GlobalOptionSet@odata.bind) and
 * values left for the platform to assign are refused, so a test never meets values it did not choose.
 */
function choiceOptions(schema: string, body: Record<string, unknown>): { value: number; label: string }[] {
  const optionSet = body.OptionSet as { Options?: unknown } | undefined;
  if (!optionSet || !Array.isArray(optionSet.Options) || optionSet.Options.length === 0) {
    throw new DataverseError(400, '0x80044355', `The choice column '${schema}' needs an OptionSet with its Options (the sandbox models local choices only).`);
  }
  const options = (optionSet.Options as { Value?: unknown; Label?: unknown }[]).map((option) => {
    if (typeof option?.Value !== 'number' || !Number.isInteger(option.Value)) throw new DataverseError(400, '0x80044355', `Every option of the choice column '${schema}' needs an integer Value (the sandbox does not assign them).`);
    return { value: option.Value, label: labelText(option.Label, String(option.Value)) };
  });
  const values = options.map((o) => o.value);
  const repeated = values.find((v, i) => values.indexOf(v) !== i);
  if (repeated !== undefined) throw new DataverseError(400, '0x80044355', `The option value ${repeated} is given twice in the choice column '${schema}'.`);
  return options;
}

/** An attribute definition from a metadata create body. */
function attributeFrom(entityName: string, body: Record<string, unknown>): AttributeDef {
  const schema = body.SchemaName;
  if (typeof schema !== 'string' || !/^[A-Za-z_][\w]*$/.test(schema)) throw new DataverseError(400, '0x80044355', 'The SchemaName of the attribute is missing or not valid.');
  const odataType = String(body['@odata.type'] ?? '').replace(/^#?Microsoft\.Dynamics\.CRM\./, '').toLowerCase();
  const typeName = (body.AttributeTypeName as { Value?: string } | undefined)?.Value?.replace(/Type$/, '');
  const type = (TYPE_OF_ODATA[odataType] ?? body.AttributeType ?? typeName) as AttributeType | undefined;
  if (!type || !ATTRIBUTE_TYPE_NAME[type]) throw new DataverseError(400, '0x80044355', `Attribute type of '${schema}' is missing or not supported (@odata.type '${body['@odata.type'] ?? ''}').`);
  const behavior = (body.DateTimeBehavior as { Value?: string } | undefined)?.Value as AttributeDef['DateTimeBehavior'];
  const format = type === 'DateTime' ? (typeof body.Format === 'string' ? body.Format : behavior === 'DateOnly' ? 'DateOnly' : 'DateAndTime') : undefined;
  const required = ((body.RequiredLevel as { Value?: string } | undefined)?.Value ?? 'None') as AttributeDef['RequiredLevel'];
  const choice = type === 'Picklist' ? choiceOptions(schema, body) : undefined;
  return {
    LogicalName: schema.toLowerCase(),
    SchemaName: schema,
    AttributeType: type,
    MetadataId: randomUUID(),
    ...(type === 'String' || type === 'Memo' ? { MaxLength: typeof body.MaxLength === 'number' ? body.MaxLength : type === 'String' ? 100 : 2000 } : {}),
    ...(type === 'DateTime' ? { Format: format, DateTimeBehavior: behavior ?? (format === 'DateOnly' ? 'DateOnly' : 'UserLocal') } : {}),
    ...(choice ? { Options: choice.map((o) => o.value), OptionLabels: Object.fromEntries(choice.map((o) => [o.value, o.label])) } : {}),
    ...(typeof body.Precision === 'number' ? { Precision: body.Precision } : {}),
    ...(typeof body.MinValue === 'number' ? { MinValue: body.MinValue } : {}),
    ...(typeof body.MaxValue === 'number' ? { MaxValue: body.MaxValue } : {}),
    IsValidForCreate: true,
    IsValidForUpdate: true,
    RequiredLevel: required,
    IsCustomAttribute: true,
    ...(body.IsPrimaryName === true ? { IsPrimaryName: true } : {}),
  };
}

const exists = (what: string, name: string) => new DataverseError(400, '0x80044363', `A ${what} with the specified name '${name}' already exists. Specify a unique name.`);

function parseJson(req: ApiRequest): Record<string, unknown> {
  try {
    const v = JSON.parse(req.body || '{}');
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw new DataverseError(400, '0x80048d19', 'The metadata payload is not a JSON object.');
}

function createEntity(req: ApiRequest): Reply {
  const body = parseJson(req);
  const schema = body.SchemaName;
  if (typeof schema !== 'string' || !/^[A-Za-z_][\w]*$/.test(schema)) throw new DataverseError(400, '0x80044355', 'The SchemaName of the entity is missing or not valid.');
  const logical = schema.toLowerCase();
  if (req.state.store.entity(logical)) throw exists('entity', logical);
  const attributes = Array.isArray(body.Attributes) ? (body.Attributes as Record<string, unknown>[]) : [];
  const primary = attributes.find((a) => a.IsPrimaryName === true) ?? attributes[0];
  if (!primary) throw new DataverseError(400, '0x80044355', 'A primary name attribute (IsPrimaryName) is required to create an entity.');
  const name = attributeFrom(logical, { ...primary, IsPrimaryName: true });
  const id = `${logical}id`;
  const setName = typeof body.EntitySetName === 'string' && body.EntitySetName ? body.EntitySetName : `${logical}s`;
  if (req.state.store.entityBySet(setName)) throw exists('entity set', setName);
  const sys = (n: string, type: AttributeType, extra: Partial<AttributeDef> = {}): AttributeDef => ({ LogicalName: n, SchemaName: n, AttributeType: type, MetadataId: randomUUID(), IsValidForCreate: false, IsValidForUpdate: false, RequiredLevel: 'None', IsCustomAttribute: false, computed: true, ...extra });
  const entity: EntityDef = {
    LogicalName: logical, SchemaName: schema, EntitySetName: setName, PrimaryIdAttribute: id, PrimaryNameAttribute: name.LogicalName,
    IsCustomEntity: true, MetadataId: randomUUID(), DisplayName: labelText(body.DisplayName, schema),
    Attributes: [
      sys(id, 'Uniqueidentifier', { IsPrimaryId: true, IsValidForCreate: true, computed: false, RequiredLevel: 'SystemRequired' }),
      name,
      sys('createdon', 'DateTime', { Format: 'DateAndTime', DateTimeBehavior: 'UserLocal' }),
      sys('modifiedon', 'DateTime', { Format: 'DateAndTime', DateTimeBehavior: 'UserLocal' }),
      sys('versionnumber', 'BigInt'),
      sys('statecode', 'State', { Options: [0, 1], IsValidForUpdate: true, computed: false }),
      sys('statuscode', 'Status', { Options: [1, 2], IsValidForCreate: true, IsValidForUpdate: true, computed: false }),
    ],
    Keys: [], ManyToOneRelationships: [],
  };
  // A user-owned table (the default) has an owner; one made with HasActivities can be a task's regarding
  // record, through the navigation property regardingobjectid_<table>_task (issue #27 section 1).
  if (body.OwnershipType === undefined || body.OwnershipType === 'UserOwned') {
    entity.Attributes.push(ownerAttribute(logical));
    entity.ManyToOneRelationships.push(ownerRelationship(logical));
  }
  if (body.HasActivities === true) enableActivities(req, entity);
  req.state.store.putEntity(entity);
  return { status: 204, headers: { 'OData-EntityId': `${req.base}EntityDefinitions(${entity.MetadataId})` } };
}

/**
 * Whether a table has activities (EntityMetadata HasActivities): a task can be regarding its rows. The
 * sandbox keeps it in one place, the task's regardingobjectid relationship to the table (its
 * navigation property regardingobjectid_<table>_task).
 */
export const hasActivities = (req: ApiRequest, entity: EntityDef) =>
  req.state.store.entity('task')?.ManyToOneRelationships.some((r) => r.ReferencedEntity === entity.LogicalName && r.ReferencingAttribute === 'regardingobjectid') ?? false;

/** Activities on: the task's regardingobjectid may point at the table's rows. */
function enableActivities(req: ApiRequest, entity: EntityDef) {
  const task = req.state.store.entity('task')!;
  const regarding = task.Attributes.map((a) => (a.LogicalName === 'regardingobjectid' ? { ...a, Targets: [...(a.Targets ?? []), entity.LogicalName] } : a));
  req.state.store.putEntity({ ...task, Attributes: regarding, ManyToOneRelationships: [...task.ManyToOneRelationships, taskRegarding(entity.LogicalName, entity.PrimaryIdAttribute)] });
}

/** The 1033 label of a Label body, if it has one. */
const labelIn = (value: unknown): string | undefined =>
  ((value as { LocalizedLabels?: { Label?: unknown; LanguageCode?: unknown }[] } | undefined)?.LocalizedLabels ?? []).find((l) => l?.LanguageCode === 1033 && typeof l.Label === 'string')?.Label as string | undefined;

/**
 * PUT EntityDefinitions(...): UpdateEntity, the table's whole definition sent back (PATCH is refused;
 * docs/crm-wire-behaviour.md). Modelled: HasActivities, which can be turned on once and never off
 * (UpdateEntityRequest.HasActivities: "This capability can only be enabled once. After it is enabled
 * it cannot be disabled"); left out of the body, it stays as it is [inf]; and the display name, whose
 * labels a body without them loses unless MSCRM.MergeLabels is true. A name (LogicalName, SchemaName,
 * EntitySetName) cannot change. The change is in effect for the Web API at once; PublishXml
 * (publishXml below) is what applies it to the apps [inf: the API's behaviour before publishing is not
 * documented].
 */
function updateEntity(req: ApiRequest, entity: EntityDef): Reply {
  const body = parseJson(req);
  for (const name of ['LogicalName', 'SchemaName', 'EntitySetName'] as const) {
    if (typeof body[name] === 'string' && (body[name] as string).toLowerCase() !== entity[name].toLowerCase()) {
      throw new DataverseError(400, '0x80044355', `The ${name} of the entity '${entity.LogicalName}' cannot be changed to '${body[name] as string}'.`);
    }
  }
  const had = hasActivities(req, entity);
  // [inf] Dataverse's words for turning activities off are not published: the sandbox's own.
  if (body.HasActivities === false && had) throw new DataverseError(400, '0x80044355', `Activities cannot be disabled for the entity '${entity.LogicalName}': HasActivities can only be enabled once, and after it is enabled it cannot be disabled.`);
  const merge = /^true$/i.test(req.headers['mscrm.mergelabels'] ?? '');
  const displayName = labelIn(body.DisplayName) ?? (merge ? entity.DisplayName : '');
  req.state.store.putEntity({ ...entity, DisplayName: displayName });
  if (body.HasActivities === true && !had) enableActivities(req, req.state.store.entity(entity.LogicalName)!);
  return { status: 204 };
}

/**
 * POST PublishXml {ParameterXml: "<importexportxml><entities><entity>name</entity>...</entities></importexportxml>"}:
 * publishes the named tables' customizations (https://learn.microsoft.com/power-apps/developer/data-platform/webapi/create-update-entity-definitions-using-web-api:
 * "When you update a table or column definition, you must use the PublishXml Action or PublishAllXml
 * Action before the changes you make will be applied to the application"). An unknown table is refused.
 * Routed by api.ts (POST PublishXml).
 */
export function publishXml(req: ApiRequest): Reply {
  const body = parseJson(req);
  const xml = body.ParameterXml;
  if (typeof xml !== 'string' || !/<importexportxml>[\s\S]*<\/importexportxml>/.test(xml)) throw new DataverseError(400, '0x80040203', 'PublishXml needs a ParameterXml of the form <importexportxml>...</importexportxml>.');
  const names = [...xml.matchAll(/<entity>\s*([^<]*?)\s*<\/entity>/g)].map((m) => m[1]!.toLowerCase());
  for (const name of names) if (!req.state.store.entity(name)) throw notFoundEntity(name);
  // Nothing to apply here: the sandbox has no apps; the call is counted (GET /_sandbox/calls).
  return { status: 204 };
}

function createAttribute(req: ApiRequest, entity: EntityDef): Reply {
  const attribute = attributeFrom(entity.LogicalName, parseJson(req));
  if (attribute.AttributeType === 'Lookup' || attribute.AttributeType === 'Customer') throw new DataverseError(400, '0x80044355', 'Lookup attributes are created with their relationship (POST RelationshipDefinitions).');
  if (entity.Attributes.some((a) => a.LogicalName === attribute.LogicalName)) throw exists('attribute', attribute.LogicalName);
  req.state.store.putEntity({ ...entity, Attributes: [...entity.Attributes, attribute] });
  return { status: 204, headers: { 'OData-EntityId': `${req.base}EntityDefinitions(${entity.MetadataId})/Attributes(${attribute.MetadataId})` } };
}

function createKey(req: ApiRequest, entity: EntityDef): Reply {
  const body = parseJson(req);
  const schema = body.SchemaName;
  const attributes = body.KeyAttributes;
  if (typeof schema !== 'string' || !Array.isArray(attributes) || attributes.length === 0 || !attributes.every((a) => typeof a === 'string')) {
    throw new DataverseError(400, '0x80044355', 'An entity key needs a SchemaName and KeyAttributes (logical names of its columns).');
  }
  for (const a of attributes as string[]) {
    const attr = entity.Attributes.find((x) => x.LogicalName === a);
    if (!attr) throw new DataverseError(400, '0x80060888', `The attribute '${a}' does not exist on entity '${entity.LogicalName}'.`);
    if (!['String', 'Integer', 'Decimal', 'DateTime', 'Lookup', 'Picklist', 'Uniqueidentifier'].includes(attr.AttributeType)) throw new DataverseError(400, '0x80060888', `The attribute '${a}' of type ${attr.AttributeType} cannot be part of an entity key.`);
  }
  const logical = schema.toLowerCase();
  if (entity.Keys.some((k) => k.LogicalName === logical)) throw exists('entity key', logical);
  if (entity.Keys.some((k) => k.KeyAttributes.length === attributes.length && k.KeyAttributes.every((a) => attributes.includes(a)))) throw new DataverseError(400, '0x80060893', `An entity key with the same attributes already exists on entity '${entity.LogicalName}'.`);
  // The definition is made at once; its index is built later by an asynchronous job (key-jobs.ts),
  // which ends Active, or Failed when existing rows hold duplicate values.
  const key: KeyDef = { LogicalName: logical, SchemaName: schema, KeyAttributes: attributes as string[], EntityKeyIndexStatus: 'Pending', MetadataId: randomUUID(), DisplayName: labelText(body.DisplayName, schema), buildStartedAt: req.state.keyJobs.now() };
  const store = req.state.store;
  store.putEntity({ ...entity, Keys: [...entity.Keys, key] });
  return { status: 204, headers: { 'OData-EntityId': `${req.base}EntityDefinitions(${entity.MetadataId})/Keys(${key.MetadataId})` } };
}

function createRelationship(req: ApiRequest): Reply {
  const body = parseJson(req);
  const type = String(body['@odata.type'] ?? '#Microsoft.Dynamics.CRM.OneToManyRelationshipMetadata');
  if (!/OneToManyRelationshipMetadata$/.test(type)) throw new DataverseError(400, '0x80044355', `Only OneToManyRelationshipMetadata is modelled by the sandbox, not '${type}'.`);
  const { store } = req.state;
  const referenced = store.entity(String(body.ReferencedEntity ?? ''));
  const referencing = store.entity(String(body.ReferencingEntity ?? ''));
  if (!referenced) throw notFoundEntity(String(body.ReferencedEntity));
  if (!referencing) throw notFoundEntity(String(body.ReferencingEntity));
  const schema = body.SchemaName;
  if (typeof schema !== 'string' || !schema) throw new DataverseError(400, '0x80044355', 'The SchemaName of the relationship is missing.');
  const lookupBody = (body.Lookup ?? {}) as Record<string, unknown>;
  const lookupSchema = lookupBody.SchemaName;
  if (typeof lookupSchema !== 'string' || !/^[A-Za-z_][\w]*$/.test(lookupSchema)) throw new DataverseError(400, '0x80044355', 'The Lookup attribute of the relationship needs a SchemaName.');
  const all = store.entities().flatMap((e) => e.ManyToOneRelationships);
  if (all.some((r) => r.SchemaName.toLowerCase() === schema.toLowerCase())) throw exists('relationship', schema);
  if (referencing.Attributes.some((a) => a.LogicalName === lookupSchema.toLowerCase())) throw exists('attribute', lookupSchema.toLowerCase());
  const lookup: AttributeDef = {
    LogicalName: lookupSchema.toLowerCase(), SchemaName: lookupSchema, AttributeType: 'Lookup', MetadataId: randomUUID(), Targets: [referenced.LogicalName],
    IsValidForCreate: true, IsValidForUpdate: true, RequiredLevel: ((lookupBody.RequiredLevel as { Value?: string } | undefined)?.Value ?? 'None') as AttributeDef['RequiredLevel'], IsCustomAttribute: true,
  };
  const rel: RelationshipDef = {
    SchemaName: schema, ReferencingEntity: referencing.LogicalName, ReferencingAttribute: lookup.LogicalName, ReferencedEntity: referenced.LogicalName,
    ReferencedAttribute: String(body.ReferencedAttribute ?? referenced.PrimaryIdAttribute),
    // The single-valued navigation property is named after the lookup's SchemaName, as given.
    ReferencingEntityNavigationPropertyName: lookupSchema,
    ReferencedEntityNavigationPropertyName: schema,
    MetadataId: randomUUID(), IsCustomRelationship: true,
  };
  store.putEntity({ ...referencing, Attributes: [...referencing.Attributes, lookup], ManyToOneRelationships: [...referencing.ManyToOneRelationships, rel] });
  return { status: 204, headers: { 'OData-EntityId': `${req.base}RelationshipDefinitions(${rel.MetadataId})` } };
}

function listOf(req: ApiRequest, items: Record<string, unknown>[], context: string): Reply {
  return json(200, { '@odata.context': `${req.base}$metadata#${context}`, value: items });
}

/** EntityDefinitions[...] and RelationshipDefinitions requests; `path` starts with the segment. */
export function handleMetadata(req: ApiRequest, segment: string, key: KeySpec | undefined, rest: string): Reply {
  const options = queryOptions(req.query);
  const store = req.state.store;
  if (segment === 'RelationshipDefinitions') {
    if (req.method === 'POST' && !key && !rest) return createRelationship(req);
    if (req.method === 'GET' && !key && !rest) return listOf(req, store.entities().flatMap((e) => e.ManyToOneRelationships.map((r) => ({ ...r }))), 'RelationshipDefinitions');
    throw odataError(`The sandbox does not model ${req.method} RelationshipDefinitions${rest}.`, 405);
  }
  if (!key) {
    if (rest) throw odataError(`Resource not found for the segment '${rest}'.`, 404);
    if (req.method === 'POST') return createEntity(req);
    if (req.method !== 'GET') throw odataError(`The requested resource does not support http method '${req.method}'.`, 405);
    let entities = store.entities();
    const filter = options.get('$filter');
    if (filter) {
      const m = /^\s*(LogicalName|EntitySetName|SchemaName)\s+eq\s+'((?:[^']|'')*)'\s*$/.exec(filter);
      if (!m) throw odataError(`The sandbox filters EntityDefinitions by "LogicalName eq '...'" (or EntitySetName / SchemaName) only, not '${filter}'.`);
      const want = m[2]!.replace(/''/g, "'");
      entities = entities.filter((e) => String(e[m[1] as 'LogicalName']).toLowerCase() === want.toLowerCase());
    }
    return listOf(req, entities.map((e) => shapeEntity(e, options, hasActivities(req, e))), 'EntityDefinitions');
  }
  const entity = entityFor(req, key);
  const sub = /^\/(Attributes|Keys|ManyToOneRelationships)(?:\((.*)\))?(\/.*)?$/.exec(rest);
  if (!rest) {
    if (req.method === 'GET') return json(200, { '@odata.context': `${req.base}$metadata#EntityDefinitions/$entity`, ...shapeEntity(entity, options, hasActivities(req, entity)) });
    if (req.method === 'PUT') return updateEntity(req, entity);
    // UpdateEntity replaces the definition: "You can't use the PATCH method to update data model entities" (Microsoft, above).
    if (req.method === 'PATCH') throw odataError('The PATCH method is not supported on EntityDefinitions: update a table definition with PUT and the whole definition.', 405);
    throw odataError(`The sandbox does not model ${req.method} on an EntityDefinition.`, 405);
  }
  if (!sub || sub[3]) throw odataError(`Resource not found for the segment '${rest.replace(/^\//, '')}'.`, 404);
  const what = sub[1]!;
  const inner = sub[2];
  if (req.method === 'POST' && inner === undefined) {
    if (what === 'Attributes') return createAttribute(req, entity);
    if (what === 'Keys') return createKey(req, entity);
  }
  if (req.method !== 'GET') throw odataError(`The sandbox does not model ${req.method} ${what}.`, 405);
  const items: Record<string, unknown>[] =
    what === 'Attributes' ? entity.Attributes.map((a) => renderAttribute(entity, a)) : what === 'Keys' ? entity.Keys.map((k) => renderKey(entity, k)) : entity.ManyToOneRelationships.map((r) => ({ ...r }));
  if (inner !== undefined) {
    const k = parseKey(inner, rest);
    const found = items.find((i) => ('guid' in k ? i.MetadataId === k.guid : i.LogicalName === k.values.LogicalName || i.SchemaName === k.values.SchemaName));
    if (!found) throw new DataverseError(404, '0x80040217', `Could not find ${what.replace(/s$/, '')} ${inner} of entity '${entity.LogicalName}'.`);
    return json(200, { '@odata.context': `${req.base}$metadata#EntityDefinitions(${entity.MetadataId})/${what}/$entity`, ...found });
  }
  const select = options.get('$select')?.split(',').map((s) => s.trim()).filter(Boolean);
  const shaped = select ? items.map((i) => Object.fromEntries(Object.entries(i).filter(([k]) => k === '@odata.type' || k === 'MetadataId' || select.includes(k)))) : items;
  return listOf(req, shaped, `EntityDefinitions(${entity.MetadataId})/${what}`);
}
