// Resource paths under /api/data/v9.2/: `{set}`, `{set}({guid})`, `{set}(key='value',k2=1)` and a
// `/rest` after them. Key values are read as the client sends them (dynamics-web-api does not
// url-encode them): quotes doubled inside quoted values; the characters Dataverse documents as
// unusable in URL key values (/ < > * % & : \ ? +) are refused.
import { DataverseError, keyDoesNotExist, odataError, doesNotExist } from './errors.ts';
import { GUID_RE } from './guid.ts';
import type { EntityDef } from './schema.ts';
import type { Row, Store } from './store.ts';

export type KeyValue = string | number | boolean | null;
export type KeySpec = { guid: string } | { values: Record<string, KeyValue> };
export type ResourcePath = { segment: string; key?: KeySpec; rawKey?: string; rest: string };

const FORBIDDEN = /[/<>*%&:\\?+]/;

/** The value inside `(...)` (raw text) as a GUID or named key values. */
export function parseKey(raw: string, path: string): KeySpec {
  const text = raw.trim();
  if (GUID_RE.test(text)) return { guid: text.toLowerCase() };
  const values: Record<string, KeyValue> = {};
  let i = 0;
  const fail = () => odataError(`Bad Request - Error in query syntax. The key segment '(${raw})' of '${path}' is not valid.`);
  while (i < text.length) {
    const name = /^\s*([A-Za-z_][\w]*)\s*=\s*/.exec(text.slice(i));
    if (!name) throw fail();
    i += name[0].length;
    let value: KeyValue;
    if (text[i] === "'") {
      let s = '';
      i += 1;
      for (;;) {
        if (i >= text.length) throw fail();
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            s += "'";
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        s += text[i];
        i += 1;
      }
      let decoded: string;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        throw keyCharacters(s);
      }
      // ASP.NET checks the decoded path: an encoded space or comma is fine, a decoded / or % is not.
      if (FORBIDDEN.test(decoded)) throw keyCharacters(decoded);
      value = decoded;
    } else {
      const lit = /^[^,\s)]+/.exec(text.slice(i));
      if (!lit) throw fail();
      i += lit[0].length;
      const t = lit[0];
      value = t === 'null' ? null : t === 'true' ? true : t === 'false' ? false : GUID_RE.test(t) ? t.toLowerCase() : /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : (() => { throw fail(); })();
    }
    if (name[1]! in values) throw fail();
    values[name[1]!] = value;
    const sep = /^\s*(,|$)\s*/.exec(text.slice(i));
    if (!sep) throw fail();
    i += sep[0].length;
  }
  if (Object.keys(values).length === 0) throw fail();
  return { values };
}

/** [inf] IIS/ASP.NET refuses these characters in a request path before Dataverse sees it. */
const keyCharacters = (value: string) => {
  const ch = FORBIDDEN.exec(value)?.[0] ?? '%';
  return new DataverseError(400, '0x80060888', `A potentially dangerous Request.Path value was detected from the client (${ch}). Alternate key values that contain / < > * % & : \\ ? + can't be used in a URL.`);
};

/** Splits the path after the Web API base into its first segment, key and the rest. */
export function parseResourcePath(path: string): ResourcePath {
  const m = /^([A-Za-z_$][\w.$]*)/.exec(path);
  if (!m) throw odataError(`Resource not found for the segment '${path}'.`, 404);
  const segment = m[1]!;
  let i = segment.length;
  if (path[i] !== '(') return { segment, rest: path.slice(i) };
  // Find the closing parenthesis outside quotes.
  let j = i + 1;
  let quoted = false;
  for (; j < path.length; j += 1) {
    if (path[j] === "'") quoted = !quoted;
    else if (path[j] === ')' && !quoted) break;
  }
  if (j >= path.length) {
    const inside = path.slice(i + 1);
    if (FORBIDDEN.test(inside.replace(/^[^']*'/, ''))) throw keyCharacters(inside);
    throw odataError(`Bad Request - Error in query syntax. The key segment of '${path}' is not closed.`);
  }
  const rawKey = path.slice(i + 1, j);
  // `Name()`: a function called without parameters (WhoAmI()), not a key.
  if (rawKey.trim() === '') return { segment, rest: path.slice(j + 1) };
  return { segment, key: parseKey(rawKey, path), rawKey, rest: path.slice(j + 1) };
}

const sameValue = (stored: unknown, wanted: KeyValue) => {
  if (stored === undefined || stored === null) return wanted === null;
  if (typeof stored === 'object' && stored !== null && 'id' in stored) return (stored as { id: string }).id === wanted;
  if (typeof stored === 'string' && typeof wanted === 'string') return stored.toLowerCase() === wanted.toLowerCase();
  return stored === wanted;
};

/** The key (alternate or primary) named by a key spec; Dataverse's error when it names none. */
export function checkKey(entity: EntityDef, key: KeySpec) {
  if ('guid' in key) return undefined;
  const names = Object.keys(key.values);
  if (names.length === 1 && names[0] === entity.PrimaryIdAttribute) return undefined;
  const same = entity.Keys.find((k) => k.KeyAttributes.length === names.length && k.KeyAttributes.every((a) => names.includes(a)));
  // [inf] A key whose index is not built yet (or failed) identifies no row: the live code and wording are undocumented.
  if (same && same.EntityKeyIndexStatus !== 'Active') {
    throw odataError(`The entity key ${same.SchemaName} of entity '${entity.LogicalName}' (${same.KeyAttributes.join(', ')}) is not active: its EntityKeyIndexStatus is ${same.EntityKeyIndexStatus}. A key can be used once its index has been created.`);
  }
  const found = same;
  if (!found) {
    const unknown = names.find((n) => !entity.Attributes.some((a) => a.LogicalName === n));
    if (unknown) throw odataError(`'${unknown}' is not a valid key attribute of entity '${entity.LogicalName}'.`);
    throw odataError(`The key attributes (${names.join(', ')}) do not match any Active alternate key defined for entity '${entity.LogicalName}'.`);
  }
  return found;
}

/** The id of the row a key spec names, or undefined when there is none. */
export function findRow(store: Store, entity: EntityDef, key: KeySpec): Row | undefined {
  checkKey(entity, key);
  if ('guid' in key) return store.get(entity.LogicalName, key.guid);
  const names = Object.keys(key.values);
  if (names.length === 1 && names[0] === entity.PrimaryIdAttribute) return store.get(entity.LogicalName, String(key.values[names[0]!]).toLowerCase());
  const first = names[0]!;
  const candidates = key.values[first] === null ? store.rows(entity.LogicalName) : store.candidates(entity.LogicalName, first, key.values[first]);
  return candidates.find((row) => names.every((n) => sameValue(row[n], key.values[n]!)));
}

export const notFoundFor = (entity: EntityDef, key: KeySpec) => ('guid' in key ? doesNotExist(entity.LogicalName, key.guid) : keyDoesNotExist(entity.LogicalName));
