// Permission sets as Salesforce keeps them: PermissionSet, its ObjectPermissions and FieldPermissions,
// and PermissionSetAssignment giving it to a user; sObjects written and queried through the REST API
// like any other. The rules a save of them must pass beyond the field rules (validation.ts) are here:
// FieldPermissions.Field and SobjectType are restricted picklists of what the org has (a required field
// takes no field permission), edit needs read, and one row per permission set and field, object or user.
import type { RecordError } from './errors.ts';
import { USER_ID } from './ids.ts';
import { currentOrgView } from './org-context.ts';
import { addStandardObjects, field, systemFields, type SandboxObject } from './schema.ts';
import type { Store, StoredRecord } from './store.ts';

const checkbox = (name: string, label: string) => field(name, label, 'boolean', { defaultValue: false });
const parent = () => field('ParentId', 'Parent ID', 'reference', { length: 18, referenceTo: ['PermissionSet'], relationshipName: 'Parent', required: true, createOnly: true });
// A restricted picklist of the org's objects in Salesforce; a text here, checked on save (permissionRecordErrors).
const sobjectType = () => field('SobjectType', 'SObject Type Name', 'string', { length: 40, required: true, createOnly: true });

/** The standard objects behind permission sets, and the org's one user (the integration user) they are assigned to. */
export const PERMISSION_OBJECTS: SandboxObject[] = [
  {
    name: 'User',
    label: 'User',
    labelPlural: 'Users',
    keyPrefix: '005',
    custom: false,
    // Email is required in Salesforce; optional here so a test may make a user with only a name. Alerts
    // to a record's owner read it (alerts/owner-email.ts).
    fields: systemFields('User ID', [field('Username', 'Username', 'string', { length: 80, required: true, idLookup: true }), field('Name', 'Full Name', 'string', { length: 121 }), field('Email', 'Email', 'email', { length: 128 })]),
  },
  {
    name: 'PermissionSet',
    label: 'Permission Set',
    labelPlural: 'Permission Sets',
    keyPrefix: '0PS',
    custom: false,
    fields: systemFields('Permission Set ID', [
      field('Name', 'Name', 'string', { length: 80, required: true, unique: true, idLookup: true }),
      field('Label', 'Label', 'string', { length: 80, required: true }),
      field('Description', 'Description', 'textarea', { length: 255 }),
      field('IsOwnedByProfile', 'Is Owned By Profile', 'boolean', { system: true, defaultValue: false }),
    ]),
  },
  {
    name: 'ObjectPermissions',
    label: 'Object Permissions',
    labelPlural: 'Object Permissions',
    keyPrefix: '110',
    custom: false,
    fields: systemFields('ObjectPermissions ID', [
      parent(),
      sobjectType(),
      checkbox('PermissionsRead', 'Read Records'),
      checkbox('PermissionsCreate', 'Create Records'),
      checkbox('PermissionsEdit', 'Edit Records'),
      checkbox('PermissionsDelete', 'Delete Records'),
      checkbox('PermissionsViewAllRecords', 'Read All Records'),
      checkbox('PermissionsModifyAllRecords', 'Edit All Records'),
    ]),
  },
  {
    name: 'FieldPermissions',
    label: 'Field Permissions',
    labelPlural: 'Field Permissions',
    keyPrefix: '01k',
    custom: false,
    fields: systemFields('Field Permissions ID', [
      parent(),
      sobjectType(),
      field('Field', 'Field Name', 'string', { length: 255, required: true, createOnly: true }),
      checkbox('PermissionsRead', 'Read Field'),
      checkbox('PermissionsEdit', 'Edit Field'),
    ]),
  },
  {
    name: 'PermissionSetAssignment',
    label: 'Permission Set Assignment',
    labelPlural: 'Permission Set Assignments',
    keyPrefix: '0Pa',
    custom: false,
    fields: systemFields('Permission Set Assignment ID', [
      field('AssigneeId', 'Assignee ID', 'reference', { length: 18, referenceTo: ['User'], relationshipName: 'Assignee', required: true, createOnly: true }),
      field('PermissionSetId', 'Permission Set ID', 'reference', { length: 18, referenceTo: ['PermissionSet'], relationshipName: 'PermissionSet', required: true, createOnly: true }),
    ]),
  },
];

addStandardObjects(PERMISSION_OBJECTS);

/** The integration user's record, there from the org's start (PermissionSetAssignment.AssigneeId names it). */
export function seedIntegrationUser(store: Store) {
  const user = PERMISSION_OBJECTS[0]!;
  const table = store.table(user);
  if (table.get(USER_ID)) return;
  const stamp = new Date(0).toISOString().replace('Z', '+0000');
  table.insert({ Id: USER_ID, IsDeleted: false, Username: 'integration@sandbox.example', Name: 'Integration User', Email: 'integration@sandbox.example', CreatedDate: stamp, LastModifiedDate: stamp, SystemModstamp: stamp });
}

const restrictedPicklist = (label: string, name: string, value: string): RecordError => ({
  statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
  message: `${label}: bad value for restricted picklist field: ${value}`,
  fields: [name],
});
// Salesforce names neither the field nor the record for these (reported: "duplicate value found: <unknown>").
const duplicateRow = (): RecordError => ({ statusCode: 'DUPLICATE_VALUE', message: 'duplicate value found: <unknown> duplicates value on record with id: <unknown>', fields: [] });
const dependsOnRead = (permission: string): RecordError => ({
  statusCode: 'FIELD_INTEGRITY_EXCEPTION',
  message: `Permission ${permission} depends on permission(s): Read`,
  fields: [`Permissions${permission}`],
});

// Who may write what: permission sets and their rows need "Manage Profiles and Permission Sets",
// assignments "Assign Permission Sets" (PermissionSetAssignment reference, Special Access Rules).
const REQUIRED_USER_PERMISSION: Record<string, string> = {
  PermissionSet: 'Manage Profiles and Permission Sets',
  ObjectPermissions: 'Manage Profiles and Permission Sets',
  FieldPermissions: 'Manage Profiles and Permission Sets',
  PermissionSetAssignment: 'Assign Permission Sets',
};
export const USER_PERMISSIONS = [...new Set(Object.values(REQUIRED_USER_PERMISSION))];
const insufficientAccess = (): RecordError => ({ statusCode: 'INSUFFICIENT_ACCESS_OR_READONLY', message: 'insufficient access rights on object id', fields: [] });

const live = (store: Store, object: SandboxObject) => [...store.table(object).all()].filter((record) => !record.IsDeleted);
const same = (a: unknown, b: unknown) => String(a ?? '').toLowerCase() === String(b ?? '').toLowerCase();

/**
 * Errors for saving `changes` onto `existing` (a create when undefined) of a permission object; none for
 * any other object. `claimed` holds the rows earlier records of the same call took.
 */
export function permissionRecordErrors(store: Store, object: SandboxObject, existing: StoredRecord | undefined, changes: Record<string, unknown>, claimed: Set<string>): RecordError[] {
  // The org's whole schema, not what the integration user sees: a permission can be given on a hidden field.
  const org = currentOrgView()?.schema;
  const needs = REQUIRED_USER_PERMISSION[object.name];
  if (needs && org?.userLacks(needs)) return [insufficientAccess()];
  if (!['ObjectPermissions', 'FieldPermissions', 'PermissionSetAssignment'].includes(object.name)) return [];
  const record = { ...existing, ...changes };
  const found: RecordError[] = [];
  let rowKey: string;
  if (object.name === 'PermissionSetAssignment') {
    rowKey = `${object.name}:${String(record.AssigneeId)}:${String(record.PermissionSetId)}`.toLowerCase();
  } else {
    const type = String(record.SobjectType ?? '');
    const target = org?.find(type);
    if (!target) found.push(restrictedPicklist('SObject Type Name', 'SobjectType', type));
    if (object.name === 'FieldPermissions') {
      const name = String(record.Field ?? '');
      const [prefix, fieldName] = name.split('.');
      const targetField = target && same(prefix, target.name) && fieldName ? org!.findField(target, fieldName) : undefined;
      // Required fields are always readable and editable: Salesforce keeps no permission for them.
      if (target && (!targetField || targetField.required || targetField.system)) {
        found.push(restrictedPicklist('Field Name', 'Field', name));
      }
      // A formula field is read-only for everyone: a permission set grants it Read, never Edit.
      if (targetField?.formula !== undefined && record.PermissionsEdit === true) {
        found.push({ statusCode: 'FIELD_INTEGRITY_EXCEPTION', message: `${name} is a calculated field: Edit cannot be granted on it, only Read`, fields: ['PermissionsEdit'] });
      }
    } else {
      for (const permission of ['Create', 'Edit', 'Delete', 'ViewAllRecords', 'ModifyAllRecords']) {
        if (record[`Permissions${permission}`] === true && record.PermissionsRead !== true) found.push(dependsOnRead(permission));
      }
    }
    if (object.name === 'FieldPermissions' && record.PermissionsEdit === true && record.PermissionsRead !== true) found.push(dependsOnRead('Edit'));
    rowKey = `${object.name}:${String(record.ParentId)}:${String(object.name === 'FieldPermissions' ? record.Field : record.SobjectType)}`.toLowerCase();
  }
  if (found.length > 0) return found;
  const taken = live(store, object).some((other) =>
    other.Id !== existing?.Id &&
    (object.name === 'PermissionSetAssignment'
      ? same(other.AssigneeId, record.AssigneeId) && same(other.PermissionSetId, record.PermissionSetId)
      : same(other.ParentId, record.ParentId) && same(object.name === 'FieldPermissions' ? other.Field : other.SobjectType, object.name === 'FieldPermissions' ? record.Field : record.SobjectType)),
  );
  if (taken || claimed.has(rowKey)) return [duplicateRow()];
  claimed.add(rowKey);
  return [];
}

/** What the integration user's assigned permission sets grant: object names, and "Object.Field" read and edit, all in lower case. */
export function integrationUserGrants(store: Store, objects: readonly SandboxObject[]) {
  const byName = (name: string) => objects.find((o) => o.name === name)!;
  const assigned = new Set(live(store, byName('PermissionSetAssignment')).filter((a) => a.AssigneeId === USER_ID).map((a) => String(a.PermissionSetId)));
  const objectRead = new Set<string>();
  for (const row of live(store, byName('ObjectPermissions'))) if (assigned.has(String(row.ParentId)) && row.PermissionsRead === true) objectRead.add(String(row.SobjectType).toLowerCase());
  const fieldRead = new Set<string>();
  const fieldEdit = new Set<string>();
  for (const row of live(store, byName('FieldPermissions'))) {
    if (!assigned.has(String(row.ParentId))) continue;
    if (row.PermissionsRead === true) fieldRead.add(String(row.Field).toLowerCase());
    if (row.PermissionsEdit === true) fieldEdit.add(String(row.Field).toLowerCase());
  }
  return { objectRead, fieldRead, fieldEdit };
}
