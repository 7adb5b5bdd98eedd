// Tells a field the integration user is not granted from one the org does not have. Salesforce hides
// both alike: absent from describe, "No such column" in SOQL and writes (field-level security). Setup's
// metadata, read through the Tooling API (FieldDefinition, EntityDefinition; the user needs View Setup),
// still lists a field or object that exists, granted or not.
import type { Connection } from 'jsforce';
import type { AccessProblem } from '../connector.ts';
import { soqlIdentifier } from './soql.ts';

export type Wanted = { object: string; fields: string[] };

const quoted = (names: string[]) => names.map((name) => `'${soqlIdentifier(name)}'`).join(', ');

/** Object names (as given) that exist in the org, visible to the user or not. */
export async function existingObjects(connection: Connection, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const answer = await connection.tooling.query<{ QualifiedApiName: string }>(`SELECT QualifiedApiName FROM EntityDefinition WHERE QualifiedApiName IN (${quoted(names)})`);
  const found = new Set(answer.records.map((record) => record.QualifiedApiName.toLowerCase()));
  return new Set(names.filter((name) => found.has(name.toLowerCase())));
}

/** Field names of `object` that exist in the org, visible to the user or not, in lower case. */
export async function existingFields(connection: Connection, object: string): Promise<Set<string>> {
  const answer = await connection.tooling.query<{ QualifiedApiName: string }>(`SELECT QualifiedApiName FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = '${soqlIdentifier(object)}'`);
  return new Set(answer.records.map((record) => record.QualifiedApiName.toLowerCase()));
}

const isNotFound = (error: unknown) => (error as { errorCode?: string }).errorCode === 'NOT_FOUND' || (error as { name?: string }).name === 'NOT_FOUND';

/**
 * One problem per wanted object or field the integration user cannot see: not granted (it exists) or
 * missing, told apart by the Tooling API, each with its sentence. Empty when the user sees all of them.
 */
export async function fieldAccessProblems(connection: Connection, wanted: Wanted[]): Promise<AccessProblem[]> {
  const problems: AccessProblem[] = [];
  const hiddenObjects: string[] = [];
  const visible = new Map<string, Set<string>>();
  for (const { object } of wanted) {
    try {
      visible.set(object, new Set((await connection.sobject(soqlIdentifier(object)).describe()).fields.map((field) => field.name.toLowerCase())));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      hiddenObjects.push(object);
    }
  }
  const existing = await existingObjects(connection, hiddenObjects);
  for (const object of hiddenObjects) {
    problems.push(
      existing.has(object)
        ? { object, kind: 'not-granted', message: `${object} exists but the integration user is not granted it (no permission set gives it Read)` }
        : { object, kind: 'missing', message: `${object} does not exist` },
    );
  }
  for (const { object, fields } of wanted) {
    const seen = visible.get(object);
    if (!seen) continue;
    const unseen = fields.filter((field) => !seen.has(field.toLowerCase()));
    if (unseen.length === 0) continue;
    const inOrg = await existingFields(connection, object);
    for (const field of unseen) {
      problems.push(
        inOrg.has(field.toLowerCase())
          ? { object, field, kind: 'not-granted', message: `${object}.${field} exists but the integration user is not granted it (field-level security)` }
          : { object, field, kind: 'missing', message: `${object}.${field} does not exist` },
      );
    }
  }
  return problems;
}

/** What doctor tells a person to do about one of fieldAccessProblems' problems. */
export function fieldAccessFix(connectionName: string, problem: AccessProblem): string {
  return problem.kind === 'missing'
    ? `crm-sync setup ${connectionName} creates it and grants it to the integration user`
    : `crm-sync setup ${connectionName} grants it (permission set Commerce_CRM_Sync), or add it to a permission set assigned to the integration user`;
}
