// What Dataverse says a table is, read from EntityDefinitions (attributes, alternate keys, many-to-one
// relationships) before anything is written to it: the entity set the Web API names it by, its primary
// id column, each column's type (so every filter value is typed), each lookup's navigation property with
// the table it points at (so a reference becomes an @odata.bind), and its alternate keys with their
// status. Definitions change under a running worker (an admin runs setup, a key's index job ends), so
// they are kept for a few minutes, not for the life of the process, and a table is read again at once
// when a write needs a key that was not Active (issue #22 item 9).
import { CrmError, type FieldSchema, type ObjectSchema } from '../connector.ts';
import type { LiteralKind } from './odata.ts';
import { quoted } from './odata.ts';
import type { DynamicsTransport } from './transport.ts';

export type KeyInfo = { name: string; columns: string[]; status: string };

export type TableInfo = ObjectSchema & {
  entitySetName: string;
  primaryId: string;
  /** Navigation property -> the table it points at (lookups written with @odata.bind). */
  navigation: ReadonlyMap<string, string>;
  /** Columns that are alternate keys on their own (Active), usable to upsert by. */
  keyColumns: ReadonlySet<string>;
  /** Every alternate key with its index status (Pending, InProgress, Active, Failed). */
  keys: readonly KeyInfo[];
  literalKind(column: string): LiteralKind | undefined;
};

type AttributeMetadata = {
  LogicalName: string;
  AttributeType?: string;
  MaxLength?: number;
  Format?: string;
  FormatName?: { Value?: string };
  DateTimeBehavior?: { Value?: string };
  IsValidForCreate?: boolean;
  IsValidForUpdate?: boolean;
  RequiredLevel?: { Value?: string };
  Targets?: string[];
};
type EntityMetadata = {
  LogicalName: string;
  EntitySetName: string;
  PrimaryIdAttribute: string;
  Attributes?: AttributeMetadata[];
  Keys?: { LogicalName?: string; KeyAttributes?: string[]; EntityKeyIndexStatus?: string }[];
  ManyToOneRelationships?: { ReferencingAttribute?: string; ReferencedEntity?: string; ReferencingEntityNavigationPropertyName?: string }[];
};

const LOOKUPS = new Set(['Lookup', 'Customer', 'Owner']);

// Columns Dataverse fills or derives itself whatever their level says: the owner and its type, state and
// status (statecode defaults to Active), virtual columns, the primary key.
const FILLED_BY_DATAVERSE = new Set(['EntityName', 'State', 'Status', 'Virtual', 'Owner', 'Uniqueidentifier']);

/**
 * `required` in the strict sense the required-fields check needs: the Web API refuses a create without
 * the column. Only SystemRequired is enforced; ApplicationRequired is a rule of forms (Business
 * Required), which the Web API does not enforce (sandbox/dynamics/README.md, docs/crm-wire-behaviour.md).
 */
function refusedWithout(attribute: AttributeMetadata, primaryId: string): boolean {
  if (attribute.RequiredLevel?.Value !== 'SystemRequired') return false;
  if (FILLED_BY_DATAVERSE.has(attribute.AttributeType ?? '')) return false;
  const name = attribute.LogicalName;
  return name !== primaryId && !name.startsWith('owner') && !name.startsWith('owning');
}

export function kindOf(attribute: AttributeMetadata): LiteralKind {
  switch (attribute.AttributeType) {
    case 'Uniqueidentifier':
    case 'Lookup':
    case 'Customer':
    case 'Owner':
      return 'guid';
    case 'Integer':
    case 'BigInt':
    case 'Decimal':
    case 'Double':
    case 'Money':
    case 'Picklist':
    case 'State':
    case 'Status':
      return 'number';
    case 'Boolean':
      return 'boolean';
    case 'DateTime':
      return attribute.Format === 'DateOnly' || attribute.FormatName?.Value === 'DateOnly' || attribute.DateTimeBehavior?.Value === 'DateOnly' ? 'date' : 'datetime';
    default:
      return 'string';
  }
}

/** A table's metadata as the connector uses it. Pure: tested on Dataverse's answer shapes. */
export function tableInfo(entity: EntityMetadata): TableInfo {
  const fields = new Map<string, FieldSchema>();
  const kinds = new Map<string, LiteralKind>();
  const keys: KeyInfo[] = (entity.Keys ?? []).map((key) => ({ name: key.LogicalName ?? '', columns: key.KeyAttributes ?? [], status: key.EntityKeyIndexStatus ?? 'Active' }));
  const keyColumns = new Set(keys.filter((key) => key.status === 'Active' && key.columns.length === 1).map((key) => key.columns[0]!));
  for (const attribute of entity.Attributes ?? []) {
    const required = refusedWithout(attribute, entity.PrimaryIdAttribute);
    const isKey = keyColumns.has(attribute.LogicalName);
    fields.set(attribute.LogicalName, {
      name: attribute.LogicalName,
      type: attribute.AttributeType ?? 'String',
      ...(attribute.MaxLength !== undefined && { length: attribute.MaxLength }),
      required,
      createable: attribute.IsValidForCreate !== false,
      updateable: attribute.IsValidForUpdate !== false,
      externalId: isKey,
      unique: isKey,
      ...(attribute.Targets?.length && { referenceTo: attribute.Targets }),
    });
    kinds.set(attribute.LogicalName, kindOf(attribute));
    if (LOOKUPS.has(attribute.AttributeType ?? '')) {
      // How a lookup reads back: _<column>_value, the GUID of the record it points at.
      const read = `_${attribute.LogicalName}_value`;
      fields.set(read, { name: read, type: 'Uniqueidentifier', required: false, createable: false, updateable: false, externalId: false, ...(attribute.Targets?.length && { referenceTo: attribute.Targets }) });
      kinds.set(read, 'guid');
    }
  }
  const navigation = new Map<string, string>();
  for (const relationship of entity.ManyToOneRelationships ?? []) {
    const property = relationship.ReferencingEntityNavigationPropertyName;
    if (!property || !relationship.ReferencedEntity) continue;
    navigation.set(property, relationship.ReferencedEntity);
    if (!fields.has(property)) {
      fields.set(property, { name: property, type: 'reference', required: false, createable: true, updateable: true, externalId: false, referenceTo: [relationship.ReferencedEntity], relationshipName: property });
    }
  }
  kinds.set(entity.PrimaryIdAttribute, 'guid');
  return {
    name: entity.LogicalName,
    fields,
    entitySetName: entity.EntitySetName,
    primaryId: entity.PrimaryIdAttribute,
    navigation,
    keyColumns,
    keys,
    literalKind: (column) => kinds.get(column),
  };
}

export class UnknownTableError extends Error {
  override name = 'UnknownTableError';
}

/** The one-column key on `column`, whatever its status. */
const keyOn = (table: TableInfo, column: string) => table.keys.find((key) => key.columns.length === 1 && key.columns[0] === column);

/** A key Dataverse is still building: the write waits (the activity is retried later), nothing is dead-lettered. */
export class KeyNotActiveError extends CrmError {
  override name = 'KeyNotActiveError';
  constructor(table: string, key: KeyInfo) {
    super(
      `Dataverse is still building the alternate key ${key.name} on ${table} (${key.columns.join(', ')}; status ${key.status}): ${table} rows are written by it once it is Active, and the sync tries again until then`,
      { code: 'KEY_NOT_ACTIVE', retryable: true, retryAfterMs: 30_000 },
    );
  }
}

/** Why a record cannot be written to the table by `column` (no Active key on it), in words to act on. */
export function keyProblem(table: TableInfo, column: string): { code: string; message: string } {
  const key = keyOn(table, column);
  if (key?.status === 'Failed') {
    return {
      code: 'KEY_FAILED',
      message: `Dataverse could not build the alternate key ${key.name} on ${table.name} (${column}): its status is Failed, because ${table.name} rows hold duplicate ${column} values. Remove the duplicates, then run crm-sync setup <connection>, which reactivates the key`,
    };
  }
  if (key) return { code: 'KEY_NOT_ACTIVE', message: `the alternate key ${key.name} on ${table.name} (${column}) is not active yet (${key.status})` };
  return { code: 'SCHEMA_MISSING', message: `Dataverse's ${table.name} table has no active alternate key on ${column}: run crm-sync setup <connection> to create the project's keys` };
}

/** True when Dataverse refused a write because the key in its URL is not (or no longer) Active. */
export const refusedForInactiveKey = (message: string) => /is not active|EntityKeyIndexStatus|do not match any Active alternate key/i.test(message);

export type MetadataOptions = {
  /** How long a table's definition is trusted before it is read again (default five minutes). */
  ttlMs?: number;
  clock?: () => number;
};

/** Reads the definitions of the tables a connector touches, keeping each for `ttlMs`. */
export function createMetadata(transport: DynamicsTransport, options: MetadataOptions = {}) {
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const clock = options.clock ?? Date.now;
  const tables = new Map<string, { info: Promise<TableInfo>; readAt: number }>();
  async function read(table: string): Promise<TableInfo> {
    const entity = await transport.call(`reading the definition of the ${table} table`, (client) =>
      client.retrieveEntity({
        key: `LogicalName=${quoted(table)}`,
        select: ['LogicalName', 'EntitySetName', 'PrimaryIdAttribute', 'PrimaryNameAttribute'],
        // Attributes whole: MaxLength, Format and Targets belong to derived attribute types, which a
        // nested $select on AttributeMetadata cannot name; keys and relationships only what is used.
        expand: [
          { property: 'Attributes' },
          { property: 'Keys', select: ['LogicalName', 'KeyAttributes', 'EntityKeyIndexStatus'] },
          { property: 'ManyToOneRelationships', select: ['ReferencingAttribute', 'ReferencedEntity', 'ReferencingEntityNavigationPropertyName'] },
        ],
      }),
    ).catch((error) => {
      if ((error as { info?: { status?: number } }).info?.status === 404) {
        throw new UnknownTableError(`This Dataverse environment has no ${table} table: run crm-sync setup <connection> to create the project's tables`);
      }
      throw error;
    });
    return tableInfo(entity as EntityMetadata);
  }
  function load(name: string): Promise<TableInfo> {
    const info = read(name);
    const entry = { info, readAt: clock() };
    tables.set(name, entry);
    info.catch(() => {
      if (tables.get(name) === entry) tables.delete(name);
    });
    return info;
  }
  const metadata = {
    table(name: string): Promise<TableInfo> {
      const cached = tables.get(name);
      return cached && clock() - cached.readAt < ttlMs ? cached.info : load(name);
    },
    /** The table read again, unless it was read less than `unlessYoungerThanMs` ago. */
    refresh(name: string, unlessYoungerThanMs = 0): Promise<TableInfo> {
      const cached = tables.get(name);
      return cached && clock() - cached.readAt < unlessYoungerThanMs ? cached.info : load(name);
    },
    /**
     * The table, to be written by its key on `column`. A key that was not Active when last read is read
     * again (a key setup made becomes Active minutes later, with no restart): still being built, the
     * write waits (KeyNotActiveError, retried); missing or Failed, the caller fails each record with keyProblem().
     */
    async tableForKey(name: string, column: string): Promise<TableInfo> {
      const info = await metadata.table(name);
      if (info.keyColumns.has(column)) return info;
      const fresh = await metadata.refresh(name, 1_000);
      const key = keyOn(fresh, column);
      if (!fresh.keyColumns.has(column) && key && (key.status === 'Pending' || key.status === 'InProgress')) throw new KeyNotActiveError(fresh.name, key);
      return fresh;
    },
    /** Forgets what was read (after setup changed the schema, or a write found a key not active). */
    forget(name?: string) {
      if (name === undefined) tables.clear();
      else tables.delete(name);
    },
  };
  return metadata;
}

export type Metadata = ReturnType<typeof createMetadata>;
