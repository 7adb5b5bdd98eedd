// RFC 4180 CSV as the Bulk API reads and writes it: quoted fields may hold delimiters, quotes ("")
// and line breaks; LF or CRLF line endings; the delimiter is the job's columnDelimiter.

export const DELIMITERS: Record<string, string> = { COMMA: ',', TAB: '\t', PIPE: '|', SEMICOLON: ';', CARET: '^', BACKQUOTE: '`' };

export class CsvError extends Error {}

export function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  let cellStarted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
    cellStarted = false;
  };
  const endRow = () => {
    endCell();
    rows.push(row);
    row = [];
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i += 1;
        continue;
      }
      cell += c;
      i += 1;
      continue;
    }
    if (c === '"' && !cellStarted) {
      quoted = true;
      cellStarted = true;
      i += 1;
    } else if (c === delimiter) {
      endCell();
      i += 1;
    } else if (c === '\r' && text[i + 1] === '\n') {
      endRow();
      i += 2;
    } else if (c === '\n') {
      endRow();
      i += 1;
    } else {
      cell += c;
      cellStarted = true;
      i += 1;
    }
  }
  if (quoted) throw new CsvError('unterminated quoted field');
  if (cellStarted || row.length > 0) endRow();
  return rows;
}

const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;

/** Every value quoted, LF line endings, header first. */
export function toCsv(header: string[], rows: string[][], delimiter = ','): string {
  return [header, ...rows].map((r) => r.map(quote).join(delimiter)).join('\n') + '\n';
}
