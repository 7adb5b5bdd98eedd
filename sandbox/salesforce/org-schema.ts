// One org's schema: the sandbox's model (schema.ts) copied at start, so the Tooling API can add any
// custom object or field to this org alone. Started with `customMetadata: 'missing'`, the org lacks the
// project's custom objects and fields until the Tooling API creates them. What exists at start in the
// 'deployed' mode counts as already granted to the integration user (an org whose admin did so);
// everything created afterwards is granted only by a permission set (field-access.ts).
import type { CustomMetadata } from './deployments.ts';
import { PERMISSION_OBJECTS } from './permissions.ts';
import { CATALOGUE_OBJECTS, SALESFORCE_SANDBOX_SCHEMA, type SandboxField, type SandboxObject } from './schema.ts';
import { withCurrencyFields, type MultiCurrency } from './currencies.ts';

/** `multiCurrency`: a multi-currency org's settings (currencies.ts); undefined: single-currency. */
export function createOrgSchema(customMetadata: CustomMetadata = 'deployed', multiCurrency?: Required<MultiCurrency>) {
  let objects: SandboxObject[] = [];
  /** "Object" and "Object.Field" granted before any permission set: the custom metadata present at start. */
  let grantedAtStart = new Set<string>();
  let version = 0;
  /** System permissions the integration user's profile lacks ("Assign Permission Sets" ...): a test control. */
  let userLacks = new Set<string>();

  const initial = () => {
    const model = [...Object.values(SALESFORCE_SANDBOX_SCHEMA), ...PERMISSION_OBJECTS, ...CATALOGUE_OBJECTS];
    objects =
      customMetadata === 'missing'
        ? model.filter((o) => !o.custom).map((o) => ({ ...o, fields: o.fields.filter((f) => !f.custom) }))
        : model.map((o) => ({ ...o, fields: [...o.fields] }));
    // A polymorphic reference (Task.WhatId) names only objects the org has: custom objects join it when
    // they are made with Allow Activities (allowActivities below).
    const names = new Set(objects.map((o) => o.name));
    objects = objects.map((o) => (o.fields.some((f) => f.referenceTo.length > 1) ? { ...o, fields: o.fields.map((f) => (f.referenceTo.length > 1 ? { ...f, referenceTo: f.referenceTo.filter((target) => names.has(target)) } : f)) } : o));
    objects = withCurrencyFields(objects, multiCurrency);
    userLacks = new Set();
    grantedAtStart = new Set(objects.flatMap((o) => (o.custom ? [o.name] : [])).concat(objects.flatMap((o) => o.fields.filter((f) => f.custom).map((f) => `${o.name}.${f.name}`))));
    version++;
  };
  initial();

  const find = (name: string) => objects.find((o) => o.name.toLowerCase() === name.toLowerCase());
  return {
    objects: (): readonly SandboxObject[] => objects,
    find,
    findField: (object: SandboxObject, name: string) => object.fields.find((f) => f.name.toLowerCase() === name.toLowerCase()),
    grantedAtStart: (name: string) => grantedAtStart.has(name),
    userLacks: (permission: string) => userLacks.has(permission),
    setUserLacks(permissions: string[]) {
      userLacks = new Set(permissions);
    },
    /** Changes whenever an object or field is added, so views built from the schema know they are stale. */
    version: () => version,
    addObject(object: SandboxObject) {
      // A new custom object of a multi-currency org has CurrencyIsoCode too.
      objects = [...objects, ...withCurrencyFields([object], multiCurrency)];
      version++;
    },
    /** The object gets a new fields array (its views and field indexes are rebuilt), audit fields kept last. */
    addField(objectName: string, field: SandboxField) {
      objects = objects.map((o) => {
        if (o.name !== objectName) return o;
        const audit = o.fields.filter((f) => ['CreatedDate', 'LastModifiedDate', 'SystemModstamp'].includes(f.name));
        return { ...o, fields: [...o.fields.filter((f) => !audit.includes(f)), field, ...audit] };
      });
      version++;
    },
    /** A custom object made with Allow Activities (enableActivities): activities may name it by WhatId. */
    allowActivities(objectName: string) {
      objects = objects.map((o) => (o.name !== 'Task' ? o : { ...o, fields: o.fields.map((f) => (f.name === 'WhatId' && !f.referenceTo.includes(objectName) ? { ...f, referenceTo: [...f.referenceTo, objectName] } : f)) }));
      version++;
    },
    reset: initial,
  };
}

export type OrgSchema = ReturnType<typeof createOrgSchema>;
