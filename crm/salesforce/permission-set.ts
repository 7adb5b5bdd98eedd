// The integration user's access to what the sync reads and writes. A custom object or field created
// through the Tooling API is visible to nobody until a permission set grants it (Salesforce's
// FieldPermissions reference: "associate a FieldPermissions record with a PermissionSet that's assigned
// to a user"); describe and SOQL then treat it as absent. Setup keeps one permission set,
// Commerce_CRM_Sync, with Read/Create/Edit on the custom objects and Read (and Edit where the field is
// updateable) on every field, assigned to the integration user. Safe to run twice: what is there is
// found by SOQL and left alone, a permission that lacks Edit is given it.
import type { Connection } from 'jsforce';
import { soqlString } from './soql.ts';

export const PERMISSION_SET_NAME = 'Commerce_CRM_Sync';
const PERMISSION_SET_LABEL = 'Commerce CRM Sync';

export type Grant = { object: string; field: string; edit: boolean };
export type GrantReport = { created: string[]; present: string[]; problems: string[] };

type SaveResult = { success: boolean; id?: string; errors?: { statusCode?: string; errorCode?: string; message?: string }[] };
const saveRefusal = (result: SaveResult) => (result.errors ?? []).map((e) => `${e.statusCode ?? e.errorCode}: ${e.message}`).join('; ');
/** A refused call in Salesforce's own words. */
export const refusal = (error: unknown) => `${(error as { errorCode?: string }).errorCode ?? (error as Error).name}: ${(error as Error).message}`;

/** Creates `records` of `type` in collections of 200 (allOrNone false): one result per record. */
async function createAll(connection: Connection, type: string, records: Record<string, unknown>[]): Promise<SaveResult[]> {
  const results: SaveResult[] = [];
  for (let at = 0; at < records.length; at += 200) {
    results.push(...((await connection.sobject(type).create(records.slice(at, at + 200), { allOrNone: false })) as SaveResult[]));
  }
  return results;
}

async function findOrCreateSet(connection: Connection, report: GrantReport): Promise<string> {
  const found = await connection.query<{ Id: string }>(`SELECT Id FROM PermissionSet WHERE Name = ${soqlString(PERMISSION_SET_NAME)}`);
  if (found.records[0]) {
    report.present.push(`permission set ${PERMISSION_SET_NAME}`);
    return found.records[0].Id;
  }
  const [made] = await createAll(connection, 'PermissionSet', [
    { Name: PERMISSION_SET_NAME, Label: PERMISSION_SET_LABEL, Description: 'Read and edit what commerce-crm-sync writes (made by crm-sync setup)' },
  ]);
  if (!made?.success || !made.id) throw new Error(`permission set ${PERMISSION_SET_NAME} could not be created: ${saveRefusal(made ?? { success: false })}`);
  report.created.push(`permission set ${PERMISSION_SET_NAME}`);
  return made.id;
}

/**
 * Grants `objects` (custom objects: Read, Create, Edit) and `fields` to the user `userId` through the
 * permission set, creating what is missing. A refusal (no "Manage Profiles and Permission Sets" or
 * "Assign Permission Sets") is a problem in Salesforce's words; what could be done is done.
 */
export async function grantAccess(connection: Connection, userId: string, objects: string[], fields: Grant[]): Promise<GrantReport> {
  const report: GrantReport = { created: [], present: [], problems: [] };
  let setId: string;
  try {
    setId = await findOrCreateSet(connection, report);
  } catch (error) {
    report.problems.push(error instanceof Error && !(error as { errorCode?: string }).errorCode ? error.message : `permission set ${PERMISSION_SET_NAME} could not be read or created: ${refusal(error)}`);
    return report;
  }
  const parent = soqlString(setId);

  try {
    const have = new Set((await connection.query<{ SobjectType: string }>(`SELECT SobjectType FROM ObjectPermissions WHERE ParentId = ${parent}`, { autoFetch: true } as never)).records.map((r) => r.SobjectType.toLowerCase()));
    const missing = objects.filter((object) => !have.has(object.toLowerCase()));
    for (const object of objects.filter((o) => have.has(o.toLowerCase()))) report.present.push(`${PERMISSION_SET_NAME}: ${object} read, create, edit`);
    const results = await createAll(connection, 'ObjectPermissions', missing.map((object) => ({ ParentId: setId, SobjectType: object, PermissionsRead: true, PermissionsCreate: true, PermissionsEdit: true })));
    results.forEach((result, i) => {
      if (result.success) report.created.push(`${PERMISSION_SET_NAME}: ${missing[i]} read, create, edit`);
      else report.problems.push(`${missing[i]} could not be granted: ${saveRefusal(result)}`);
    });
  } catch (error) {
    report.problems.push(`object permissions could not be granted: ${refusal(error)}`);
  }

  try {
    const rows = (await connection.query<{ Id: string; Field: string; PermissionsEdit: boolean }>(`SELECT Id, Field, PermissionsEdit FROM FieldPermissions WHERE ParentId = ${parent}`, { autoFetch: true } as never)).records;
    const byField = new Map(rows.map((row) => [row.Field.toLowerCase(), row]));
    const missing: Grant[] = [];
    const needEdit: { grant: Grant; id: string }[] = [];
    for (const grant of fields) {
      const row = byField.get(`${grant.object}.${grant.field}`.toLowerCase());
      if (!row) missing.push(grant);
      else if (grant.edit && !row.PermissionsEdit) needEdit.push({ grant, id: row.Id });
      else report.present.push(`${PERMISSION_SET_NAME}: ${grant.object}.${grant.field}`);
    }
    const describe = (grant: Grant) => `${PERMISSION_SET_NAME}: ${grant.object}.${grant.field} (${grant.edit ? 'read, edit' : 'read'})`;
    const created = await createAll(
      connection,
      'FieldPermissions',
      missing.map((grant) => ({ ParentId: setId, SobjectType: grant.object, Field: `${grant.object}.${grant.field}`, PermissionsRead: true, PermissionsEdit: grant.edit })),
    );
    created.forEach((result, i) => {
      if (result.success) report.created.push(describe(missing[i]!));
      else report.problems.push(`${missing[i]!.object}.${missing[i]!.field} could not be granted: ${saveRefusal(result)}`);
    });
    for (const { grant, id } of needEdit) {
      const result = (await connection.sobject('FieldPermissions').update({ Id: id, PermissionsEdit: true })) as SaveResult;
      if (result.success) report.created.push(`${describe(grant)}, edit added`);
      else report.problems.push(`${grant.object}.${grant.field} could not be given edit access: ${saveRefusal(result)}`);
    }
  } catch (error) {
    report.problems.push(`field permissions could not be granted: ${refusal(error)}`);
  }

  try {
    const assigned = await connection.query(`SELECT Id FROM PermissionSetAssignment WHERE PermissionSetId = ${parent} AND AssigneeId = ${soqlString(userId)}`);
    if (assigned.records.length > 0) report.present.push(`${PERMISSION_SET_NAME} assigned to the integration user ${userId}`);
    else {
      const [result] = await createAll(connection, 'PermissionSetAssignment', [{ PermissionSetId: setId, AssigneeId: userId }]);
      if (result?.success) report.created.push(`${PERMISSION_SET_NAME} assigned to the integration user ${userId}`);
      else report.problems.push(`${PERMISSION_SET_NAME} could not be assigned to the integration user ${userId}: ${saveRefusal(result ?? { success: false })}`);
    }
  } catch (error) {
    report.problems.push(`${PERMISSION_SET_NAME} could not be assigned to the integration user ${userId}: ${refusal(error)}`);
  }
  return report;
}
