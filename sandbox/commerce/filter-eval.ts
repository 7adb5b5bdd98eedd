// Evaluates a parsed `q` against a row (A3). Comparisons are typed: numbers numerically, two ISO 8601
// date-times as instants, other strings by code unit, booleans as false < true; values of different
// types never match. A missing field never matches a comparison; an array field matches when any of
// its elements does.
import { asInstant, resolveField } from './fields.ts';
import type { Expr, Value } from './filter-parser.ts';

export type Predicate = (row: unknown) => boolean;

/** <0, 0, >0, or undefined when the two cannot be compared. */
export function compareValue(actual: unknown, expected: Value): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = asInstant(actual);
    const b = a === undefined ? undefined : asInstant(expected);
    if (a !== undefined && b !== undefined) return a - b;
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  }
  if (typeof actual === 'boolean' && typeof expected === 'boolean') return Number(actual) - Number(expected);
  if (actual === null && expected === null) return 0;
  return undefined;
}

const matchesAny = (actual: unknown, test: (value: unknown) => boolean) =>
  Array.isArray(actual) ? actual.some(test) : test(actual);

function likeRegExp(pattern: string): RegExp {
  let source = '';
  for (const c of pattern) {
    if (c === '%') source += '[\\s\\S]*';
    else if (c === '_') source += '[\\s\\S]';
    else source += c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'iu');
}

export function compileFilter(expr: Expr | undefined): Predicate {
  if (!expr) return () => true;
  switch (expr.op) {
    case 'and': {
      const parts = expr.args.map(compileFilter);
      return (row) => parts.every((part) => part(row));
    }
    case 'or': {
      const parts = expr.args.map(compileFilter);
      return (row) => parts.some((part) => part(row));
    }
    case 'not': {
      const inner = compileFilter(expr.arg);
      return (row) => !inner(row);
    }
    case 'exists':
      return (row) => {
        const actual = resolveField(row, expr.field);
        return actual !== undefined && actual !== null;
      };
    case 'like': {
      const regexp = likeRegExp(expr.pattern);
      return (row) => matchesAny(resolveField(row, expr.field), (value) => typeof value === 'string' && regexp.test(value));
    }
    case 'in':
      return (row) => {
        const actual = resolveField(row, expr.field);
        return actual !== undefined && matchesAny(actual, (value) => expr.values.some((expected) => compareValue(value, expected) === 0));
      };
    case 'ne':
      // ne is "present and not equal": a missing field matches no comparison, ne included.
      return (row) => {
        const actual = resolveField(row, expr.field);
        if (actual === undefined) return false;
        return !matchesAny(actual, (value) => compareValue(value, expr.value) === 0);
      };
    default: {
      const accept = ACCEPT[expr.op];
      return (row) => {
        const actual = resolveField(row, expr.field);
        if (actual === undefined) return false;
        return matchesAny(actual, (value) => {
          const order = compareValue(value, expr.value);
          return order !== undefined && accept(order);
        });
      };
    }
  }
}

const ACCEPT: Record<'eq' | 'gt' | 'ge' | 'lt' | 'le', (order: number) => boolean> = {
  eq: (order) => order === 0,
  gt: (order) => order > 0,
  ge: (order) => order >= 0,
  lt: (order) => order < 0,
  le: (order) => order <= 0,
};
