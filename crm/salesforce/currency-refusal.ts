// A record refused for its currency: Salesforce's words ("Currency ISO Code: bad value for restricted
// picklist field: CHF") say which value, not what to do. The dead letter keeps them and adds, plainly,
// that the org has not activated that currency and where an admin does it (docs/crm-wire-behaviour.md
// "Multi-currency orgs").
import type { CrmRecordError } from '../connector.ts';

/** Status codes Salesforce refuses a currency code with: the restricted picklist's, and its own [inf]. */
const CURRENCY_CODES = new Set(['INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', 'INVALID_CURRENCY_ISO']);

export function explainCurrencyRefusal(error: CrmRecordError): CrmRecordError {
  const aboutCurrency = CURRENCY_CODES.has(error.code) && (error.fields?.includes('CurrencyIsoCode') || (error.code === 'INVALID_CURRENCY_ISO' && !error.fields));
  if (!aboutCurrency) return error;
  const code = /:\s*([A-Za-z]{3})\s*$/.exec(error.message)?.[1];
  const which = code ? `${code} is not` : 'The record\'s currency is not';
  return { ...error, message: `${error.message} (${which} an active currency of this Salesforce org: an admin activates it in Setup > Manage Currencies, then crm-sync retry sends the record again)` };
}
