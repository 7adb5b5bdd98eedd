// What Dataverse says a table is, read once per connector from EntityDefinitions (attributes, alternate
// keys, many-to-one relationships) before anything is written to it: the entity set the Web API names
// it by, its primary id column, each column's type (so every filter value is typed), and each lookup's
// navigation property with the table it points at (so a reference becomes an @odata.bind).
import type { FieldSchema, ObjectSchema } from '../connector.ts';
import type { LiteralKind } from './odata.ts';
import { quoted } from './odata.ts';
import type { DynamicsTransport } from './transport.ts';

export type TableInfo = ObjectSchema & {
  entitySetName: string;
  primaryId: string;
  /** Navigation property -> the table it points at (lookups written with @odata.bind). */
  navigation: ReadonlyMap<string, string>;
  /** Columns that are alternate keys on their own (Active), usable to upsert by. */
  keyColumns: ReadonlySet<string>;
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
  const keyColumns = new Set((entity.Keys ?? []).filter((key) => (key.EntityKeyIndexStatus ?? 'Active') === 'Active' && key.KeyAttributes?.length === 1).map((key) => key.KeyAttributes![0]!));
  for (const attribute of entity.Attributes ?? []) {
    const required = attribute.RequiredLevel?.Value === 'SystemRequired' || attribute.RequiredLevel?.Value === 'ApplicationRequired';
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
    literalKind: (column) => kinds.get(column),
  };
}

export class UnknownTableError extends Error {
  override name = 'UnknownTableError';
}

/** Reads (once, then from memory) the metadata of the tables a connector touches. */
export function createMetadata(transport: DynamicsTransport) {
  const tables = new Map<string, Promise<TableInfo>>();
  async function read(table: string): Promise<TableInfo> {
    const entity = await transport.call(`reading the definition of the ${table} table`, (client) =>
      client.retrieveEntity({
        key: `LogicalName=${quoted(table)}`,
        select: ['LogicalName', 'EntitySetName', 'PrimaryIdAttribute', 'PrimaryNameAttribute'],
        expand: [{ property: 'Attributes' }, { property: 'Keys' }, { property: 'ManyToOneRelationships' }],
      }),
    ).catch((error) => {
      if ((error as { info?: { status?: number } }).info?.status === 404) {
        throw new UnknownTableError(`This Dataverse environment has no ${table} table: run crm-sync setup <connection> to create the project's tables`);
      }
      throw error;
    });
    return tableInfo(entity as EntityMetadata);
  }
  return {
    table(name: string): Promise<TableInfo> {
      let info = tables.get(name);
      if (!info) {
        info = read(name);
        tables.set(name, info);
        info.catch(() => tables.delete(name));
      }
      return info;
    },
    /** Forgets what was read (after setup changed the schema). */
    forget() {
      tables.clear();
    },
  };
}

export type Metadata = ReturnType<typeof createMetadata>;
