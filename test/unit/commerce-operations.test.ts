// The catalogue must match §4.3 of the contract row for row: read the table from the contract itself.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandPath, OPERATIONS } from '../../commerce/operations.ts';

// The contract lives in the repository (docs/), so a bare clone runs this test.
const SPEC = path.join(import.meta.dirname, '..', '..', 'docs', 'commerce-api-spec.md');

function operationsInContract() {
  const lines = readFileSync(SPEC, 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('### 4.3'));
  const end = lines.findIndex((line) => line.startsWith('### 4.4'));
  const rows: { method: string; path: string; group: string; purpose: string }[] = [];
  let group = '';
  for (const line of lines.slice(start, end)) {
    const heading = /^\*\*(.+)\*\*$/.exec(line.trim());
    if (heading) group = heading[1]!;
    const row = /^\| (GET|POST|PATCH|PUT|DELETE) \| (\S+) \| (.+) \|$/.exec(line);
    if (row) rows.push({ method: row[1]!, path: row[2]!.replace('{O}', '/org/{orgId}'), group, purpose: row[3]! });
  }
  return rows;
}

describe('commerce operation catalogue', () => {
  it('holds the 156 operations of the contract, none missing, none extra, in the same order', () => {
    const contract = operationsInContract();
    expect(contract).toHaveLength(156);
    expect(OPERATIONS).toHaveLength(156);
    expect(OPERATIONS.map((operation) => ({ ...operation }))).toEqual(contract);
    expect(new Set(OPERATIONS.map((operation) => `${operation.method} ${operation.path}`)).size).toBe(156);
  });

  it('percent-encodes path parameters so a hostile id cannot change the path', () => {
    expect(expandPath('/org/{orgId}/offer/{offerId}', { orgId: 'o 1', offerId: '../x?y=1#z' })).toBe('/org/o%201/offer/..%2Fx%3Fy%3D1%23z');
    expect(() => expandPath('/org/{orgId}/offer/{offerId}', { orgId: 'o' })).toThrow(/Missing path parameter offerId/);
  });
});
