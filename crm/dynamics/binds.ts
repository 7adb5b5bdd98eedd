// A mapped record as Dataverse's JSON body: columns as they are (Dates as ISO text), and each lookup,
// mapped as a reference, as `<navigation property>@odata.bind`: by the GUID the sync linked the
// referenced record to, else by the referenced record's alternate key, else (a GUID string the commerce
// record carries) by that GUID; null clears the lookup. A column the table lacks is named, not sent.
import type { CrmRecord } from '../connector.ts';
import type { Metadata, TableInfo } from './metadata.ts';
import { asGuid, keySegment, ODataValueError } from './odata.ts';

/** The navigation property an activity names its record by, per table: regardingobjectid_<table>_<activity table> (mappings/dynamics/timeline.ts). */
const REGARDING = 'regardingobjectid_';

export type WireBody = { data: Record<string, unknown> } | { problem: { code: string; message: string } };

/** A mapped reference: one key column and a commerce id ({ ccs_commercebuyerid: 'B-1' }). */
export function isReference(value: unknown): value is Record<string, string> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && Object.keys(value as object).length === 1;
}

export async function toBody(metadata: Metadata, table: TableInfo, fields: CrmRecord, references: Record<string, string> = {}): Promise<WireBody> {
  const data: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const target = table.navigation.get(name);
    if (target) {
      const set = (await metadata.table(target)).entitySetName;
      if (value === null || value === undefined) {
        data[`${name}@odata.bind`] = null;
        continue;
      }
      try {
        if (isReference(value)) {
          const [[column, id]] = Object.entries(value) as [[string, string]];
          const known = asGuid(references[`${column}=${id}`]);
          data[`${name}@odata.bind`] = `/${set}(${known ?? keySegment({ column, value: String(id) })})`;
        } else {
          const guid = asGuid(value);
          if (!guid) return { problem: { code: 'INVALID_LOOKUP', message: `${name}: ${JSON.stringify(value)} is not the GUID of a ${target} record` } };
          data[`${name}@odata.bind`] = `/${set}(${guid})`;
        }
      } catch (error) {
        if (error instanceof ODataValueError) return { problem: { code: 'KEY_UNUSABLE', message: `${name}: ${error.message}` } };
        throw error;
      }
      continue;
    }
    if (!table.fields.has(name)) {
      missing.push(name);
      continue;
    }
    data[name] = value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, 'Z') : value;
  }
  // An activity regarding a table without activities: Dataverse gives the activity no regardingobjectid_<table>_<activity>
  // property for it, so the cure is turning activities on for that table, not a column.
  const regarding = missing.filter((name) => name.startsWith(REGARDING) && name.endsWith(`_${table.name}`));
  if (regarding.length) {
    const tables = regarding.map((name) => name.slice(REGARDING.length, -(table.name.length + 1))).join(', ');
    return {
      problem: {
        code: 'SCHEMA_MISSING',
        message: `Dataverse's ${tables} table${regarding.length > 1 ? 's do' : ' does'} not take activities, so this ${table.name} cannot be regarding its records: run crm-sync setup <connection> (it turns activities on for a connection that chooses the timeline), or have a maker turn on "Enable activities" for it`,
      },
    };
  }
  if (missing.length) {
    return { problem: { code: 'SCHEMA_MISSING', message: `Dataverse's ${table.name} table has no column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: run crm-sync setup <connection> to create the project's columns` } };
  }
  return { data };
}
