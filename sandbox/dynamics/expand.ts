// $expand as OData v4 writes it: items separated by commas, each a navigation property with its own
// query options in parentheses separated by ';' (`Attributes($select=LogicalName,AttributeType;$top=5)`,
// `parentaccountid($select=name,accountnumber)`). Commas and semicolons inside parentheses or quoted
// literals belong to the inner options, never split the outer list. Used by metadata and record reads.
import { odataError } from './errors.ts';

export type ExpandItem = { nav: string; options: Map<string, string> };

/** Splits on `sep` at depth 0, outside single-quoted literals ('' is a quote inside one). */
export function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of text) {
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth += 1;
    else if (!quoted && ch === ')') depth -= 1;
    if (ch === sep && depth === 0 && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  if (depth !== 0 || quoted) throw odataError(`Syntax error: unbalanced parentheses or quotes in '${text}'.`);
  if (current.trim()) parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

const OPTIONS = ['$select', '$filter', '$expand', '$top', '$orderby', '$skip', '$count'];

/** `$expand`'s items with their nested options, by name. */
export function parseExpand(text: string | undefined): ExpandItem[] {
  if (!text || !text.trim()) return [];
  return splitTop(text, ',').map((item) => {
    const m = /^([A-Za-z_][\w.]*)(?:\((.*)\))?$/s.exec(item);
    if (!m) throw odataError(`Syntax error in $expand '${text}' at '${item}'.`);
    const options = new Map<string, string>();
    for (const option of m[2] !== undefined ? splitTop(m[2], ';') : []) {
      const eq = option.indexOf('=');
      const name = (eq < 0 ? option : option.slice(0, eq)).trim();
      if (!OPTIONS.includes(name)) throw odataError(`The query option '${name}' is not valid inside $expand (in '${item}').`);
      if (options.has(name)) throw odataError(`The query option '${name}' appears twice inside $expand (in '${item}').`);
      options.set(name, eq < 0 ? '' : option.slice(eq + 1).trim());
    }
    return { nav: m[1]!, options };
  });
}

/** A `$select` list's names, or undefined when there is none. */
export const selectList = (text: string | undefined) => (text === undefined ? undefined : text.split(',').map((s) => s.trim()).filter(Boolean));
