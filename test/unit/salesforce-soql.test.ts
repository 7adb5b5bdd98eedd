import { describe, expect, it } from 'vitest';
import { soqlDateTime, soqlIdentifier, soqlIn, soqlString } from '../../crm/salesforce/soql.ts';
import { bulkRecordError, recordError } from '../../crm/salesforce/errors.ts';
import { flattenForCsv } from '../../crm/salesforce/connector.ts';

describe('SOQL values', () => {
  it('keeps hostile strings inside one literal', () => {
    expect(soqlString("O'Brien")).toBe("'O\\'Brien'");
    expect(soqlString('back\\slash')).toBe("'back\\\\slash'");
    expect(soqlString("x' OR Name != '")).toBe("'x\\' OR Name != \\''");
    expect(soqlString('say "hi"\n\tnow')).toBe(`'say \\"hi\\"\\n\\tnow'`);
    expect(soqlString("' LIMIT 1) FROM Account WHERE Id != '")).toBe("'\\' LIMIT 1) FROM Account WHERE Id != \\''");
    expect(soqlIn(['a', "b'c"])).toBe("('a', 'b\\'c')");
  });

  it('formats datetimes and refuses identifiers that are not API names', () => {
    expect(soqlDateTime(new Date('2026-03-04T05:06:07.890Z'))).toBe('2026-03-04T05:06:07Z');
    expect(() => soqlDateTime(new Date('x'))).toThrow(/Invalid Date/);
    expect(soqlIdentifier('Account__r.Commerce_Buyer_Id__c')).toBe('Account__r.Commerce_Buyer_Id__c');
    expect(() => soqlIdentifier('Name FROM Account WHERE')).toThrow(/Not a Salesforce field/);
    expect(() => soqlIdentifier("Name'")).toThrow(/Not a Salesforce field/);
  });
});

describe('Salesforce errors and CSV rows', () => {
  it("keeps Salesforce's own codes and messages", () => {
    expect(recordError([{ statusCode: 'STRING_TOO_LONG', message: 'Name: data value too large', fields: ['Name'] }])).toEqual({
      code: 'STRING_TOO_LONG', message: 'Name: data value too large', fields: ['Name'],
    });
    expect(bulkRecordError('REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --')).toEqual({
      code: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Name]', fields: ['Name'],
    });
  });

  it('flattens relationship references into Bulk API 2.0 columns', () => {
    expect(flattenForCsv({ Name: 'A', Account__r: { Commerce_Buyer_Id__c: 'b-1' }, End_Date__c: null, Amount: 5, Skip: undefined })).toEqual({
      Name: 'A', 'Account__r.Commerce_Buyer_Id__c': 'b-1', End_Date__c: '#N/A', Amount: 5,
    });
  });
});
