// Field-level security as the integration user meets it. A custom object is visible only when it was
// there at start or an assigned permission set gives Read on it (ObjectPermissions); a custom field
// only when it was there at start, is required (Salesforce keeps no permission for those), or an
// assigned permission set gives Read on it (FieldPermissions). Read without Edit leaves it visible and
// read-only. What is hidden is left out of the view entirely, so describe, SOQL and every write path
// meet it exactly as a field or object the org does not have ("No such column").
import { integrationUserGrants } from './permissions.ts';
import { orgViewOf, type OrgView } from './org-context.ts';
import type { OrgSchema } from './org-schema.ts';
import type { SandboxObject } from './schema.ts';
import type { Store } from './store.ts';

export function integrationUserView(schema: OrgSchema, store: Store): OrgView {
  const all = schema.objects();
  const grants = integrationUserGrants(store, all);
  const visible: SandboxObject[] = [];
  const seen = (object: SandboxObject) => !object.custom || schema.grantedAtStart(object.name) || grants.objectRead.has(object.name.toLowerCase());
  const hiddenObjects = new Set(all.filter((object) => !seen(object)).map((object) => object.name));
  for (const object of all) {
    if (hiddenObjects.has(object.name)) continue;
    let changed = false;
    const fields = object.fields.flatMap((field) => {
      const key = `${object.name}.${field.name}`;
      // A lookup to an object the user cannot see is not seen either.
      if (field.referenceTo.some((target) => hiddenObjects.has(target))) {
        changed = true;
        return [];
      }
      if (!field.custom || field.required || schema.grantedAtStart(key)) return [field];
      changed = true;
      if (!grants.fieldRead.has(key.toLowerCase())) return [];
      return [grants.fieldEdit.has(key.toLowerCase()) ? field : { ...field, readOnlyByPermission: true }];
    });
    // Untouched objects keep their fields array, and with it their cached field index.
    visible.push(changed ? { ...object, fields } : object);
  }
  return orgViewOf(visible, schema);
}

/** The whole org: what the test controls and the Tooling API see. */
export const wholeOrgView = (schema: OrgSchema): OrgView => orgViewOf(schema.objects(), schema);
