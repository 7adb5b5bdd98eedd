// Field rules a save must pass, with Salesforce's status codes and texts: required fields, text
// lengths, restricted picklists, e-mail syntax, numeric range, reference ids and checkboxes never null.
import { errors, type RecordError } from './errors.ts';
import { canonicalId } from './ids.ts';
import { findField, findObject, isTextType, type SandboxObject } from './schema.ts';
import type { Store, StoredRecord } from './store.ts';

const blank = (value: unknown) => value === null || value === undefined || value === '';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Errors for saving `changes` onto `existing` (a create when undefined). A create needs every required
 * field; an update only fails on a required field it explicitly clears.
 */
export function validateRecord(store: Store, object: SandboxObject, existing: StoredRecord | undefined, changes: Record<string, unknown>): RecordError[] {
  const found: RecordError[] = [];
  const missing = object.fields.filter((f) => f.required && (existing ? f.name in changes && blank(changes[f.name]) : blank(changes[f.name])));
  if (missing.length > 0) found.push(errors.requiredMissing(missing));

  for (const [name, value] of Object.entries(changes)) {
    const field = findField(object, name)!;
    if (field.type === 'boolean' && (value === null || value === undefined)) found.push(errors.checkboxNull(field));
    if (blank(value)) continue;
    if (isTextType(field.type)) {
      const text = String(value);
      if (field.length > 0 && text.length > field.length) found.push(errors.stringTooLong(field, text));
      else if (field.type === 'picklist' && field.restrictedPicklist && !field.picklistValues.includes(text)) found.push(errors.badPicklist(field, text));
      else if (field.type === 'email' && !EMAIL.test(text)) found.push(errors.invalidEmail(field, text));
    } else if (field.type === 'currency' || field.type === 'double') {
      if (Math.abs(value as number) >= 10 ** (field.precision - field.scale)) found.push(errors.numberOutOfRange(field, value as number));
    } else if (field.type === 'reference') {
      // A polymorphic field (Task.WhatId) names one of several objects: the id's key prefix says which.
      const id = canonicalId(value);
      const targets = field.referenceTo.map((name) => findObject(name)).filter((object): object is NonNullable<typeof object> => Boolean(object));
      const target = (id && targets.find((object) => id.startsWith(object.keyPrefix))) || targets[0]!;
      if (!id || !id.startsWith(target.keyPrefix)) found.push(errors.malformedId(field, String(value)));
      else {
        const parent = store.table(target).get(id);
        if (!parent) found.push(errors.crossReferenceMissing());
        else if (parent.IsDeleted) found.push(errors.entityDeleted());
      }
    }
  }
  return found;
}
