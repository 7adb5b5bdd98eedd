// Running a parsed SOQL query against the store: field paths resolved and type-checked against the
// schema (with Salesforce's INVALID_FIELD / MALFORMED_QUERY errors), then filter, sort, slice and
// project. Text compares case-insensitively, as SOQL does; `!=` and NOT IN keep records whose value
// is null, as SOQL does.
import { RequestError } from './errors.ts';
import { canonicalId } from './ids.ts';
import { fieldValue } from './formulas.ts';
import { findField, findObject, findRelationship, isFilterable, isTextType, type SandboxField, type SandboxObject } from './schema.ts';
import { queryError } from './soql-lexer.ts';
import type { Condition, Literal, Path, SoqlQuery } from './soql-parser.ts';
import type { Store, StoredRecord } from './store.ts';
import { parseDateTime } from './values.ts';

const MAX_OFFSET = 2000;

type Resolved = { path: Path; relationships: SandboxField[]; field: SandboxField; get: (record: StoredRecord) => unknown };

export type CompiledQuery = {
  object: SandboxObject;
  count: boolean;
  columns: Resolved[];
  run(options: { includeDeleted: boolean; version: string }): { totalSize: number; records: Record<string, unknown>[] };
  /** For query-cost.ts: the WHERE clause, the field a path names and a predicate per condition. */
  where: Condition | undefined;
  fieldOf(path: Path): { field: SandboxField; throughRelationship: boolean };
  predicateOf(condition: Condition): (record: StoredRecord) => boolean;
};

/** Comparable form: lower-case text, canonical ids, epoch ms for date-times. */
function comparable(field: SandboxField, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'id' || field.type === 'reference') return (canonicalId(value) ?? String(value)).toLowerCase();
  if (isTextType(field.type)) return String(value).toLowerCase();
  if (field.type === 'datetime') return parseDateTime(String(value)) ?? null;
  return value;
}

const compareValues = (a: unknown, b: unknown): number => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);

/** `now`: the org's clock, for formula fields that read NOW(). */
export function compileQuery(query: SoqlQuery, store: Store, now: () => Date = () => new Date()): CompiledQuery {
  const fail = (pos: number, code: string, reason: string) => queryError(query.text, pos, code, reason);
  const object = findObject(query.from.name);
  if (!object) {
    throw fail(
      query.from.pos,
      'INVALID_TYPE',
      `sObject type '${query.from.name}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`,
    );
  }

  const resolve = (path: Path): Resolved => {
    let current = object;
    const relationships: SandboxField[] = [];
    for (const part of path.parts.slice(0, -1)) {
      const reference = findRelationship(current, part);
      if (!reference) {
        throw fail(
          path.pos,
          'INVALID_FIELD',
          `Didn't understand relationship '${part}' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.`,
        );
      }
      relationships.push(reference);
      current = findObject(reference.referenceTo[0]!)!;
    }
    const name = path.parts.at(-1)!;
    const field = findField(current, name);
    if (!field) {
      throw fail(
        path.pos,
        'INVALID_FIELD',
        `No such column '${name}' on entity '${current.name}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
      );
    }
    const get = (record: StoredRecord): unknown => {
      let row: StoredRecord | undefined = record;
      for (const reference of relationships) {
        const parentId: unknown = row[reference.name];
        row = parentId ? store.table(findObject(reference.referenceTo[0]!)!).get(String(parentId)) : undefined;
        if (!row) return null;
      }
      return fieldValue(field, row, now());
    };
    return { path, relationships, field, get };
  };

  // A literal must have the field's type: SOQL refuses quoted numbers, unquoted text and the like.
  const checkLiteral = (target: Resolved, literal: Literal) => {
    if (literal.kind === 'null') return;
    const { field } = target;
    const want = (type: string, quoted: boolean) =>
      fail(literal.pos, 'MALFORMED_QUERY', `value of filter criterion for field '${field.name}' must be of type ${type} and ${quoted ? 'should be enclosed in quotes' : 'should not be enclosed in quotes'}`);
    if (isTextType(field.type) || field.type === 'id' || field.type === 'reference') {
      if (literal.kind !== 'string') throw want('string', true);
      if ((field.type === 'id' || field.type === 'reference') && !canonicalId(literal.value)) throw fail(literal.pos, 'INVALID_QUERY_FILTER_OPERATOR', `invalid ID field: ${literal.value}`);
    } else if (field.type === 'currency' || field.type === 'double') {
      if (literal.kind !== 'number') throw want('double', false);
    } else if (field.type === 'boolean') {
      if (literal.kind !== 'boolean') throw want('boolean', false);
    } else if (field.type === 'date') {
      if (literal.kind !== 'date') throw want('date', false);
    } else if (field.type === 'datetime') {
      if (literal.kind !== 'datetime') throw want('dateTime', false);
    }
  };

  const literalValue = (target: Resolved, literal: Literal): unknown => {
    if (literal.kind === 'null') return null;
    if (literal.kind === 'datetime') return literal.value;
    return comparable(target.field, literal.value);
  };

  const filterable = (target: Resolved) => {
    if (!isFilterable(target.field)) throw fail(target.path.pos, 'INVALID_FIELD', `field '${target.field.name}' can not be filtered in query call`);
    return target;
  };

  type Predicate = (record: StoredRecord) => boolean;
  const compileCondition = (condition: Condition): Predicate => {
    switch (condition.kind) {
      case 'and': {
        const parts = condition.items.map(compileCondition);
        return (r) => parts.every((p) => p(r));
      }
      case 'or': {
        const parts = condition.items.map(compileCondition);
        return (r) => parts.some((p) => p(r));
      }
      case 'not': {
        const inner = compileCondition(condition.item);
        return (r) => !inner(r);
      }
      case 'like': {
        const target = filterable(resolve(condition.path));
        if (!isTextType(target.field.type) && target.field.type !== 'id' && target.field.type !== 'reference') {
          throw fail(condition.path.pos, 'INVALID_QUERY_FILTER_OPERATOR', `invalid operator on ${target.field.type} field: LIKE`);
        }
        if (condition.value.kind !== 'string') throw fail(condition.value.pos, 'MALFORMED_QUERY', `value of filter criterion for field '${target.field.name}' must be of type string and should be enclosed in quotes`);
        const pattern = condition.value.like;
        return (r) => {
          const value = target.get(r);
          return value !== null && pattern.test(String(value));
        };
      }
      case 'in': {
        const target = filterable(resolve(condition.path));
        condition.values.forEach((v) => checkLiteral(target, v));
        const wanted = condition.values.map((v) => literalValue(target, v));
        const hasNull = wanted.includes(null);
        const set = new Set(wanted.filter((v) => v !== null));
        return (r) => {
          const value = comparable(target.field, target.get(r));
          const found = value === null ? hasNull : set.has(value);
          return condition.negated ? !found : found;
        };
      }
      case 'compare': {
        const target = filterable(resolve(condition.path));
        checkLiteral(target, condition.value);
        const wanted = literalValue(target, condition.value);
        const { op } = condition;
        return (r) => {
          const value = comparable(target.field, target.get(r));
          if (op === '=') return value === wanted;
          if (op === '!=') return value !== wanted;
          if (value === null || wanted === null) return false;
          const order = compareValues(value, wanted);
          return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
        };
      }
    }
  };

  const seen = new Set<string>();
  const columns = query.fields.map((path) => {
    const key = path.text.toLowerCase();
    if (seen.has(key)) throw fail(path.pos, 'MALFORMED_QUERY', `duplicate field selected: ${path.text}`);
    seen.add(key);
    return resolve(path);
  });
  const predicate = query.where ? compileCondition(query.where) : () => true;
  const order = query.orderBy.map((item) => {
    const target = resolve(item.path);
    if (!isFilterable(target.field)) throw fail(item.path.pos, 'INVALID_FIELD', `field '${target.field.name}' can not be sorted in a query call`);
    return { ...item, target };
  });
  if (query.offset !== undefined && query.offset > MAX_OFFSET) {
    throw new RequestError(400, 'NUMBER_OUTSIDE_VALID_RANGE', `Maximum SOQL offset allowed is ${MAX_OFFSET}`);
  }

  const compare = (a: StoredRecord, b: StoredRecord): number => {
    for (const { target, descending, nullsFirst } of order) {
      const va = comparable(target.field, target.get(a));
      const vb = comparable(target.field, target.get(b));
      if (va === null || vb === null) {
        if (va === vb) continue;
        return va === null ? (nullsFirst ? -1 : 1) : nullsFirst ? 1 : -1;
      }
      const c = compareValues(va, vb);
      if (c !== 0) return descending ? -c : c;
    }
    return 0;
  };

  return {
    object,
    count: query.count,
    columns,
    where: query.where,
    fieldOf: (path) => {
      const resolved = resolve(path);
      return { field: resolved.field, throughRelationship: resolved.relationships.length > 0 };
    },
    predicateOf: compileCondition,
    run(options) {
      let rows = [...store.table(object).all()].filter((r) => (options.includeDeleted || !r.IsDeleted) && predicate(r));
      if (order.length > 0) rows.sort(compare);
      const start = query.offset ?? 0;
      rows = rows.slice(start, query.limit === undefined ? undefined : start + query.limit);
      if (query.count) return { totalSize: rows.length, records: [] };
      return { totalSize: rows.length, records: rows.map((r) => project(r, columns, object, store, options.version, now())) };
    },
  };
}

/** A result row: attributes, then the selected fields; parent fields nested under their relationship. */
function project(record: StoredRecord, columns: Resolved[], object: SandboxObject, store: Store, version: string, now: Date): Record<string, unknown> {
  const attributes = (o: SandboxObject, id: unknown) => ({ type: o.name, url: `/services/data/v${version}/sobjects/${o.name}/${String(id)}` });
  const out: Record<string, unknown> = { attributes: attributes(object, record.Id) };
  for (const column of columns) {
    let node = out;
    let row: StoredRecord | undefined = record;
    let missing = false;
    for (const reference of column.relationships) {
      const parentObject = findObject(reference.referenceTo[0]!)!;
      const parentId: unknown = row?.[reference.name];
      row = parentId ? store.table(parentObject).get(String(parentId)) : undefined;
      const key = reference.relationshipName!;
      if (!row) {
        if (!(key in node)) node[key] = null;
        missing = true;
        break;
      }
      if (!node[key] || typeof node[key] !== 'object') node[key] = { attributes: attributes(parentObject, row.Id) };
      node = node[key] as Record<string, unknown>;
    }
    if (!missing) node[column.field.name] = row ? fieldValue(column.field, row, now) : null;
  }
  return out;
}
