// The CSV uploaded to a Bulk API 2.0 job: one header, one line per row, RFC 4180 quoting (what
// Salesforce reads), empty cells for values a row lacks, #N/A passed through as the clearing marker.
import { describe, expect, it } from 'vitest';
import { bulkCsv } from '../../crm/salesforce/bulk-csv.ts';
import { bulkColumns, flattenForCsv } from '../../crm/salesforce/connector.ts';

describe('Bulk API 2.0 CSV', () => {
  it('quotes fields holding commas, quotes or line breaks and leaves the rest bare', () => {
    const rows = [
      { Name: 'Plain', Description: 'a, b', Ext__c: 'e1' },
      { Name: 'He said "hi"', Description: 'line one\nline two\r\n', Ext__c: 'e2' },
      { Name: "O'Brien; DROP TABLE --", Description: '#N/A', Ext__c: 'e3' },
    ];
    expect(bulkCsv(['Name', 'Description', 'Ext__c'], rows)).toBe(
      'Name,Description,Ext__c\n' + //
        'Plain,"a, b",e1\n' +
        '"He said ""hi""","line one\nline two\r\n",e2\n' +
        "O'Brien; DROP TABLE --,#N/A,e3\n",
    );
  });

  it('writes numbers and booleans as text and a missing value as an empty cell, in the columns of all rows', () => {
    const rows = [flattenForCsv({ Amount: 12.5, Closed__c: false, Ext__c: 'e1' }), flattenForCsv({ Ext__c: 'e2', Account: { Buyer_Id__c: 'b-9' }, Notes__c: null })];
    const columns = bulkColumns(rows);
    expect(columns).toEqual(['Amount', 'Closed__c', 'Ext__c', 'Account.Buyer_Id__c', 'Notes__c']);
    expect(bulkCsv(columns, rows)).toBe('Amount,Closed__c,Ext__c,Account.Buyer_Id__c,Notes__c\n12.5,false,e1,,\n,,e2,b-9,#N/A\n');
  });
});
