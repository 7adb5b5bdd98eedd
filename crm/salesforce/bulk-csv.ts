// The CSV of a Bulk API 2.0 ingest job, built here rather than by jsforce: handed an array, jsforce
// deep-copies every row (structuredClone) and streams each one through csv-stringify in object mode,
// about 6 KB of garbage per row, which on a 5,000-row job is what kept the worker's heap high. Handed
// a string, it uploads it as is. The quoting is RFC 4180's, as Salesforce reads it (and as csv-stringify
// writes it by default): a field holding a comma, a quote or a line break is quoted, quotes doubled.
export type BulkRow = Record<string, string | number | boolean>;

const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Header line and one line per row (LF endings, as the job declares), columns in the order given. */
export function bulkCsv(columns: string[], rows: BulkRow[]): string {
  let csv = `${columns.map(csvField).join(',')}\n`;
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) line += (i === 0 ? '' : ',') + csvField(row[columns[i]!]);
    csv += `${line}\n`;
  }
  return csv;
}
