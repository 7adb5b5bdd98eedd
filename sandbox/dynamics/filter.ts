// $filter: eq ne gt ge lt le, and, or, not, parentheses, null, true/false, numbers, unquoted
// datetimes and dates, bare GUIDs, quoted strings ('' for a quote), contains/startswith/endswith.
// Strings compare case-insensitively (Dataverse's SQL collation); GUIDs in SQL Server's order.
import { DataverseError, odataError } from './errors.ts';
import { compareGuids } from './guid.ts';
import { isGuidAttribute, type AttributeDef, type EntityDef } from './schema.ts';
import type { Row } from './store.ts';
import { attributeNamed, comparable, edmOf, noProperty } from './values.ts';

type Lit = { kind: 'lit'; edm: string; value: unknown };
type Prop = { kind: 'prop'; attribute: AttributeDef };
type Operand = Lit | Prop;
export type Expr =
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; expr: Expr }
  | { kind: 'cmp'; op: string; left: Operand; right: Operand }
  | { kind: 'fn'; name: string; attribute: AttributeDef; text: string }
  | { kind: 'const'; value: boolean };

type Token = { t: 'id' | 'str' | 'num' | 'guid' | 'dt' | 'date' | '(' | ')' | ','; v: string; pos: number };
const OPS: Record<string, string> = { eq: 'Equal', ne: 'NotEqual', gt: 'GreaterThan', ge: 'GreaterThanOrEqual', lt: 'LessThan', le: 'LessThanOrEqual' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const syntax = (at: number) => odataError(`Syntax error at position ${at} in '${text}'.`);
  while (i < text.length) {
    const rest = text.slice(i);
    const ws = /^\s+/.exec(rest);
    if (ws) {
      i += ws[0].length;
      continue;
    }
    const c = text[i]!;
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: c, v: c, pos: i });
      i += 1;
      continue;
    }
    if (c === "'") {
      let s = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw odataError(`There is an unterminated string literal at position ${text.length} in '${text}'.`);
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            s += "'";
            j += 2;
            continue;
          }
          break;
        }
        s += text[j];
        j += 1;
      }
      tokens.push({ t: 'str', v: s, pos: i });
      i = j + 1;
      continue;
    }
    let m = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w-])/.exec(rest);
    if (m) {
      tokens.push({ t: 'guid', v: m[0].toLowerCase(), pos: i });
      i += m[0].length;
      continue;
    }
    m = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})/.exec(rest);
    if (m) {
      if (Number.isNaN(Date.parse(m[0]))) throw syntax(i);
      tokens.push({ t: 'dt', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    m = /^\d{4}-\d{2}-\d{2}(?![\w:])/.exec(rest);
    if (m) {
      tokens.push({ t: 'date', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?[mMdDlL]?(?![\w])/.exec(rest);
    if (m) {
      tokens.push({ t: 'num', v: m[0].replace(/[mMdDlL]$/, ''), pos: i });
      i += m[0].length;
      continue;
    }
    m = /^[A-Za-z_][\w.]*(\/[A-Za-z_][\w]*)*/.exec(rest);
    if (m) {
      tokens.push({ t: 'id', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    throw syntax(i);
  }
  return tokens;
}

const COMPATIBLE = (a: string, b: string) => {
  if (a === b) return true;
  const numeric = ['Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double'];
  if (numeric.includes(a) && numeric.includes(b)) return true;
  const dates = ['Edm.DateTimeOffset', 'Edm.Date'];
  return dates.includes(a) && dates.includes(b);
};

export function parseFilter(entity: EntityDef, text: string): Expr {
  const tokens = tokenize(text);
  let p = 0;
  const peek = () => tokens[p];
  const syntax = () => odataError(`Syntax error at position ${peek()?.pos ?? text.length} in '${text}'.`);
  const keyword = (word: string) => peek()?.t === 'id' && peek()!.v === word;
  const expect = (t: Token['t']) => {
    if (peek()?.t !== t) throw syntax();
    return tokens[p++]!;
  };
  const property = (name: string): AttributeDef => {
    const attribute = attributeNamed(entity, name);
    if (!attribute) throw noProperty(entity, name);
    return attribute;
  };

  const operand = (): Operand => {
    const tok = peek();
    if (!tok) throw syntax();
    p += 1;
    switch (tok.t) {
      case 'str': return { kind: 'lit', edm: 'Edm.String', value: tok.v };
      case 'guid': return { kind: 'lit', edm: 'Edm.Guid', value: tok.v };
      case 'dt': return { kind: 'lit', edm: 'Edm.DateTimeOffset', value: Date.parse(tok.v) };
      case 'date': return { kind: 'lit', edm: 'Edm.Date', value: tok.v };
      case 'num': return { kind: 'lit', edm: /[.eE]/.test(tok.v) ? 'Edm.Decimal' : 'Edm.Int32', value: Number(tok.v) };
      case 'id':
        if (tok.v === 'null') return { kind: 'lit', edm: 'null', value: null };
        if (tok.v === 'true' || tok.v === 'false') return { kind: 'lit', edm: 'Edm.Boolean', value: tok.v === 'true' };
        return { kind: 'prop', attribute: property(tok.v) };
      default:
        p -= 1;
        throw syntax();
    }
  };

  const edm = (o: Operand) => (o.kind === 'lit' ? o.edm : edmOf(o.attribute));
  const primary = (): Expr => {
    if (peek()?.t === '(') {
      p += 1;
      const inner = or();
      expect(')');
      return inner;
    }
    if (keyword('not')) {
      p += 1;
      return { kind: 'not', expr: primary() };
    }
    const tok = peek();
    if (tok?.t === 'id' && ['contains', 'startswith', 'endswith'].includes(tok.v.toLowerCase()) && tokens[p + 1]?.t === '(') {
      p += 2;
      const name = expect('id').v;
      const attribute = property(name);
      expect(',');
      const str = expect('str').v;
      expect(')');
      if (edmOf(attribute) !== 'Edm.String') throw odataError(`No function signature for the function with name '${tok.v}' matches the specified arguments. The function signatures considered are: ${tok.v}(Edm.String Nullable=true, Edm.String Nullable=true).`);
      return { kind: 'fn', name: tok.v.toLowerCase(), attribute, text: str };
    }
    if (tok?.t === 'id' && (tok.v === 'true' || tok.v === 'false') && !(tokens[p + 1]?.t === 'id' && tokens[p + 1]!.v in OPS)) {
      p += 1;
      return { kind: 'const', value: tok.v === 'true' };
    }
    const left = operand();
    const opTok = peek();
    if (opTok?.t !== 'id' || !(opTok.v in OPS)) {
      if (left.kind === 'prop' && left.attribute.AttributeType === 'Boolean') return { kind: 'cmp', op: 'eq', left, right: { kind: 'lit', edm: 'Edm.Boolean', value: true } };
      throw syntax();
    }
    p += 1;
    const right = operand();
    const [a, b] = [edm(left), edm(right)];
    if (a !== 'null' && b !== 'null' && !COMPATIBLE(a, b)) throw odataError(`A binary operator with incompatible types was detected. Found operand types '${a}' and '${b}' for operator kind '${OPS[opTok.v]}'.`);
    return { kind: 'cmp', op: opTok.v, left, right };
  };
  const and = (): Expr => {
    let left = primary();
    while (keyword('and')) {
      p += 1;
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  function or(): Expr {
    let left = and();
    while (keyword('or')) {
      p += 1;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  }
  if (tokens.length === 0) throw odataError(`Syntax error at position 0 in '${text}'.`);
  const expr = or();
  if (p < tokens.length) throw syntax();
  return expr;
}

/** Compares two stored/literal values of one attribute's kind; null sorts first (SQL Server). */
export function compareValues(attribute: AttributeDef | undefined, a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  if (attribute && isGuidAttribute(attribute)) return compareGuids(String(a), String(b));
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (attribute?.AttributeType === 'DateTime' && attribute.Format !== 'DateOnly') {
    const x = typeof a === 'number' ? a : Date.parse(String(a));
    const y = typeof b === 'number' ? b : Date.parse(String(b));
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = String(a).toLowerCase();
  const y = String(b).toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

function valueOf(o: Operand, row: Row): unknown {
  return o.kind === 'lit' ? o.value : comparable(row, o.attribute);
}

export function matches(expr: Expr, row: Row): boolean {
  switch (expr.kind) {
    case 'and': return matches(expr.left, row) && matches(expr.right, row);
    case 'or': return matches(expr.left, row) || matches(expr.right, row);
    case 'not': return !matches(expr.expr, row);
    case 'const': return expr.value;
    case 'fn': {
      const v = row[expr.attribute.LogicalName];
      if (typeof v !== 'string') return false;
      const [s, t] = [v.toLowerCase(), expr.text.toLowerCase()];
      return expr.name === 'contains' ? s.includes(t) : expr.name === 'startswith' ? s.startsWith(t) : s.endsWith(t);
    }
    case 'cmp': {
      const attribute = expr.left.kind === 'prop' ? expr.left.attribute : expr.right.kind === 'prop' ? expr.right.attribute : undefined;
      const a = valueOf(expr.left, row);
      const b = valueOf(expr.right, row);
      if (a === null || b === null) {
        if (expr.op === 'eq') return a === b;
        if (expr.op === 'ne') return a !== b;
        return false;
      }
      const c = compareValues(attribute, a, b);
      switch (expr.op) {
        case 'eq': return c === 0;
        case 'ne': return c !== 0;
        case 'gt': return c > 0;
        case 'ge': return c >= 0;
        case 'lt': return c < 0;
        default: return c <= 0;
      }
    }
    default:
      throw new DataverseError(500, '0x80040216', 'unknown filter node');
  }
}
