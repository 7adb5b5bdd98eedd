// The `q` filter of query endpoints (A3): a tokenizer and a recursive-descent parser for LISP-style
// S-expressions. Every error names its 0-based character position in `q`, so a client can point at
// the offending spot; hostile input (quotes, backslashes, stray parentheses, deep nesting) is an error,
// never a crash.
import { FIELD_PATTERN, fieldPath, type FieldPath } from './fields.ts';

export type Value = string | number | boolean | null;

export type Expr =
  | { op: 'and' | 'or'; args: Expr[] }
  | { op: 'not'; arg: Expr }
  | { op: 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le'; field: FieldPath; value: Value }
  | { op: 'in'; field: FieldPath; values: Value[] }
  | { op: 'like'; field: FieldPath; pattern: string }
  | { op: 'exists'; field: FieldPath };

export class FilterSyntaxError extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} at position ${position}`);
    this.position = position;
  }
}

type Token =
  | { kind: '(' | ')' | 'end'; position: number }
  | { kind: 'string'; value: string; position: number }
  | { kind: 'number'; value: number; text: string; position: number }
  | { kind: 'word'; text: string; position: number };

const MAX_DEPTH = 64;
const WORD = /[A-Za-z_][A-Za-z0-9_.]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDelimiter = (c: string | undefined) => c === undefined || isSpace(c) || c === '(' || c === ')';

/**
 * Reads tokens on demand, so the first problem in reading order is the one reported: in
 * `SELECT x WHERE y = 'z'` that is the missing "(" at 0, not the quote further on.
 */
function lexer(input: string) {
  let i = 0;
  const read = (): Token => {
    while (i < input.length && isSpace(input[i]!)) i++;
    if (i >= input.length) return { kind: 'end', position: input.length };
    const c = input[i]!;
    if (c === '(' || c === ')') return { kind: c, position: i++ };
    if (c === '"') {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= input.length) throw new FilterSyntaxError('unterminated string starting', start);
        const d = input[i]!;
        if (d === '"') break;
        if (d === '\\') {
          const escaped = input[i + 1];
          if (escaped === undefined) throw new FilterSyntaxError('unterminated string starting', start);
          if (escaped !== '"' && escaped !== '\\') throw new FilterSyntaxError(`invalid escape \\${escaped} in string (only \\" and \\\\ exist)`, i);
          value += escaped;
          i += 2;
        } else {
          value += d;
          i++;
        }
      }
      i++;
      return { kind: 'string', value, position: start };
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(input);
      if (!match) throw new FilterSyntaxError('malformed number', i);
      const end = i + match[0].length;
      if (!isDelimiter(input[end])) throw new FilterSyntaxError(`unexpected character ${JSON.stringify(input[end])} after number ${match[0]}`, end);
      const token: Token = { kind: 'number', value: Number(match[0]), text: match[0], position: i };
      i = end;
      return token;
    }
    if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const text = WORD.exec(input)![0];
      const end = i + text.length;
      if (!isDelimiter(input[end])) throw new FilterSyntaxError(`unexpected character ${JSON.stringify(input[end])} after "${text}"`, end);
      const token: Token = { kind: 'word', text, position: i };
      i = end;
      return token;
    }
    throw new FilterSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
  };
  let lookahead: Token | undefined;
  return {
    peek: (): Token => (lookahead ??= read()),
    take: (): Token => {
      const token = lookahead ?? read();
      lookahead = undefined;
      return token;
    },
  };
}

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const OPERATORS = new Set([...COMPARISONS, 'and', 'or', 'not', 'in', 'like', 'exists']);
const LITERALS: Record<string, Value> = { true: true, false: false, null: null };

/** Parses a whole `q`; an empty or blank `q` is no filter (undefined). */
export function parseFilter(input: string): Expr | undefined {
  const { peek, take } = lexer(input);
  if (peek().kind === 'end') return undefined;
  const describe = (token: Token) =>
    token.kind === 'end' ? 'the end of q' : token.kind === 'string' ? 'a string' : token.kind === 'number' ? `number ${token.text}` : token.kind === 'word' ? `"${token.text}"` : `"${token.kind}"`;
  const expect = (kind: '(' | ')', what = `"${kind}"`) => {
    const token = take();
    if (token.kind !== kind) throw new FilterSyntaxError(`expected ${what} but found ${describe(token)}`, token.position);
  };

  const field = (): FieldPath => {
    const token = take();
    if (token.kind !== 'word' || token.text in LITERALS) throw new FilterSyntaxError(`expected a field name but found ${describe(token)}`, token.position);
    if (!FIELD_PATTERN.test(token.text)) throw new FilterSyntaxError(`invalid field name "${token.text}"`, token.position);
    return fieldPath(token.text);
  };
  const value = (): Value => {
    const token = take();
    if (token.kind === 'string' || token.kind === 'number') return token.value;
    if (token.kind === 'word' && token.text in LITERALS) return LITERALS[token.text]!;
    throw new FilterSyntaxError(`expected a value (a "string", a number, true, false or null) but found ${describe(token)}`, token.position);
  };

  const expression = (depth: number): Expr => {
    const open = peek();
    if (depth > MAX_DEPTH) throw new FilterSyntaxError(`expressions nest deeper than ${MAX_DEPTH} levels`, open.position);
    expect('(', 'an expression "("');
    const opToken = take();
    if (opToken.kind !== 'word') throw new FilterSyntaxError(`expected an operator but found ${describe(opToken)}`, opToken.position);
    const op = opToken.text;
    if (!OPERATORS.has(op)) throw new FilterSyntaxError(`unknown operator "${op}" (expected one of ${[...OPERATORS].join(', ')})`, opToken.position);
    let result: Expr;
    if (op === 'and' || op === 'or') {
      const args: Expr[] = [];
      while (peek().kind === '(') args.push(expression(depth + 1));
      if (args.length === 0) throw new FilterSyntaxError(`(${op} ...) needs at least one expression but found ${describe(peek())}`, peek().position);
      result = { op, args };
    } else if (op === 'not') {
      result = { op, arg: expression(depth + 1) };
    } else if (op === 'in') {
      const target = field();
      const values: Value[] = [];
      while (peek().kind !== ')' && peek().kind !== 'end') values.push(value());
      if (values.length === 0) throw new FilterSyntaxError('(in field ...) needs at least one value', peek().position);
      result = { op, field: target, values };
    } else if (op === 'like') {
      const target = field();
      const token = take();
      if (token.kind !== 'string') throw new FilterSyntaxError(`(like field "pattern") needs a string pattern but found ${describe(token)}`, token.position);
      result = { op, field: target, pattern: token.value };
    } else if (op === 'exists') {
      result = { op, field: field() };
    } else {
      result = { op: op as 'eq', field: field(), value: value() };
    }
    expect(')', `")" to close "${op}" opened at position ${open.position}`);
    return result;
  };

  const parsed = expression(1);
  const rest = peek();
  if (rest.kind !== 'end') throw new FilterSyntaxError(`unexpected ${describe(rest)} after the expression`, rest.position);
  return parsed;
}
