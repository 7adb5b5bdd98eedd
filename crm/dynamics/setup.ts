// `crm-sync setup` for Dynamics: creates what the project needs in the Dataverse environment and is
// missing (mappings/dynamics/schema.ts: custom tables, columns, lookups, alternate keys) and says what it
// did. Safe to run twice: what exists is left as it is; a column of another type is reported as a
// problem, never changed; a standard column the mappings write and the environment lacks is named.
// Order: tables first (lookups point at them), then columns, lookups and keys (a key needs its column).
// A key Dataverse accepts is Pending until an asynchronous job has built its index: setup waits a while
// for it to become Active, reactivates a Failed one (ReactivateEntityKey) and says what to do about
// one still not Active (issue #22 item 9). Tables the timeline's tasks are regarding need activities
// (HasActivities): setup makes them so, and turns activities on for such a table made earlier without
// them when the connection chooses the timeline (activities.ts). Last, the application user's
// privileges on every table (issue #22 item 11).
import { DYNAMICS_TABLES, type ColumnDeclaration, type KeyDeclaration, type LookupDeclaration, type TableDeclaration } from '../../mappings/dynamics/schema.ts';
import { ensureActivities } from './activities.ts';
import { dynamicsCatalogueIds, setUpDynamicsCatalogue } from './catalogue-setup.ts';
import type { DynamicsCredentials } from './auth.ts';
import { quoted } from './odata.ts';
import { missingPrivileges } from './privileges.ts';
import { createDynamicsTransport, DynamicsCallError, type DynamicsTransport } from './transport.ts';

/**
 * `notes`: what is worth knowing and needs nothing now (a table without activities on a connection without the timeline).
 * `catalogueIds`: the unit group, base unit and price lists the catalogue part found (catalogue-setup.ts), when it ran.
 */
export type SetupReport = { created: string[]; present: string[]; problems: string[]; notes: string[]; catalogueIds?: Record<string, string> };

type KeyState = { LogicalName?: string; KeyAttributes?: string[]; EntityKeyIndexStatus?: string };
type Existing = {
  Attributes?: { LogicalName: string; AttributeType?: string }[];
  Keys?: KeyState[];
  ManyToOneRelationships?: { ReferencingEntityNavigationPropertyName?: string; ReferencedEntity?: string }[];
};

const LANGUAGE = 1033;
const label = (text: string) => ({
  '@odata.type': 'Microsoft.Dynamics.CRM.Label',
  LocalizedLabels: [{ '@odata.type': 'Microsoft.Dynamics.CRM.LocalizedLabel', Label: text, LanguageCode: LANGUAGE }],
});
const notRequired = { Value: 'None', CanBeChanged: true, ManagedPropertyLogicalName: 'canmodifyrequirementlevelsettings' };

/** The attribute metadata Dataverse takes to create a column of a declared type (Microsoft's shapes). */
export function attributeMetadata(column: ColumnDeclaration): Record<string, unknown> {
  const common = { SchemaName: column.logicalName, DisplayName: label(column.label), RequiredLevel: notRequired };
  switch (column.type) {
    case 'String':
      return { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', AttributeType: 'String', AttributeTypeName: { Value: 'StringType' }, MaxLength: column.maxLength ?? 100, FormatName: { Value: 'Text' }, ...common };
    case 'Memo':
      return { '@odata.type': 'Microsoft.Dynamics.CRM.MemoAttributeMetadata', AttributeType: 'Memo', AttributeTypeName: { Value: 'MemoType' }, MaxLength: column.maxLength ?? 100_000, Format: 'TextArea', ...common };
    case 'Boolean':
      return {
        '@odata.type': 'Microsoft.Dynamics.CRM.BooleanAttributeMetadata',
        AttributeType: 'Boolean',
        AttributeTypeName: { Value: 'BooleanType' },
        DefaultValue: false,
        OptionSet: { TrueOption: { Value: 1, Label: label('Yes') }, FalseOption: { Value: 0, Label: label('No') }, OptionSetType: 'Boolean' },
        ...common,
      };
    case 'Decimal':
      return { '@odata.type': 'Microsoft.Dynamics.CRM.DecimalAttributeMetadata', AttributeType: 'Decimal', AttributeTypeName: { Value: 'DecimalType' }, Precision: column.precision ?? 2, MinValue: -100_000_000_000, MaxValue: 100_000_000_000, ...common };
    case 'Integer':
      return { '@odata.type': 'Microsoft.Dynamics.CRM.IntegerAttributeMetadata', AttributeType: 'Integer', AttributeTypeName: { Value: 'IntegerType' }, Format: 'None', MinValue: -2_147_483_648, MaxValue: 2_147_483_647, ...common };
    case 'Choice':
      // A local choice (its options belong to this column alone), as PicklistAttributeMetadata with an
      // OptionSetMetadata of IsGlobal false; the option values are given, so every environment has the same.
      return {
        '@odata.type': 'Microsoft.Dynamics.CRM.PicklistAttributeMetadata',
        AttributeType: 'Picklist',
        AttributeTypeName: { Value: 'PicklistType' },
        SourceTypeMask: 0,
        OptionSet: {
          '@odata.type': 'Microsoft.Dynamics.CRM.OptionSetMetadata',
          IsGlobal: false,
          OptionSetType: 'Picklist',
          Options: (column.options ?? []).map((option) => ({ Value: option.value, Label: label(option.label) })),
        },
        ...common,
      };
    case 'DateTime':
    case 'DateOnly':
      return {
        '@odata.type': 'Microsoft.Dynamics.CRM.DateTimeAttributeMetadata',
        AttributeType: 'DateTime',
        AttributeTypeName: { Value: 'DateTimeType' },
        Format: column.type === 'DateOnly' ? 'DateOnly' : 'DateAndTime',
        DateTimeBehavior: { Value: column.type === 'DateOnly' ? 'DateOnly' : 'UserLocal' },
        ...common,
      };
  }
}

/** The AttributeType Dataverse reports for a declared column type. */
const REPORTED_TYPE: Record<ColumnDeclaration['type'], string> = { String: 'String', Memo: 'Memo', Boolean: 'Boolean', Decimal: 'Decimal', Integer: 'Integer', DateTime: 'DateTime', DateOnly: 'DateTime', Choice: 'Picklist' };

export type SetupOptions = {
  /** How long to wait for new or reactivated keys to become Active (default two minutes; 0 does not wait). */
  keyWaitMs?: number;
  /** How soon their status is read again at first (default 200 ms, then half as long again each time, up to 5 s). */
  keyPollMs?: number;
  /**
   * The connection chooses the timeline: tables its tasks are regarding that lack activities get them
   * (once on, Dataverse never turns them off). Without it such a table is a note.
   */
  timeline?: boolean;
  /**
   * The connection syncs the product catalogue (issue #28): its price lists are named from `priceBook`, one
   * per currency in `currencies` (default every currency of the environment); see catalogue-setup.ts.
   */
  catalogue?: { priceBook: string; currencies?: string[] };
};

/** A key setup waits for: made or reactivated in this run, or found not Active. */
type Watched = { table: TableDeclaration; key: KeyDeclaration; where: string; made: boolean };

export async function setUpDynamics(target: { orgUrl: string; apiVersion?: string; credentials: DynamicsCredentials }, tables: TableDeclaration[] = DYNAMICS_TABLES, options: SetupOptions = {}): Promise<SetupReport> {
  const transport = createDynamicsTransport({ orgUrl: target.orgUrl, apiVersion: target.apiVersion, credentials: target.credentials, concurrency: 1 });
  const report: SetupReport = { created: [], present: [], problems: [], notes: [] };
  const watched: Watched[] = [];
  const attempt = async (where: string, create: () => Promise<unknown>) => {
    try {
      await create();
      report.created.push(where);
    } catch (error) {
      // Made meanwhile (another setup run): present.
      if (error instanceof DynamicsCallError && /already exists|duplicate/i.test(error.info.message)) report.present.push(where);
      else if (error instanceof DynamicsCallError) report.problems.push(`${where} could not be created: ${error.info.message}`);
      else throw error;
    }
  };

  for (const table of tables) {
    if ((await readTable(transport, table.logicalName)) !== undefined) {
      report.present.push(`table ${table.logicalName}`);
      continue;
    }
    if (!table.custom) {
      report.problems.push(`table ${table.logicalName} is missing: this environment lacks a standard Dynamics 365 table the sync writes (install Dynamics 365 Sales)`);
      continue;
    }
    await attempt(`table ${table.logicalName}`, () => transport.call(`creating the table ${table.logicalName}`, (client) => client.createEntity({ data: entityMetadata(table) })));
  }

  await ensureActivities(transport, tables, report, { timeline: options.timeline === true });

  for (const table of tables) {
    const existing = await readTable(transport, table.logicalName);
    if (!existing) continue;
    const attributes = new Map((existing.Attributes ?? []).map((attribute) => [attribute.LogicalName, attribute]));
    for (const column of table.standardColumns ?? []) {
      if (!attributes.has(column)) report.problems.push(`${table.logicalName}.${column} is missing: a standard column the mappings write`);
    }
    for (const column of table.columns) await ensureColumn(transport, table, column, attributes.get(column.logicalName), report, attempt);
    const navigation = new Set((existing.ManyToOneRelationships ?? []).map((relationship) => relationship.ReferencingEntityNavigationPropertyName));
    for (const lookup of table.lookups) {
      const where = `${table.logicalName}.${lookup.logicalName} -> ${lookup.target}`;
      if (navigation.has(lookup.logicalName)) report.present.push(where);
      else await attempt(where, () => transport.call(`creating the lookup ${where}`, (client) => client.createRelationship({ data: relationshipMetadata(table, lookup) })));
    }
    const refreshed = (await readTable(transport, table.logicalName)) ?? existing;
    for (const key of table.keys) {
      const watch = await ensureKey(transport, table, key, refreshed, report, attempt);
      if (watch) watched.push(watch);
    }
  }
  await awaitKeys(transport, watched, report, options);
  // The app user must be able to write every table the sync writes (a role with the table's privileges).
  const present = tables.filter((table) => !report.problems.some((problem) => problem.startsWith(`table ${table.logicalName} is missing`)));
  try {
    report.problems.push(...(await missingPrivileges(transport, present.map((table) => table.logicalName))).map((problem) => problem.message));
  } catch (error) {
    if (!(error instanceof DynamicsCallError)) throw error;
    report.problems.push(`the application user's privileges could not be read (${error.info.message}): check that its security role can read users and roles`);
  }
  if (options.catalogue) report.catalogueIds = dynamicsCatalogueIds(await setUpDynamicsCatalogue(transport, report, { ...options.catalogue, keyWaitMs: options.keyWaitMs }));
  return report;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to keyWaitMs) for the watched keys to leave Pending/InProgress, then reports each one's outcome. */
async function awaitKeys(transport: DynamicsTransport, watched: Watched[], report: SetupReport, options: SetupOptions) {
  if (watched.length === 0) return;
  const deadline = Date.now() + (options.keyWaitMs ?? 120_000);
  const statusOf = new Map<Watched, string>();
  // Soon at first (an empty table's index is quick), then every few seconds.
  let pollMs = options.keyPollMs ?? 200;
  for (;;) {
    for (const watch of watched) {
      const keys = await readKeys(transport, watch.table.logicalName);
      statusOf.set(watch, keys.find((found) => sameKey(found, watch.key))?.EntityKeyIndexStatus ?? 'Active');
    }
    const waiting = watched.filter((watch) => ['Pending', 'InProgress'].includes(statusOf.get(watch)!));
    if (waiting.length === 0 || Date.now() >= deadline) break;
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
    pollMs = Math.min(pollMs * 1.5, 5_000);
  }
  for (const watch of watched) {
    const status = statusOf.get(watch)!;
    const { table, key, where } = watch;
    const columns = key.columns.join(', ');
    if (status === 'Active') (watch.made ? report.created : report.present).push(where);
    else if (status === 'Failed') {
      report.problems.push(
        `${where} could not be activated (Failed): ${table.logicalName} rows already hold duplicate ${columns} values, so Dataverse could not build the key's unique index. Find the ${table.logicalName} rows sharing a ${columns} value, merge or delete the extra ones, then run crm-sync setup again: it reactivates the key`,
      );
    } else {
      report.problems.push(
        `${where} is not active yet (${status}): Dataverse is still building its index. Wait a few minutes and run crm-sync setup again; until it is Active the sync waits instead of writing ${table.logicalName} rows by ${columns}`,
      );
    }
  }
}

async function readTable(transport: DynamicsTransport, logicalName: string): Promise<Existing | undefined> {
  try {
    return (await transport.call(`reading the definition of ${logicalName}`, (client) =>
      client.retrieveEntity({
        key: `LogicalName=${quoted(logicalName)}`,
        select: ['LogicalName', 'EntitySetName'],
        // Nested $select (issue #22 item 10): only what setup compares, not every column's full definition.
        expand: [
          { property: 'Attributes', select: ['LogicalName', 'AttributeType'] },
          { property: 'Keys', select: ['LogicalName', 'KeyAttributes', 'EntityKeyIndexStatus'] },
          { property: 'ManyToOneRelationships', select: ['ReferencingEntityNavigationPropertyName', 'ReferencedEntity'] },
        ],
      }),
    )) as Existing;
  } catch (error) {
    if (error instanceof DynamicsCallError && error.info.status === 404) return undefined;
    throw error;
  }
}

async function ensureColumn(
  transport: DynamicsTransport,
  table: TableDeclaration,
  column: ColumnDeclaration,
  found: { AttributeType?: string } | undefined,
  report: SetupReport,
  attempt: (where: string, create: () => Promise<unknown>) => Promise<void>,
) {
  const where = `${table.logicalName}.${column.logicalName}`;
  if (found) {
    if (found.AttributeType && found.AttributeType !== REPORTED_TYPE[column.type]) report.problems.push(`${where} exists as a column of type ${found.AttributeType}; the sync writes it as ${column.type}: change or rename it in Dataverse`);
    else report.present.push(where);
    return;
  }
  await attempt(where, () => transport.call(`creating the column ${where}`, (client) => client.createAttribute({ entityKey: `LogicalName=${quoted(table.logicalName)}`, data: attributeMetadata(column) })));
}

const sameKey = (found: KeyState, key: KeyDeclaration) => found.LogicalName === key.logicalName || [...(found.KeyAttributes ?? [])].sort().join(',') === [...key.columns].sort().join(',');

async function readKeys(transport: DynamicsTransport, logicalName: string): Promise<KeyState[]> {
  const answer = (await transport.call(`reading the alternate keys of ${logicalName}`, (client) =>
    client.retrieveMultiple({ collection: 'EntityDefinitions', key: `LogicalName=${quoted(logicalName)}`, navigationProperty: 'Keys', select: ['LogicalName', 'KeyAttributes', 'EntityKeyIndexStatus'] } as Parameters<typeof client.retrieveMultiple>[0]),
  )) as { value?: KeyState[] };
  return answer.value ?? [];
}

/** Makes the key if it is missing and says whether to wait for it (new, reactivated, or not Active yet). */
async function ensureKey(
  transport: DynamicsTransport,
  table: TableDeclaration,
  key: KeyDeclaration,
  existing: Existing,
  report: SetupReport,
  attempt: (where: string, create: () => Promise<unknown>) => Promise<void>,
): Promise<Watched | undefined> {
  const where = `${table.logicalName} alternate key ${key.logicalName} (${key.columns.join(', ')})`;
  const same = (existing.Keys ?? []).find((found) => sameKey(found, key));
  if (same) {
    const status = same.EntityKeyIndexStatus ?? 'Active';
    if (status === 'Active') {
      report.present.push(where);
      return undefined;
    }
    if (status === 'Failed') {
      // The documented retry: a new index job, which ends Active once the duplicates are gone.
      try {
        await transport.call(`reactivating the ${where}`, (client) => client.callAction({ actionName: 'ReactivateEntityKey', action: { EntityLogicalName: table.logicalName, EntityKeyLogicalName: same.LogicalName ?? key.logicalName } }));
      } catch (error) {
        if (!(error instanceof DynamicsCallError)) throw error;
        report.problems.push(`${where} is Failed and could not be reactivated: ${error.info.message}`);
        return undefined;
      }
    }
    return { table, key, where, made: false };
  }
  const before = report.created.length + report.present.length;
  await attempt(where, () =>
    transport.call(`creating the ${where}`, (client) =>
      client.create({
        collection: 'EntityDefinitions',
        key: `LogicalName=${quoted(table.logicalName)}`,
        navigationProperty: 'Keys',
        data: { SchemaName: key.logicalName, DisplayName: label(key.label), KeyAttributes: key.columns },
      }),
    ),
  );
  // Created (or made meanwhile by another run): reported once its index job has ended.
  if (report.created.length + report.present.length === before) return undefined;
  const made = report.created.at(-1) === where;
  (made ? report.created : report.present).pop();
  return { table, key, where, made };
}

function entityMetadata(table: TableDeclaration): Record<string, unknown> {
  const primary = table.primaryName ?? { logicalName: 'ccs_name', label: 'Name', maxLength: 200 };
  return {
    '@odata.type': 'Microsoft.Dynamics.CRM.EntityMetadata',
    SchemaName: table.logicalName,
    EntitySetName: table.entitySetName,
    DisplayName: label(table.label),
    DisplayCollectionName: label(table.pluralLabel),
    Description: label(`${table.label}, kept in step with the Marketplace Commerce Service by commerce-crm-sync`),
    OwnershipType: 'UserOwned',
    IsActivity: false,
    // Activities (the timeline's tasks, issue #27 section 1) may be regarding the project's tables.
    HasActivities: true,
    HasNotes: false,
    Attributes: [{ ...attributeMetadata({ logicalName: primary.logicalName, label: primary.label, type: 'String', maxLength: primary.maxLength }), IsPrimaryName: true }],
  };
}

function relationshipMetadata(table: TableDeclaration, lookup: LookupDeclaration): Record<string, unknown> {
  return {
    '@odata.type': 'Microsoft.Dynamics.CRM.OneToManyRelationshipMetadata',
    SchemaName: `${table.logicalName}_${lookup.logicalName}`,
    ReferencedEntity: lookup.target,
    ReferencedAttribute: `${lookup.target}id`,
    ReferencingEntity: table.logicalName,
    // Deleting the parent leaves the record and clears the link: nothing the sync wrote is deleted with it.
    CascadeConfiguration: { Assign: 'NoCascade', Delete: 'RemoveLink', Merge: 'NoCascade', Reparent: 'NoCascade', Share: 'NoCascade', Unshare: 'NoCascade' },
    Lookup: {
      '@odata.type': 'Microsoft.Dynamics.CRM.LookupAttributeMetadata',
      AttributeType: 'Lookup',
      AttributeTypeName: { Value: 'LookupType' },
      SchemaName: lookup.logicalName,
      DisplayName: label(lookup.label),
      RequiredLevel: notRequired,
    },
  };
}
