// A record Salesforce refuses for its currency keeps Salesforce's code and words, and says plainly what
// an admin does about it; every other refusal is left exactly as Salesforce gave it.
import { describe, expect, it } from 'vitest';
import { bulkRecordError, recordError } from '../../crm/salesforce/errors.ts';

const HINT = 'an active currency of this Salesforce org: an admin activates it in Setup > Manage Currencies, then crm-sync retry sends the record again)';

describe('a currency Salesforce refuses', () => {
  it('in a save result (REST, sObject Collections)', () => {
    expect(recordError([{ statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: 'Currency ISO Code: bad value for restricted picklist field: CHF', fields: ['CurrencyIsoCode'] }])).toEqual({
      code: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      message: `Currency ISO Code: bad value for restricted picklist field: CHF (CHF is not ${HINT}`,
      fields: ['CurrencyIsoCode'],
    });
    expect(recordError([{ statusCode: 'INVALID_CURRENCY_ISO', message: 'invalid currency iso code' }]).message).toBe(`invalid currency iso code (The record's currency is not ${HINT}`);
  });

  it('in a Bulk API 2.0 failed row', () => {
    expect(bulkRecordError('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST:Opportunity Currency: bad value for restricted picklist field: XYZ:CurrencyIsoCode --')).toEqual({
      code: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      message: `Opportunity Currency: bad value for restricted picklist field: XYZ (XYZ is not ${HINT}`,
      fields: ['CurrencyIsoCode'],
    });
  });

  it('another restricted picklist is left as Salesforce said it', () => {
    const stage = { statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: 'Stage: bad value for restricted picklist field: Won Big', fields: ['StageName'] };
    expect(recordError([stage])).toEqual({ code: stage.statusCode, message: stage.message, fields: ['StageName'] });
  });
});
