// IN-list slices cut by the URL-encoded length jsforce and undici send (the quote becomes %27), at most
// 200 values each; a value that cannot fit even alone is refused by name, never sent.
import { describe, expect, it } from 'vitest';
import { encodedLength, inSlices } from '../../crm/salesforce/in-slices.ts';

const build = (slice: string[]) => `SELECT Id FROM Account WHERE Name IN (${slice.map((value) => `'${value}'`).join(', ')})`;

describe('IN-list slices', () => {
  it('counts bytes as sent: quote %27, space %20, é %C3%A9, & %26, + %2B', () => {
    expect(encodedLength("'a'")).toBe(7);
    expect(encodedLength(', ')).toBe(6);
    expect(encodedLength('é&+')).toBe(12);
  });

  it('cuts by encoded length: values of 1,000 encoded bytes go 11 to a slice of 12,000 (256 kept for the path)', () => {
    // 'x' * 994 quoted: 994 + 6 = 1,000 bytes; the frame is the query without its value.
    const values = Array.from({ length: 30 }, (_, index) => `${String(index).padStart(2, '0')}${'x'.repeat(992)}`);
    const slices = inSlices(values, build, 'Account.Name');
    expect(slices.map((slice) => slice.length)).toEqual([11, 11, 8]);
    expect(slices.flat()).toEqual(values);
    for (const slice of slices) expect(encodedLength(build(slice))).toBeLessThanOrEqual(12_000 - 256);
  });

  it('still at most 200 values a slice, and refuses a value too long to send at all', () => {
    expect(inSlices(Array.from({ length: 450 }, (_, index) => `v${index}`), build, 'Account.Name').map((slice) => slice.length)).toEqual([200, 200, 50]);
    expect(() => inSlices(['é'.repeat(2500)], build, 'Contact.Email')).toThrow(/A Contact\.Email value is too long to look up in Salesforce/);
  });

  it('refuses a value holding a lone surrogate by the field, in words, not as a bare URIError', () => {
    for (const values of [['\ud800x'], ['ok', 'bad \udc00']]) {
      let thrown: unknown;
      try {
        inSlices(values, build, 'Contact.Email');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).not.toBeInstanceOf(URIError);
      expect((thrown as Error).message).toMatch(/^A Contact\.Email value cannot be looked up in Salesforce: it is not valid text \(it holds a lone UTF-16 surrogate/);
    }
  });
});
