// OData literals for Dataverse, typed by the column they compare with: every value that goes into a
// $filter or a key segment passes through here, so no text can change the meaning of a query.
// Strings are quoted with single quotes doubled; GUIDs, numbers, booleans and date-times are bare and
// checked; an alternate key value is escaped as Dataverse requires (dynamics-web-api does not encode it).

/** How a column's values are written in a filter: by the Dataverse attribute type. */
export type LiteralKind = 'string' | 'guid' | 'number' | 'boolean' | 'datetime' | 'date';

const GUID = /^[{(]?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})[)}]?$/i;

export class ODataValueError extends Error {
  override name = 'ODataValueError';
}

/** A GUID as Dataverse writes it (lowercase, hyphenated, no braces), or undefined when it is not one. */
export function asGuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = GUID.exec(value.trim());
  return match ? match[1]!.toLowerCase() : undefined;
}

/** A quoted OData string: single quotes doubled. */
export function quoted(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The literal for `value` compared with a column of this kind; a value that is not of the kind is refused. */
export function literal(value: unknown, kind: LiteralKind): string {
  if (value === null) return 'null';
  switch (kind) {
    case 'string':
      return quoted(String(value));
    case 'guid': {
      const guid = asGuid(value);
      if (!guid) throw new ODataValueError(`${JSON.stringify(value)} is not a GUID`);
      return guid;
    }
    case 'number': {
      const number = typeof value === 'number' ? value : Number(value);
      if (typeof value === 'boolean' || value === '' || !Number.isFinite(number)) throw new ODataValueError(`${JSON.stringify(value)} is not a number`);
      return String(number);
    }
    case 'boolean':
      if (value === true || value === 'true') return 'true';
      if (value === false || value === 'false') return 'false';
      throw new ODataValueError(`${JSON.stringify(value)} is not true or false`);
    case 'datetime': {
      const date = value instanceof Date ? value : new Date(String(value));
      if (Number.isNaN(date.getTime())) throw new ODataValueError(`${JSON.stringify(value)} is not a date-time`);
      return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'date': {
      const text = String(value instanceof Date ? value.toISOString() : value).slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) throw new ODataValueError(`${JSON.stringify(value)} is not a date`);
      return text;
    }
  }
}

/** `field eq v1 or field eq v2 ...` for a list of values of one kind (an empty list matches nothing). */
export function anyOf(field: string, values: unknown[], kind: LiteralKind): string {
  if (values.length === 0) throw new ODataValueError(`no values to compare ${field} with`);
  return values.map((value) => `${field} eq ${literal(value, kind)}`).join(' or ');
}

/**
 * Characters Dataverse cannot take in an alternate key value sent in a URL, even encoded: "If the data
 * within a column that is used in an alternate key will contain one of the following characters /,<,>,
 * *,%,&,:,\\,?,+,# then GET or PATCH actions will not work" (Microsoft, "Define alternate keys",
 * https://learn.microsoft.com/power-apps/maker/data-platform/define-alternate-keys-portal). Such a
 * record can only be written by its GUID, which a record never written has not got.
 */
const UNUSABLE_IN_KEY = /[/<>*%&:\\?+#]/;

/**
 * The key segment of a record's URL: `(guid)` or `(column='value')`, the value's quotes doubled and
 * any character a URL path cannot carry percent-encoded (the client puts the segment in the path as it is).
 */
export function keySegment(key: { guid: string } | { column: string; value: string }): string {
  if ('guid' in key) {
    const guid = asGuid(key.guid);
    if (!guid) throw new ODataValueError(`${JSON.stringify(key.guid)} is not a GUID`);
    return guid;
  }
  if (key.value === '') throw new ODataValueError(`the alternate key ${key.column} is empty`);
  const unusable = UNUSABLE_IN_KEY.exec(key.value);
  if (unusable) {
    throw new ODataValueError(
      `the value ${JSON.stringify(key.value)} of the alternate key ${key.column} holds "${unusable[0]}", which Dataverse cannot take in a key sent in a URL (its GET and PATCH by key do not work with / # < > * % & : \\ ? +): the record is skipped and waits here. The key is made from the commerce record's own ids, which cannot be changed, so nothing in revenue ops' hands makes it writable`,
    );
  }
  // The client splits a key on commas and turns double quotes into single ones: both are encoded too.
  const escaped = quoted(key.value).replace(/[^A-Za-z0-9\-._~!$'()*;=@]/g, (char) => encodeURIComponent(char));
  return `${key.column}=${escaped}`;
}
