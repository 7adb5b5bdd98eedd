// Reading one sObject from a REST JSON body. As in Salesforce, the body is deserialized before any
// record is saved: an unknown field or a value of the wrong type refuses the whole request.
import { jsonParserError, noSuchColumn, RequestError } from './errors.ts';
import { findField, findObject, findRelationship, isUpsertKey, type SandboxObject } from './schema.ts';
import { coerceJson, jsonTokenKind } from './values.ts';
import { emptyInput, type RecordInput } from './writes.ts';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the parser would stand after `key`'s value: the column Salesforce reports (approximate). */
function columnOf(raw: string, key: string): number {
  const at = raw.indexOf(JSON.stringify(key));
  return at < 0 ? 1 : at + JSON.stringify(key).length + 2;
}

export function parseJsonBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new RequestError(400, 'JSON_PARSER_ERROR', `Unexpected character in the request body at [line:1, column:1]: ${(error as Error).message}`);
  }
}

export type JsonRecord = { input: RecordInput; id: unknown; typeName: string | undefined };

/**
 * The record in `body` as a save input. `id` is the body's Id (any casing); `typeName` is
 * `attributes.type` when given.
 */
export function recordFromJson(object: SandboxObject, body: unknown, raw: string): JsonRecord {
  if (!isPlainObject(body)) {
    throw new RequestError(400, 'JSON_PARSER_ERROR', `Cannot deserialize instance of ${object.name} from ${jsonTokenKind(body)} value ${JSON.stringify(body)} or request may be missing a required field at [line:1, column:1]`);
  }
  const input = emptyInput(object);
  let id: unknown;
  let typeName: string | undefined;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'attributes') {
      if (isPlainObject(value) && typeof value.type === 'string') typeName = value.type;
      continue;
    }
    const field = findField(object, key);
    if (field) {
      if (field.name === 'Id') id = value;
      const coerced = coerceJson(field, value);
      if (!coerced.ok) throw jsonParserError(field.type, jsonTokenKind(value), typeof value === 'object' ? '{' : String(value), columnOf(raw, key));
      input.values.set(field.name, coerced.value);
      continue;
    }
    const reference = findRelationship(object, key);
    if (!reference) throw noSuchColumn(object, key);
    const parent = findObject(reference.referenceTo[0]!)!;
    if (value === null) {
      input.parents.push({ field: reference, parent, keyField: parent.fields[0]!, value: null });
      continue;
    }
    if (!isPlainObject(value)) throw jsonParserError(parent.name, jsonTokenKind(value), String(value), columnOf(raw, key));
    const keys = Object.keys(value).filter((k) => k !== 'attributes');
    if (keys.length !== 1) {
      throw new RequestError(400, 'INVALID_FIELD', `The relationship ${reference.relationshipName} must name its ${parent.name} by exactly one external id field, not ${keys.length}`);
    }
    const keyField = findField(parent, keys[0]!);
    if (!keyField) throw noSuchColumn(parent, keys[0]!);
    if (!isUpsertKey(keyField)) {
      throw new RequestError(400, 'INVALID_FIELD', `Field name provided, ${keyField.name} does not match an External ID, Salesforce Id, or indexed field for ${parent.name}`);
    }
    const keyValue = value[keys[0]!];
    if (keyValue !== null && typeof keyValue === 'object') throw jsonParserError(keyField.type, jsonTokenKind(keyValue), '{', columnOf(raw, keys[0]!));
    input.parents.push({ field: reference, parent, keyField, value: keyValue === null || keyValue === undefined ? null : String(keyValue) });
  }
  return { input, id, typeName };
}
