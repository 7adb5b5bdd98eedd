// Multi-currency (README "Multi-currency"), a start option. Off (the default) the org is single-currency:
// no object has CurrencyIsoCode, so a body or query naming it is INVALID_FIELD. On, as in a real
// multi-currency org, every object that can hold amounts (Account, Contact, Opportunity and every custom
// object) has CurrencyIsoCode: a restricted picklist of the org's active currencies, filled on create
// with the integration user's own currency when the create leaves it out. Amounts are stored as sent:
// they are in the record's currency, and nothing converts them.
import { field, type FieldOptions, type SandboxField, type SandboxObject } from './schema.ts';

/**
 * The catalogue's objects carry a currency too, labelled "Currency ISO Code" [doc: field reference of
 * PricebookEntry and Pricebook2]. A price book entry's is set when it is made and never changed (one entry
 * per product, price book and currency); an opportunity product's is its Opportunity's, never written
 * [doc: OpportunityLineItem, "always set to the value of the CurrencyIsoCode of the parent Opportunity"].
 */
const CATALOGUE_CURRENCY_OBJECTS = ['Product2', 'Pricebook2', 'PricebookEntry', 'OpportunityLineItem'];
const CURRENCY_FIELD_OPTIONS: Record<string, FieldOptions> = { PricebookEntry: { createOnly: true }, OpportunityLineItem: { system: true } };

export type MultiCurrency = {
  /** The corporate currency (CurrencyType.IsCorporate): one of the active ones. */
  corporate: string;
  /** The org's active currencies (CurrencyType.IsActive): the values the field takes. */
  active: readonly string[];
  /** The integration user's DefaultCurrencyIsoCode: what a create without a currency gets. Default: the corporate currency. */
  userCurrency?: string;
};

/** Standard objects of this org that carry a currency (custom objects always do) [doc, inf: wire doc "Multi-currency orgs"]. */
const STANDARD_WITH_CURRENCY = new Set(['Account', 'Contact', 'Opportunity', ...CATALOGUE_CURRENCY_OBJECTS]);

const ISO_CODE = /^[A-Z]{3}$/;

/** The option checked before anything starts: a bad one names itself and what it expects. */
export function multiCurrencySettings(option: MultiCurrency | undefined): Required<MultiCurrency> | undefined {
  if (option === undefined) return undefined;
  const where = 'Salesforce sandbox: multiCurrency';
  const active = Array.isArray(option.active) ? option.active : [];
  const bad = active.find((code) => typeof code !== 'string' || !ISO_CODE.test(code));
  if (active.length === 0 || bad !== undefined) throw new Error(`${where}.active must be a list of ISO 4217 codes (three capital letters); ${JSON.stringify(bad ?? option.active)} is not one`);
  if (new Set(active).size !== active.length) throw new Error(`${where}.active names a currency twice: ${active.join(', ')}`);
  const userCurrency = option.userCurrency ?? option.corporate;
  for (const [name, code] of [['corporate', option.corporate], ['userCurrency', userCurrency]] as const) {
    if (!active.includes(code)) throw new Error(`${where}.${name} must be one of the active currencies (${active.join(', ')}), not ${JSON.stringify(code)}`);
  }
  return { corporate: option.corporate, active: [...active], userCurrency };
}

export const carriesCurrency = (object: SandboxObject): boolean => object.custom || STANDARD_WITH_CURRENCY.has(object.name);

/** Salesforce's CurrencyIsoCode on `object`, as describe shows it in a multi-currency org. */
export function currencyField(object: SandboxObject, settings: Required<MultiCurrency>): SandboxField {
  // "Opportunity Currency", "Account Currency"; "Currency ISO Code" on custom objects [inf].
  const label = object.custom || CATALOGUE_CURRENCY_OBJECTS.includes(object.name) ? 'Currency ISO Code' : `${object.label} Currency`;
  // Defaulted on create, never null: a create without it stores the user's currency.
  return field('CurrencyIsoCode', label, 'picklist', { length: 3, picklistValues: [...settings.active], restrictedPicklist: true, defaultValue: settings.userCurrency, ...CURRENCY_FIELD_OPTIONS[object.name] });
}

/**
 * The org's objects with CurrencyIsoCode where a multi-currency org has it (before the audit fields);
 * the objects unchanged in a single-currency org (`settings` undefined).
 */
export function withCurrencyFields(objects: readonly SandboxObject[], settings: Required<MultiCurrency> | undefined): SandboxObject[] {
  if (!settings) return [...objects];
  return objects.map((object) => {
    if (!carriesCurrency(object) || object.fields.some((f) => f.name === 'CurrencyIsoCode')) return object;
    const audit = object.fields.filter((f) => ['CreatedDate', 'LastModifiedDate', 'SystemModstamp'].includes(f.name));
    return { ...object, fields: [...object.fields.filter((f) => !audit.includes(f)), currencyField(object, settings), ...audit] };
  });
}
