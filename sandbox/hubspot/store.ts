// The account's data: custom object schemas, records per object type, properties and their groups,
// associations and deal pipelines. Every change is announced to listeners (the journal) before the
// request that made it is answered.
import { DEFAULT_OWNERS, type Owner } from './owners.ts';
import { customObjectType, premadeSchemas, type CustomSchema } from './custom-objects.ts';
import { defaultGroupOf, defaultProperties, findObjectType, STANDARD_OBJECT_TYPES, type ObjectTypeDef, type PropertyDef } from './schema.ts';

export type HubRecord = { id: string; properties: Record<string, string>; createdAt: string; updatedAt: string; archived: boolean; archivedAt?: string };
export type Association = { fromType: string; fromId: string; toType: string; toId: string; typeId: number; category: 'HUBSPOT_DEFINED' | 'USER_DEFINED' };
export type PipelineStage = { id: string; label: string; displayOrder: number; metadata: Record<string, string>; createdAt: string; updatedAt: string; archived: boolean };
export type Pipeline = { id: string; label: string; displayOrder: number; stages: PipelineStage[]; createdAt: string; updatedAt: string; archived: boolean };

export type PropertyGroup = { name: string; label: string; displayOrder: number; archived: boolean };

export type StoreChange =
  | { op: 'schema'; schema: CustomSchema }
  | { op: 'group'; type: string; group: PropertyGroup }
  | { op: 'record'; type: string; record: HubRecord }
  | { op: 'property'; type: string; property: PropertyDef }
  | { op: 'association'; association: Association }
  | { op: 'pipeline'; pipeline: Pipeline }
  | { op: 'clear' };

const DEFAULT_PIPELINE_AT = '2020-01-01T00:00:00.000Z';
export function defaultPipeline(): Pipeline {
  const stage = (id: string, label: string, displayOrder: number, probability: string): PipelineStage => ({
    id,
    label,
    displayOrder,
    metadata: { isClosed: String(id.startsWith('closed')), probability },
    createdAt: DEFAULT_PIPELINE_AT,
    updatedAt: DEFAULT_PIPELINE_AT,
    archived: false,
  });
  return {
    id: 'default',
    label: 'Sales Pipeline',
    displayOrder: 0,
    archived: false,
    createdAt: DEFAULT_PIPELINE_AT,
    updatedAt: DEFAULT_PIPELINE_AT,
    stages: [
      stage('appointmentscheduled', 'Appointment Scheduled', 0, '0.2'),
      stage('qualifiedtobuy', 'Qualified To Buy', 1, '0.4'),
      stage('presentationscheduled', 'Presentation Scheduled', 2, '0.6'),
      stage('decisionmakerboughtin', 'Decision Maker Bought-In', 3, '0.8'),
      stage('contractsent', 'Contract Sent', 4, '0.9'),
      stage('closedwon', 'Closed Won', 5, '1.0'),
      stage('closedlost', 'Closed Lost', 6, '0.0'),
    ],
  };
}

/**
 * `portalId`: the account's id (custom objects' fully qualified names carry it). `premadeCustomObjects`:
 * the portal starts with the custom object marketplace_entitlement already defined (default), as an
 * account where someone created it before; false: it has none until one is created through the schemas API.
 */
export type StoreOptions = { portalId?: string; premadeCustomObjects?: boolean; owners?: readonly Owner[]; currencies?: readonly string[] };

export function createStore(options: StoreOptions = {}) {
  const portalId = options.portalId ?? '4242';
  // The portal's users: not records, never cleared (owners.ts).
  const owners = [...(options.owners ?? DEFAULT_OWNERS)];
  const records = new Map<string, Map<string, HubRecord>>();
  const properties = new Map<string, Map<string, PropertyDef>>();
  const groups = new Map<string, Map<string, PropertyGroup>>();
  const schemas = new Map<string, CustomSchema>();
  let associations: Association[] = [];
  // Indexes, so a portal of 100,000 records answers as fast as one of 100 (HubSpot's own are indexed):
  // associations by their from-record and by their whole key; records by a property's value, built on
  // the first lookup of that property and kept up to date by putRecord.
  let associationsFrom = new Map<string, Association[]>();
  let associationKeys = new Set<string>();
  let valueIndexes = new Map<string, { normalize: (value: string) => string; ids: Map<string, Set<string>> }>();
  const pipelines = new Map<string, Pipeline>();
  const listeners: ((change: StoreChange) => void)[] = [];
  let nextId = 1000;

  const emit = (change: StoreChange) => listeners.forEach((listen) => listen(change));
  /** A type's tables, built-in properties and default group, unless it has them already. */
  const ensureType = (name: string) => {
    if (records.has(name)) return;
    records.set(name, new Map());
    properties.set(name, new Map(defaultProperties(name, options.currencies).map((p) => [p.name, p])));
    const group: PropertyGroup = { name: defaultGroupOf(name), label: 'Information', displayOrder: 0, archived: false };
    groups.set(name, new Map([[group.name, group]]));
  };
  const init = () => {
    records.clear();
    properties.clear();
    groups.clear();
    schemas.clear();
    associations = [];
    associationsFrom = new Map();
    associationKeys = new Set();
    valueIndexes = new Map();
    pipelines.clear();
    for (const t of STANDARD_OBJECT_TYPES) ensureType(t.name);
    if (options.premadeCustomObjects !== false) {
      for (const { schema, properties: own } of premadeSchemas(portalId)) {
        schemas.set(schema.name, schema);
        ensureType(schema.name);
        for (const property of own) properties.get(schema.name)!.set(property.name, property);
      }
    }
    const pipeline = defaultPipeline();
    pipelines.set(pipeline.id, pipeline);
  };
  init();
  const table = (type: string) => records.get(type)!;
  const props = (type: string) => properties.get(type)!;
  const fromKey = (type: string, id: string) => `${type}\u0000${id}`;
  const associationKey = (a: Association) => [a.fromType, a.fromId, a.toType, a.toId, a.typeId].join('\u0000');
  const indexKey = (type: string, name: string) => `${type}\u0000${name}`;
  const indexRecord = (type: string, record: HubRecord, add: boolean) => {
    for (const [key, index] of valueIndexes) {
      const [indexType, name] = key.split('\u0000') as [string, string];
      const value = record.properties[name];
      if (indexType !== type || value === undefined || value === '') continue;
      const normalized = index.normalize(value);
      const ids = index.ids.get(normalized) ?? new Set<string>();
      if (add) ids.add(record.id);
      else ids.delete(record.id);
      if (ids.size) index.ids.set(normalized, ids);
      else index.ids.delete(normalized);
    }
  };

  const objectTypes = (): ObjectTypeDef[] => [...STANDARD_OBJECT_TYPES, ...[...schemas.values()].map(customObjectType)];

  return {
    portalId,
    onChange(listener: (change: StoreChange) => void) {
      listeners.push(listener);
    },
    objectTypes,
    /** The type an API path names, by HubSpot's rules (a custom object never by its bare name). */
    owners: (): readonly Owner[] => owners,
    objectType: (nameOrId: string) => findObjectType(nameOrId, objectTypes()),
    /** The type the sandbox's own controls name: as an API path may, or by the sandbox's key (a custom object's bare name). */
    internalType: (name: string) => findObjectType(name, objectTypes()) ?? objectTypes().find((t) => t.name === name.toLowerCase()),
    schemas: () => [...schemas.values()],
    schema: (name: string) => schemas.get(name),
    /** Defines a custom object: its tables, built-in properties and default group (its own properties are put after). */
    putSchema(schema: CustomSchema) {
      schemas.set(schema.name, schema);
      ensureType(schema.name);
      emit({ op: 'schema', schema });
    },
    groups: (type: string) => [...(groups.get(type)?.values() ?? [])],
    group: (type: string, name: string) => groups.get(type)?.get(name),
    putGroup(type: string, group: PropertyGroup) {
      groups.get(type)!.set(group.name, group);
      emit({ op: 'group', type, group });
    },
    newId: () => String(++nextId),
    continueIdsAfter(id: number) {
      nextId = Math.max(nextId, id);
    },
    highestId: () => nextId,
    records: (type: string) => [...table(type).values()],
    record: (type: string, id: string) => table(type).get(id),
    putRecord(type: string, record: HubRecord) {
      const before = table(type).get(record.id);
      if (before) indexRecord(type, before, false);
      table(type).set(record.id, record);
      indexRecord(type, record, true);
      emit({ op: 'record', type, record });
    },
    /** The records (archived ones too) whose `name` holds `value`, compared after `normalize`, through an index. */
    recordsWithValue(type: string, name: string, value: string, normalize: (value: string) => string = (v) => v): HubRecord[] {
      const key = indexKey(type, name);
      let index = valueIndexes.get(key);
      if (!index) {
        index = { normalize, ids: new Map() };
        valueIndexes.set(key, index);
        for (const record of table(type).values()) {
          const stored = record.properties[name];
          if (stored === undefined || stored === '') continue;
          const normalized = normalize(stored);
          const ids = index.ids.get(normalized) ?? new Set<string>();
          ids.add(record.id);
          index.ids.set(normalized, ids);
        }
      }
      return [...(index.ids.get(index.normalize(value)) ?? [])].flatMap((id) => table(type).get(id) ?? []);
    },
    properties: (type: string) => [...props(type).values()],
    property: (type: string, name: string) => props(type).get(name),
    putProperty(type: string, property: PropertyDef) {
      props(type).set(property.name, property);
      emit({ op: 'property', type, property });
    },
    associationsOf: (fromType: string, fromId: string, toType?: string) =>
      (associationsFrom.get(fromKey(fromType, fromId)) ?? []).filter((a) => toType === undefined || a.toType === toType),
    allAssociations: () => [...associations],
    addAssociation(association: Association) {
      const key = associationKey(association);
      if (associationKeys.has(key)) return;
      associationKeys.add(key);
      associations.push(association);
      const from = fromKey(association.fromType, association.fromId);
      associationsFrom.set(from, [...(associationsFrom.get(from) ?? []), association]);
      emit({ op: 'association', association });
    },
    pipelines: () => [...pipelines.values()],
    pipeline: (id: string) => pipelines.get(id),
    putPipeline(pipeline: Pipeline) {
      pipelines.set(pipeline.id, pipeline);
      emit({ op: 'pipeline', pipeline });
    },
    clear() {
      init();
      emit({ op: 'clear' });
    },
  };
}

export type Store = ReturnType<typeof createStore>;
