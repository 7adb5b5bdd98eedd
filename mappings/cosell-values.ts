// Small pure helpers the co-sell sides share (CRM to commerce: referral and private-offer draft asks).
// Salesforce, HubSpot and Dynamics send checkboxes, dates and amounts in the same few forms and name
// marketplaces the same way, so each side reads them here; what differs per CRM (field names, the words
// of a refusal) stays in the side.
import type { CrmConnector, CrmRecord } from '../crm/connector.ts';
import type { ShareRule } from '../sync/connection-settings.ts';
import { MARKETPLACE_NAMES } from './values.ts';

/** A checkbox as CRMs send it: true, or the text 'true' (HubSpot's booleans are text). */
export function isCrmTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

/** A value as trimmed text; null or absent is ''. */
export function crmText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value).trim();
}

/** The currency assumed when neither the record nor its org names one (the contract's default). */
export const FALLBACK_CURRENCY = 'USD';

/**
 * The currency of an opportunity's (deal's) amount: its own ISO code where the CRM keeps one (Salesforce
 * CurrencyIsoCode in a multi-currency org, HubSpot deal_currency_code, Dynamics' transaction currency's
 * isocurrencycode: docs/crm-wire-behaviour.md), else the org's default currency (`orgDefault`, read by
 * `orgDefaultCurrency`), else USD.
 */
export function opportunityCurrency(value: unknown, orgDefault?: string): string {
  return crmText(value).toUpperCase() || crmText(orgDefault).toUpperCase() || FALLBACK_CURRENCY;
}

/**
 * Why a record's currency cannot go to the marketplace (not a three-letter ISO 4217 code, e.g. a
 * Dataverse custom currency's code of up to five characters), or none when it can.
 */
export function currencyProblem(value: unknown, orgDefault?: string): string | undefined {
  const code = opportunityCurrency(value, orgDefault);
  if (/^[A-Z]{3}$/.test(code)) return undefined;
  return crmText(value)
    ? `currency: the opportunity's currency "${crmText(value)}" is not a three-letter ISO currency code the marketplace takes (USD, EUR, ...); choose such a currency on the opportunity`
    : `currency: the opportunity names no currency and the CRM's default currency "${code}" is not a three-letter ISO currency code the marketplace takes (USD, EUR, ...); choose such a currency on the opportunity`;
}

/**
 * The org's default currency, for the records of a page that name none of their own: read through the
 * connector (which reads it once for its life and answers USD, with one warning, when it cannot), and
 * only when some record needs it (a multi-currency org's records all carry their own). A CRM without
 * the read (an in-memory test CRM) is USD.
 */
export async function orgDefaultCurrency(crm: Pick<CrmConnector, 'defaultCurrency'>, records: CrmRecord[], ownCurrency: (record: CrmRecord) => unknown): Promise<string | undefined> {
  if (!crm.defaultCurrency || records.every((record) => crmText(ownCurrency(record)))) return undefined;
  return crm.defaultCurrency();
}

/** YYYY-MM-DD of a date or date-time text; anything else is no date. */
export function dateOnly(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;
}

/** An amount of zero or more, as a number or numeric text; empty, a boolean, negative or not a number is none. */
export function nonNegativeAmount(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '' || typeof value === 'boolean') return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

const PARTNER_BY_NAME = new Map(Object.entries(MARKETPLACE_NAMES).map(([partner, name]) => [name.toLowerCase(), partner]));

/** The partner code (cloudA) of a marketplace named as a salesperson sees it ('Marketplace A', any case). */
export function marketplacePartnerByName(name: string): string | undefined {
  return PARTNER_BY_NAME.get(name.toLowerCase());
}

/** Whether a share rule shares a record: its checkbox is set, its picklist has a sharing value, or its stage (`stageField`) is a sharing stage. */
export function isSharedUnder(record: CrmRecord, rule: ShareRule, stageField: string): boolean {
  switch (rule.by) {
    case 'checkbox':
      return isCrmTrue(record[rule.field]);
    case 'picklist':
      return rule.values.includes(String(record[rule.field] ?? ''));
    case 'stage':
      return rule.stages.includes(String(record[stageField] ?? ''));
  }
}

/** The fields a share rule reads: its own field, or the record's stage field. */
export function fieldsReadByShareRule(rule: ShareRule, stageField: string): string[] {
  return rule.by === 'stage' ? [stageField] : [rule.field];
}

/**
 * Whether a shared record's referral goes to the partner now: at once when the connection has no
 * submit rule, else when its second signal is there (a checkbox, a picklist value, a stage). The
 * request then carries `status: 'SUBMITTED'` (docs/commerce-api-assumptions.md A13).
 */
export function submitsNow(record: CrmRecord, rule: ShareRule | undefined, stageField: string): boolean {
  return rule === undefined || isSharedUnder(record, rule, stageField);
}

/** Whether the connection's co-sell rules share a record, and whether its referral goes to the partner now. */
export function shareSignals(record: CrmRecord, cosell: { share: ShareRule; submit?: ShareRule }, stageField: string): { shared: boolean; submitsNow: boolean } {
  return { shared: isSharedUnder(record, cosell.share, stageField), submitsNow: submitsNow(record, cosell.submit, stageField) };
}

/** The fields a submit rule reads (none when there is no rule). */
export function fieldsReadBySubmitRule(rule: ShareRule | undefined, stageField: string): string[] {
  return rule ? fieldsReadByShareRule(rule, stageField) : [];
}
