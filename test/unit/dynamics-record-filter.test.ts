// A co-sell read's narrowing as Dataverse's $filter (issue #24 item 9): typed, escaped, and left out
// (the whole window read) wherever a part cannot be said with the same meaning.
import { describe, expect, it } from 'vitest';
import { odataFilter } from '../../crm/dynamics/record-filter.ts';
import type { LiteralKind } from '../../crm/dynamics/odata.ts';

const KINDS: Record<string, LiteralKind> = { ccs_cosellshare: 'boolean', ccs_privateofferrequested: 'boolean', ccs_commercereferralid: 'string', stepname: 'string', ccs_cosellmotion: 'number' };
const kindOf = (column: string) => KINDS[column];

describe('Dataverse narrowing of a co-sell read', () => {
  it('an OR of the passes: share checkbox, private-offer request, a referral id held', () => {
    expect(odataFilter({ anyOf: [{ field: 'ccs_cosellshare', equals: true }, { field: 'ccs_privateofferrequested', equals: true }, { field: 'ccs_commercereferralid', present: true }] }, kindOf)).toBe(
      '(ccs_cosellshare eq true or ccs_privateofferrequested eq true or ccs_commercereferralid ne null)',
    );
  });

  it('text values are quoted with their quotes doubled: a hostile value stays a value', () => {
    expect(odataFilter({ field: 'stepname', oneOf: ["1-Qualify", "x' or name ne '"] }, kindOf)).toBe("(stepname eq '1-Qualify' or stepname eq 'x'' or name ne ''')");
  });

  it('reads the whole window where a part cannot be said: a choice column, an unknown column, a bad name, a value not of the type', () => {
    expect(odataFilter({ field: 'ccs_cosellmotion', oneOf: ['Share'] }, kindOf)).toBeUndefined();
    expect(odataFilter({ anyOf: [{ field: 'ccs_cosellshare', equals: true }, { field: 'ccs_missing', equals: true }] }, kindOf)).toBeUndefined();
    expect(odataFilter({ field: 'stepname eq 1 or x', equals: 'a' }, kindOf)).toBeUndefined();
    expect(odataFilter({ field: 'ccs_cosellshare', equals: 'maybe' }, kindOf)).toBeUndefined();
    expect(odataFilter({ anyOf: [] }, kindOf)).toBeUndefined();
  });
});
