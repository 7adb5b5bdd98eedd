// Every value that reaches a Dataverse $filter or a record's URL key goes through crm/dynamics/odata.ts:
// typed by its column, quoted with single quotes doubled, and refused when it is not of the type. The
// expectations are written out by hand from the OData ABNF and Microsoft's alternate-key rules.
import { describe, expect, it } from 'vitest';
import { anyOf, asGuid, keySegment, literal, ODataValueError } from '../../crm/dynamics/odata.ts';

describe('OData literals typed by column', () => {
  it('quotes strings, doubling single quotes, so hostile text stays one literal', () => {
    expect(literal("O'Neil", 'string')).toBe("'O''Neil'");
    expect(literal("') or (1 eq 1", 'string')).toBe("''') or (1 eq 1'");
    expect(literal("x' or name ne 'y", 'string')).toBe("'x'' or name ne ''y'");
    expect(literal('', 'string')).toBe("''");
    expect(literal('Ünïcødé ✓', 'string')).toBe("'Ünïcødé ✓'");
  });

  it('writes GUIDs bare and lowercase, and refuses anything else where a GUID is compared', () => {
    expect(literal('{0F8FAD5B-D9CB-469F-A165-70867728950E}', 'guid')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(() => literal("0f8fad5b-d9cb-469f-a165-70867728950e' or 1 eq 1", 'guid')).toThrow(ODataValueError);
    expect(() => literal('not-a-guid', 'guid')).toThrow(/not a GUID/);
  });

  it('writes numbers, booleans and date-times typed, refusing text that is not one', () => {
    expect(literal(12.5, 'number')).toBe('12.5');
    expect(literal('7', 'number')).toBe('7');
    expect(() => literal('7 or 1 eq 1', 'number')).toThrow(/not a number/);
    expect(() => literal('', 'number')).toThrow(ODataValueError);
    expect(literal(true, 'boolean')).toBe('true');
    expect(() => literal('yes', 'boolean')).toThrow(ODataValueError);
    expect(literal(new Date('2026-03-04T05:06:07.890Z'), 'datetime')).toBe('2026-03-04T05:06:07Z');
    expect(() => literal('yesterday', 'datetime')).toThrow(/not a date-time/);
    expect(literal('2026-03-04T00:00:00Z', 'date')).toBe('2026-03-04');
    expect(literal(null, 'string')).toBe('null');
  });

  it('joins several values of one column with or', () => {
    expect(anyOf('emailaddress1', ["a@x.com", "o'neil@x.com"], 'string')).toBe("emailaddress1 eq 'a@x.com' or emailaddress1 eq 'o''neil@x.com'");
    expect(() => anyOf('name', [], 'string')).toThrow(ODataValueError);
  });

  it('reads GUIDs with or without braces and refuses others', () => {
    expect(asGuid('(0F8FAD5B-D9CB-469F-A165-70867728950E)')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(asGuid('0f8fad5bd9cb469fa16570867728950e')).toBeUndefined();
    expect(asGuid(42)).toBeUndefined();
  });
});

describe('alternate key segments (the client sends them as they are)', () => {
  it('quotes the value, doubling quotes and encoding what a URL path or the client would change', () => {
    expect(keySegment({ column: 'ccs_commercebuyerid', value: 'buyer-1' })).toBe("ccs_commercebuyerid='buyer-1'");
    expect(keySegment({ column: 'ccs_commercebuyerid', value: "O'Neil" })).toBe("ccs_commercebuyerid='O''Neil'");
    // The client splits keys on commas and turns double quotes into single ones: both are encoded.
    expect(keySegment({ column: 'k', value: 'a,b' })).toBe("k='a%2Cb'");
    expect(keySegment({ column: 'k', value: 'say "hi"' })).toBe("k='say%20%22hi%22'");
    expect(keySegment({ guid: '{0F8FAD5B-D9CB-469F-A165-70867728950E}' })).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it("refuses the characters Dataverse cannot take in a key sent in a URL, naming the key", () => {
    for (const value of ['a/b', 'a<b', 'a>b', 'a*b', 'a%b', 'a&b', 'a:b', 'a\\b', 'a?b', 'a+b', 'a#b']) {
      expect(() => keySegment({ column: 'ccs_commercebuyerid', value })).toThrow(/ccs_commercebuyerid/);
      // The character named, and what happens to the record.
      expect(() => keySegment({ column: 'ccs_commercebuyerid', value })).toThrow(`holds "${value[1]}"`);
      expect(() => keySegment({ column: 'ccs_commercebuyerid', value })).toThrow(/the record is skipped/);
    }
    expect(() => keySegment({ column: 'k', value: '' })).toThrow(/empty/);
  });
});
