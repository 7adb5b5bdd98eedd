// Every value placed into SOQL goes through these: strings are quoted with Salesforce's escapes,
// dates are formatted from Date objects, identifiers are checked against the API-name grammar.
// Nothing a record or a person typed can end a literal or add a clause.

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

export function soqlIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a Salesforce field or object API name: ${JSON.stringify(name)}`);
  return name;
}

/** A single-quoted SOQL string literal (escapes per the SOQL reference: \\ \' \" \n \r \t \b \f). */
export function soqlString(value: string): string {
  const escaped = value.replace(/[\\'"\n\r\t\b\f]/g, (character) => {
    switch (character) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      case '\b':
        return '\\b';
      case '\f':
        return '\\f';
      default:
        return `\\${character}`;
    }
  });
  return `'${escaped}'`;
}

/** A SOQL datetime literal (unquoted, UTC). */
export function soqlDateTime(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new Error('Invalid Date in a SOQL datetime literal');
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function soqlIn(values: string[]): string {
  if (values.length === 0) throw new Error('IN needs at least one value');
  return `(${values.map(soqlString).join(', ')})`;
}
