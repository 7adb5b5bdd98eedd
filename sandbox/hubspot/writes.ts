// Creating and updating records: every property checked against its definition (unknown, read-only
// or badly typed values refuse the input with HubSpot's VALIDATION_ERROR), unique values enforced
// (409 CONFLICT; a contact's email refuses its whole batch), and the system properties HubSpot
// maintains kept up to date.
import { HubSpotError, validation } from './errors.ts';
import type { HubRecord, Store } from './store.ts';
import { isIdentity, OWNER_PROPERTY, REQUIRED_ON_CREATE } from './schema.ts';
import { normalize } from './values.ts';
import { catalogueValueProblem, deriveLineItem, withProductValues } from './catalogue.ts';

type Invalid = { isValid: false; message: string; error: string; name: string };

/** The checked, normalized property values of one input, or a 400 naming every bad one. */
export function checkProperties(store: Store, type: string, input: unknown): Record<string, string> {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw validation('properties must be an object of property names to values');
  const invalid: Invalid[] = [];
  const values: Record<string, string> = {};
  for (const [name, raw] of Object.entries(input as Record<string, unknown>)) {
    const property = store.property(type, name);
    if (!property) {
      invalid.push({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name });
      continue;
    }
    if (property.readOnlyValue) {
      invalid.push({ isValid: false, message: `"${name}" is a read only property; its value cannot be set.`, error: 'READ_ONLY_VALUE', name });
      continue;
    }
    const checked = normalize(property, raw);
    // An owner is one of the portal's owner ids (an owner's userId is refused), in the sandbox's words [inf].
    if (name === OWNER_PROPERTY && !('error' in checked) && checked.value !== '' && !store.owners().some((owner) => owner.id === checked.value)) {
      invalid.push({ isValid: false, message: `${checked.value} is not a valid owner id`, error: 'INVALID_OWNER_ID', name });
      continue;
    }
    if ('error' in checked) {
      invalid.push({ isValid: false, message: checked.error, error: 'INVALID_' + property.type.toUpperCase(), name });
      continue;
    }
    // Products and line items (issue #28): a term, a line item's price and the product it is made from.
    const problem = catalogueValueProblem(store, type, name, checked.value);
    if (problem) invalid.push(problem);
    else values[name] = checked.value;
  }
  if (invalid.length > 0) throw validation(`Property values were not valid: ${JSON.stringify(invalid)}`);
  return values;
}

/** Emails are compared without case, as HubSpot keeps them; other values exactly. */
const sameValue = (type: string, name: string, stored: string | undefined, value: string) =>
  stored !== undefined && (isIdentity(type, name) ? stored.toLowerCase() === value.toLowerCase() : stored === value);

/** The records holding `value` in `name` (through the store's index), compared as sameValue compares. */
const withValue = (store: Store, type: string, name: string, value: string) =>
  store.recordsWithValue(type, name, value, isIdentity(type, name) ? (v) => v.toLowerCase() : undefined).filter((r) => sameValue(type, name, r.properties[name], value));

/** Another live record already holding one of `values`' unique values: 409 naming it. */
export function checkUnique(store: Store, type: string, values: Record<string, string>, selfId?: string) {
  for (const [name, value] of Object.entries(values)) {
    const identity = isIdentity(type, name);
    if (value === '' || !(identity || store.property(type, name)?.hasUniqueValue)) continue;
    const other = withValue(store, type, name, value).find((r) => !r.archived && r.id !== selfId);
    if (other && identity) {
      throw new HubSpotError(409, 'CONFLICT', `Contact already exists. Existing ID: ${other.id}`, { context: { [name]: [value], id: [other.id] } });
    }
    if (other) {
      throw new HubSpotError(409, 'CONFLICT', `A ${type} record with ${name} "${value}" already exists (id ${other.id}): ${name} must be unique.`, {
        context: { [name]: [value], id: [other.id] },
      });
    }
  }
}

/**
 * A batch that would give a contact an email another contact holds is refused whole, before anything
 * is written: one top-level 409 CONFLICT "Contact already exists. Existing ID: N" naming the first
 * holder met, nothing about the other inputs (HubSpot/hubspot-api-python#51 for batch create;
 * airbytehq/airbyte#76340, quoting HubSpot's community, for batch upsert). `selfId` is the record an
 * input writes to, when it exists (an update, or an upsert that finds its record): its own email is no
 * conflict. Two inputs of one batch giving one email to two contacts are refused the same way.
 */
export function checkBatchIdentities(store: Store, type: string, planned: { values: Record<string, string>; selfId?: string }[]) {
  const claimed = new Map<string, string | undefined>();
  planned.forEach(({ values, selfId }, index) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === '' || !isIdentity(type, name)) continue;
      const other = withValue(store, type, name, value).find((r) => !r.archived && r.id !== selfId);
      if (other) throw new HubSpotError(409, 'CONFLICT', `Contact already exists. Existing ID: ${other.id}`);
      const key = `${name}\u0000${value.toLowerCase()}`;
      if (claimed.has(key) && (selfId === undefined || claimed.get(key) !== selfId)) {
        throw new HubSpotError(409, 'CONFLICT', `Contact already exists: inputs[${index}] gives ${name} ${value} to a second contact of this batch`);
      }
      claimed.set(key, selfId);
    }
  });
}

const withoutEmpty = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));

function stamp(type: string, properties: Record<string, string>, at: string) {
  properties.hs_lastmodifieddate = at;
  if (type === 'contacts') properties.lastmodifieddate = at;
}

/** A create missing a property its object requires (an activity's hs_timestamp): 400 naming it. */
export function checkRequired(type: string, values: Record<string, string>) {
  const missing = (REQUIRED_ON_CREATE[type] ?? []).filter((name) => values[name] === undefined || values[name] === '');
  if (missing.length === 0) return;
  const invalid = missing.map((name) => ({ isValid: false, message: `${name} is required to create a ${type.replace(/s$/, '')}`, error: 'REQUIRED_PROPERTY', name }));
  throw validation(`Property values were not valid: ${JSON.stringify(invalid)}`);
}

export function createRecord(store: Store, type: string, given: Record<string, string>, now: Date): HubRecord {
  // A line item made from a product is an instance of it: it takes what it does not give (catalogue.ts).
  const values = type === 'line_items' ? withProductValues(store, given) : given;
  checkRequired(type, values);
  checkUnique(store, type, values);
  const id = store.newId();
  const at = now.toISOString();
  const properties: Record<string, string> = { ...withoutEmpty(values), hs_object_id: id, createdate: at };
  if (type === 'deals' && properties.pipeline === undefined && properties.dealstage !== undefined) properties.pipeline = 'default';
  deriveLineItem(type, properties);
  stamp(type, properties, at);
  const record: HubRecord = { id, properties, createdAt: at, updatedAt: at, archived: false };
  store.putRecord(type, record);
  return record;
}

export function updateRecord(store: Store, type: string, existing: HubRecord, values: Record<string, string>, now: Date): HubRecord {
  checkUnique(store, type, values, existing.id);
  const at = now.toISOString();
  const properties = { ...existing.properties };
  for (const [name, value] of Object.entries(values)) {
    if (value === '') delete properties[name];
    else properties[name] = value;
  }
  deriveLineItem(type, properties);
  stamp(type, properties, at);
  const record: HubRecord = { ...existing, properties, updatedAt: at };
  store.putRecord(type, record);
  return record;
}

export function archiveRecord(store: Store, type: string, existing: HubRecord, now: Date) {
  const at = now.toISOString();
  store.putRecord(type, { ...existing, archived: true, archivedAt: at, updatedAt: at });
}

/** A live record by HubSpot id, or by a unique-value property when `idProperty` names one. */
export function findRecord(store: Store, type: string, id: string, idProperty?: string): HubRecord | undefined {
  if (!idProperty || idProperty === 'hs_object_id') {
    const record = store.record(type, id);
    return record && !record.archived ? record : undefined;
  }
  return withValue(store, type, idProperty, id).find((r) => !r.archived);
}

/** A record as the API shows it: the requested properties (default ones when none are asked for). */
export function present(type: string, record: HubRecord, requested: string[] | undefined) {
  const names = requested && requested.length > 0 ? requested : defaultShown(type);
  const properties: Record<string, string> = {};
  // A requested property without a value is left out: the spec types values as text (the live API sends null).
  for (const name of new Set([...names, 'hs_object_id', 'createdate', 'hs_lastmodifieddate'])) {
    if (record.properties[name] !== undefined) properties[name] = record.properties[name];
  }
  const shown: Record<string, unknown> = { id: record.id, properties, createdAt: record.createdAt, updatedAt: record.updatedAt, archived: record.archived };
  if (record.archivedAt) shown.archivedAt = record.archivedAt;
  return shown;
}

function defaultShown(type: string): string[] {
  switch (type) {
    case 'contacts':
      return ['email', 'firstname', 'lastname', 'lastmodifieddate'];
    case 'companies':
      return ['name', 'domain'];
    case 'deals':
      return ['dealname', 'amount', 'closedate', 'dealstage', 'pipeline'];
    default:
      return [];
  }
}
