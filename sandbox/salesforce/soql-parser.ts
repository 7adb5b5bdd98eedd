// The SOQL subset the sandbox answers:
//   SELECT field[, field...] | COUNT() FROM Object [WHERE condition]
//   [ORDER BY field [ASC|DESC] [NULLS FIRST|LAST][, ...]] [LIMIT n] [OFFSET n]
// Conditions: = != <> < <= > >= LIKE IN (...) NOT IN (...), joined by AND / OR / NOT and parentheses.
// As in SOQL, AND and OR may not be mixed at one level without parentheses. Field paths may
// cross parent relationships (Account.Name).
import { queryError, tokenize, type Token } from './soql-lexer.ts';

export type Path = { parts: string[]; text: string; pos: number };
export type Literal =
  | { kind: 'string'; value: string; like: RegExp; pos: number; text: string }
  | { kind: 'number'; value: number; pos: number; text: string }
  | { kind: 'boolean'; value: boolean; pos: number; text: string }
  | { kind: 'null'; pos: number; text: string }
  | { kind: 'date'; value: string; pos: number; text: string }
  | { kind: 'datetime'; value: number; pos: number; text: string };
export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type Condition =
  | { kind: 'and' | 'or'; items: Condition[] }
  | { kind: 'not'; item: Condition }
  | { kind: 'compare'; path: Path; op: CompareOp; value: Literal }
  | { kind: 'in'; path: Path; negated: boolean; values: Literal[] }
  | { kind: 'like'; path: Path; value: Literal };
export type OrderItem = { path: Path; descending: boolean; nullsFirst: boolean };
export type SoqlQuery = {
  text: string;
  count: boolean;
  fields: Path[];
  from: { name: string; pos: number };
  where: Condition | undefined;
  orderBy: OrderItem[];
  limit: number | undefined;
  offset: number | undefined;
};

const UNSUPPORTED = new Set(['GROUP', 'HAVING', 'WITH', 'FOR', 'USING', 'TYPEOF', 'INCLUDES', 'EXCLUDES', 'FIELDS']);

export function parseSoql(text: string): SoqlQuery {
  const tokens = tokenize(text);
  let at = 0;
  const peek = (): Token => tokens[at]!;
  const next = (): Token => tokens[at++]!;
  const fail = (token: Token, reason?: string) =>
    queryError(text, token.pos, 'MALFORMED_QUERY', reason ?? `unexpected token: ${token.kind === 'eof' ? '<EOF>' : `'${token.text}'`}`);
  const isWord = (token: Token, ...words: string[]) => token.kind === 'ident' && words.includes(token.text.toUpperCase());
  const expectWord = (word: string) => {
    const token = next();
    if (!isWord(token, word)) throw fail(token);
  };
  const expectPunct = (p: string) => {
    const token = next();
    if (token.kind !== 'punct' || token.text !== p) throw fail(token);
  };

  const path = (): Path => {
    const token = next();
    if (token.kind !== 'ident') throw fail(token);
    if (UNSUPPORTED.has(token.text.toUpperCase())) throw fail(token, `unexpected token: '${token.text}' (not supported by the Salesforce sandbox)`);
    return { parts: token.text.split('.'), text: token.text, pos: token.pos };
  };

  const literal = (): Literal => {
    const token = next();
    switch (token.kind) {
      case 'string':
        return { kind: 'string', value: token.value, like: token.like, pos: token.pos, text: token.text };
      case 'number':
        return { kind: 'number', value: token.value, pos: token.pos, text: token.text };
      case 'date':
        return { kind: 'date', value: token.value, pos: token.pos, text: token.text };
      case 'datetime':
        return { kind: 'datetime', value: token.value, pos: token.pos, text: token.text };
      case 'ident': {
        const word = token.text.toUpperCase();
        if (word === 'TRUE' || word === 'FALSE') return { kind: 'boolean', value: word === 'TRUE', pos: token.pos, text: token.text };
        if (word === 'NULL') return { kind: 'null', pos: token.pos, text: token.text };
        throw fail(token);
      }
      default:
        throw fail(token);
    }
  };

  const comparison = (): Condition => {
    const target = path();
    const token = next();
    if (token.kind === 'op') {
      const op = (token.text === '<>' ? '!=' : token.text) as CompareOp;
      return { kind: 'compare', path: target, op, value: literal() };
    }
    if (isWord(token, 'LIKE')) return { kind: 'like', path: target, value: literal() };
    let negated = false;
    if (isWord(token, 'NOT')) {
      negated = true;
      expectWord('IN');
    } else if (!isWord(token, 'IN')) {
      throw fail(token);
    }
    expectPunct('(');
    const values = [literal()];
    while (peek().kind === 'punct' && peek().text === ',') {
      next();
      values.push(literal());
    }
    expectPunct(')');
    return { kind: 'in', path: target, negated, values };
  };

  const unary = (): Condition => {
    const token = peek();
    if (isWord(token, 'NOT')) {
      next();
      return { kind: 'not', item: unary() };
    }
    if (token.kind === 'punct' && token.text === '(') {
      next();
      const inner = condition();
      expectPunct(')');
      return inner;
    }
    return comparison();
  };

  const condition = (): Condition => {
    const items = [unary()];
    let joiner: 'and' | 'or' | undefined;
    while (isWord(peek(), 'AND', 'OR')) {
      const token = next();
      const word = token.text.toLowerCase() as 'and' | 'or';
      if (joiner && joiner !== word) throw fail(token);
      joiner = word;
      items.push(unary());
    }
    return joiner ? { kind: joiner, items } : items[0]!;
  };

  const integer = (): number => {
    const token = next();
    if (token.kind !== 'number' || !Number.isInteger(token.value) || token.value < 0) throw fail(token);
    return token.value;
  };

  expectWord('SELECT');
  let count = false;
  const fields: Path[] = [];
  if (isWord(peek(), 'COUNT') && tokens[at + 1]?.kind === 'punct' && tokens[at + 1]?.text === '(') {
    next();
    expectPunct('(');
    expectPunct(')');
    count = true;
  } else {
    fields.push(path());
    while (peek().kind === 'punct' && peek().text === ',') {
      next();
      const token = peek();
      if (token.kind === 'punct' && token.text === '(') throw fail(token, `unexpected token: '(' (subqueries are not supported by the Salesforce sandbox)`);
      fields.push(path());
    }
  }
  expectWord('FROM');
  const fromToken = next();
  if (fromToken.kind !== 'ident' || fromToken.text.includes('.')) throw fail(fromToken);
  const query: SoqlQuery = { text, count, fields, from: { name: fromToken.text, pos: fromToken.pos }, where: undefined, orderBy: [], limit: undefined, offset: undefined };

  if (isWord(peek(), 'WHERE')) {
    next();
    query.where = condition();
  }
  if (isWord(peek(), 'ORDER')) {
    next();
    expectWord('BY');
    do {
      if (query.orderBy.length > 0) next(); // the comma
      const target = path();
      let descending = false;
      if (isWord(peek(), 'ASC', 'DESC')) descending = next().text.toUpperCase() === 'DESC';
      // Salesforce's default: nulls first when ascending, last when descending.
      let nullsFirst = !descending;
      if (isWord(peek(), 'NULLS')) {
        next();
        const which = next();
        if (!isWord(which, 'FIRST', 'LAST')) throw fail(which);
        nullsFirst = which.text.toUpperCase() === 'FIRST';
      }
      query.orderBy.push({ path: target, descending, nullsFirst });
    } while (peek().kind === 'punct' && peek().text === ',');
  }
  if (isWord(peek(), 'LIMIT')) {
    next();
    query.limit = integer();
  }
  if (isWord(peek(), 'OFFSET')) {
    next();
    query.offset = integer();
  }
  const rest = peek();
  if (rest.kind !== 'eof') throw fail(rest);
  return query;
}
