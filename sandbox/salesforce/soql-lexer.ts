// SOQL tokens. String literals are read here, once, with Salesforce's escapes; nothing inside quotes
// is ever seen by the parser as syntax, so a hostile value stays a value.
import { RequestError } from './errors.ts';
import { parseDateTime } from './values.ts';

export type Token =
  | { kind: 'ident'; text: string; pos: number }
  | { kind: 'string'; text: string; value: string; like: RegExp; pos: number }
  | { kind: 'number'; text: string; value: number; pos: number }
  | { kind: 'date'; text: string; value: string; pos: number }
  | { kind: 'datetime'; text: string; value: number; pos: number }
  | { kind: 'op'; text: '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='; pos: number }
  | { kind: 'punct'; text: '(' | ')' | ','; pos: number }
  | { kind: 'eof'; text: '<EOF>'; pos: number };

/** A SOQL error in Salesforce's layout: the query line, a caret, the row and column, the reason. */
export function queryError(query: string, pos: number, errorCode: string, reason: string): RequestError {
  const before = query.slice(0, pos);
  const row = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = query.indexOf('\n', pos) < 0 ? query.length : query.indexOf('\n', pos);
  const column = pos - lineStart + 1;
  return new RequestError(400, errorCode, `\n${query.slice(lineStart, lineEnd)}\n${' '.repeat(column - 1)}^\nERROR at Row:${row}:Column:${column}\n${reason}`);
}

const malformed = (query: string, pos: number, reason: string) => queryError(query, pos, 'MALFORMED_QUERY', reason);

const ESCAPES: Record<string, string> = { n: '\n', N: '\n', r: '\r', R: '\r', t: '\t', T: '\t', b: '\b', B: '\b', f: '\f', F: '\f', '"': '"', "'": "'", '\\': '\\' };
const regexLiteral = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function readString(query: string, start: number): Token & { end: number } {
  let value = '';
  let pattern = '';
  let afterWildcard = false;
  let i = start + 1;
  while (i < query.length) {
    const c = query[i]!;
    if (c === "'") {
      return { kind: 'string', text: query.slice(start, i + 1), value, like: new RegExp(`^${pattern}$`, 'is'), pos: start, end: i + 1 };
    }
    if (c === '\\') {
      const next = query[i + 1];
      if (next === undefined) break;
      if (next === '_' || next === '%') {
        // Escaped wildcards: a literal _ or % (in LIKE patterns and in plain comparisons alike).
        value += next;
        pattern += regexLiteral(next);
      } else if (next in ESCAPES) {
        value += ESCAPES[next];
        pattern += regexLiteral(ESCAPES[next]!);
      } else {
        throw malformed(query, i, `Invalid string literal '${query.slice(start + 1, i + 2)}'. Illegal character sequence '\\${next}' in string literal.`);
      }
      afterWildcard = false;
      i += 2;
      continue;
    }
    value += c;
    // A run of % is one wildcard (keeps hostile patterns from backtracking badly).
    if (c !== '%') pattern += c === '_' ? '.' : regexLiteral(c);
    else if (!afterWildcard) pattern += '.*';
    afterWildcard = c === '%';
    i += 1;
  }
  throw malformed(query, query.length, "mismatched character '<EOF>' expecting '''");
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})/;
const DATE = /^\d{4}-\d{2}-\d{2}(?![\dT])/;
const NUMBER = /^-?\d+(?:\.\d+)?(?![\dA-Za-z_])/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/;

export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const rest = query.slice(i);
    if (c === "'") {
      const { end, ...token } = readString(query, i);
      tokens.push(token as Token);
      i = end;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = DATETIME.exec(rest))) {
      const value = parseDateTime(m[0]);
      if (value === undefined) throw malformed(query, i, `invalid date-time literal: ${m[0]}`);
      tokens.push({ kind: 'datetime', text: m[0], value, pos: i });
    } else if ((m = DATE.exec(rest))) {
      if (parseDateTime(m[0]) === undefined) throw malformed(query, i, `invalid date literal: ${m[0]}`);
      tokens.push({ kind: 'date', text: m[0], value: m[0], pos: i });
    } else if (/^\d{4}-\d{2}-\d{2}T/.test(rest)) {
      throw malformed(query, i, `line 1:${i} no viable alternative at character '${rest.slice(0, 19)}': a date-time literal needs seconds and a zone (Z or +hh:mm)`);
    } else if ((m = NUMBER.exec(rest))) {
      tokens.push({ kind: 'number', text: m[0], value: Number(m[0]), pos: i });
    } else if ((m = IDENT.exec(rest))) {
      tokens.push({ kind: 'ident', text: m[0], pos: i });
    } else if ((m = /^(?:!=|<>|<=|>=|=|<|>)/.exec(rest))) {
      tokens.push({ kind: 'op', text: m[0] as '=', pos: i });
    } else if ((m = /^[(),]/.exec(rest))) {
      tokens.push({ kind: 'punct', text: m[0] as '(', pos: i });
    } else {
      throw malformed(query, i, `line 1:${i} no viable alternative at character '${c}'`);
    }
    i += m[0].length;
  }
  tokens.push({ kind: 'eof', text: '<EOF>', pos: query.length });
  return tokens;
}
