// Activities on the tables the timeline's tasks are regarding (issue #27 section 1). A task can be
// regarding a custom table's row only when the table has activities (EntityMetadata HasActivities);
// setup makes the project's tables with them, but tables made by an older setup lack them. Turning them
// on later is an UpdateEntity: the table's whole definition sent back with PUT (PATCH is refused) and
// HasActivities true, with MSCRM.MergeLabels: true so no label of another language is lost; then
// PublishXml applies it to the apps (docs/crm-wire-behaviour.md, "Turning activities on for an existing
// table"). Dataverse turns activities on once and never off, so it is done only for a connection that
// chooses the timeline; for another one a table without them is a note.
import type { TableDeclaration } from '../../mappings/dynamics/schema.ts';
import { REGARDING_TABLES } from '../../mappings/dynamics/timeline.ts';
import { quoted } from './odata.ts';
import { DynamicsCallError, type DynamicsTransport } from './transport.ts';

type Report = { created: string[]; present: string[]; problems: string[]; notes: string[] };

/** The project's custom tables a timeline task can be regarding (standard ones, account and opportunity, have activities). */
export const timelineTables = (tables: TableDeclaration[]) => tables.filter((table) => table.custom && Object.values(REGARDING_TABLES).includes(table.logicalName));

const where = (table: string) => `table ${table} activities (HasActivities, for the timeline's tasks)`;

/** The table's definition (no columns, keys or relationships), or undefined when the table is missing. */
async function definitionOf(transport: DynamicsTransport, table: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await transport.call(`reading the definition of ${table}`, (client) => client.retrieveEntity({ key: `LogicalName=${quoted(table)}` }))) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof DynamicsCallError && error.info.status === 404) return undefined;
    throw error;
  }
}

/** Turns activities on where the timeline needs them (or notes where they are off), then publishes the tables changed. */
export async function ensureActivities(transport: DynamicsTransport, tables: TableDeclaration[], report: Report, options: { timeline: boolean }): Promise<void> {
  const turnedOn: string[] = [];
  for (const table of timelineTables(tables)) {
    const definition = await definitionOf(transport, table.logicalName);
    if (!definition) continue;
    if (definition.HasActivities !== false) {
      report.present.push(where(table.logicalName));
      continue;
    }
    if (!options.timeline) {
      report.notes.push(
        `${table.logicalName} was made without activities, so the timeline cannot put tasks on its rows: add timeline to the connection's entities, then run crm-sync setup again, which turns them on (Dataverse never turns them off again)`,
      );
      continue;
    }
    // The whole definition as read, minus the response's annotations: UpdateEntity replaces what it is given.
    const data = Object.fromEntries(Object.entries(definition).filter(([name]) => !name.startsWith('@odata.')));
    try {
      await transport.call(`turning activities on for ${table.logicalName}`, (client) => client.updateEntity({ data: { ...data, HasActivities: true }, mergeLabels: true }));
      report.created.push(where(table.logicalName));
      turnedOn.push(table.logicalName);
    } catch (error) {
      if (!(error instanceof DynamicsCallError)) throw error;
      report.problems.push(
        `${where(table.logicalName)} could not be turned on: ${error.info.message}. Turn on "Enable activities" for ${table.logicalName} in Power Apps (Tables, ${table.logicalName}, Properties, Advanced options), or give the application user a role that may customize tables (System Customizer), then run crm-sync setup again`,
      );
    }
  }
  if (turnedOn.length === 0) return;
  const xml = `<importexportxml><entities>${turnedOn.map((name) => `<entity>${name}</entity>`).join('')}</entities></importexportxml>`;
  try {
    await transport.call(`publishing ${turnedOn.join(', ')}`, (client) => client.callAction({ actionName: 'PublishXml', action: { ParameterXml: xml } }));
  } catch (error) {
    if (!(error instanceof DynamicsCallError)) throw error;
    // Activities are on; publishing is what applies the change to the apps (their forms). Whether the Web
    // API takes tasks regarding the tables before it is not documented [inf]: a problem either way.
    report.problems.push(
      `activities are on for ${turnedOn.join(', ')}, but publishing failed: ${error.info.message}. Publish all customizations in Power Apps (Solutions, Publish all customizations) so sellers see the timeline's tasks on those tables' forms`,
    );
  }
}
