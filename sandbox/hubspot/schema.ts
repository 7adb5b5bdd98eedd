// The object types the sandbox serves and the properties and property groups each starts with.
// Standard objects are reachable by name or objectTypeId (deals = 0-3). Custom objects are defined per
// portal (custom-objects.ts) and reachable only by their objectTypeId (2-...), fully qualified name
// (p{portalId}_{name}) or short-hand name (p_{name}): never by the bare name (HubSpot's changelog,
// "Removed Support for Referencing Custom Object Types by Base Name", in force since June 2025).
export type PropertyType = 'string' | 'number' | 'datetime' | 'date' | 'enumeration' | 'bool';

export type PropertyDef = {
  name: string;
  label: string;
  type: PropertyType;
  fieldType: string;
  groupName: string;
  description: string;
  hasUniqueValue: boolean;
  hubspotDefined: boolean;
  /** Set by HubSpot itself (hs_object_id, createdate, ...): a write to it is refused. */
  readOnlyValue: boolean;
  options: { label: string; value: string; displayOrder: number; hidden: boolean }[];
  createdAt: string;
  updatedAt: string;
};

/** `name` is the sandbox's own key for the type (its stores and /_sandbox controls use it); `aliases` are what API paths may say besides the objectTypeId. */
export type ObjectTypeDef = { name: string; objectTypeId: string; aliases: string[]; custom?: boolean };

export const STANDARD_OBJECT_TYPES: readonly ObjectTypeDef[] = [
  { name: 'contacts', objectTypeId: '0-1', aliases: ['contact'] },
  { name: 'companies', objectTypeId: '0-2', aliases: ['company'] },
  { name: 'deals', objectTypeId: '0-3', aliases: ['deal'] },
  { name: 'line_items', objectTypeId: '0-8', aliases: ['line_item'] },
  // The product library (issue #28): line items are made from products (catalogue.ts).
  { name: 'products', objectTypeId: '0-7', aliases: ['product'] },
  // Activities (issue #27 section 1): notes and tasks are CRM objects too, on a record's timeline.
  { name: 'notes', objectTypeId: '0-46', aliases: ['note'] },
  { name: 'tasks', objectTypeId: '0-27', aliases: ['task'] },
];

/** Activities: no unique-value property may be made on them (HubSpot keeps those for contacts, companies, deals, tickets and custom objects). */
export const ACTIVITY_TYPES: readonly string[] = ['notes', 'tasks'];

/**
 * Products take no unique-value property either: HubSpot has "provided unique property support for
 * Companies, Deals, Tickets, and Custom Objects" and, since 2023, contacts (developer changelog,
 * docs/crm-wire-behaviour.md "Products and line items"). Line items are left as the sandbox had them.
 */
export const NO_UNIQUE_VALUE_TYPES: readonly string[] = [...ACTIVITY_TYPES, 'products'];

/** Properties a create must give (HubSpot's guides: an activity's hs_timestamp is required). */
export const REQUIRED_ON_CREATE: Readonly<Record<string, readonly string[]>> = { notes: ['hs_timestamp'], tasks: ['hs_timestamp'] };

/** The property holding a record's owner: one of the portal's owner ids (owners.ts). */
export const OWNER_PROPERTY = 'hubspot_owner_id';

/** The group a portal's built-in properties of a type are in, there from the start. */
export function defaultGroupOf(type: string): string {
  const standard: Record<string, string> = { contacts: 'contactinformation', companies: 'companyinformation', deals: 'dealinformation', line_items: 'lineiteminformation', products: 'productinformation', notes: 'noteinformation', tasks: 'taskinformation' };
  return standard[type] ?? `${type}_information`;
}

/**
 * Properties that identify a record although their definition says hasUniqueValue false: HubSpot
 * keeps one contact per email (a second is 409 "Contact already exists") and upserts contacts by it.
 */
export const IDENTITY_PROPERTIES: Readonly<Record<string, readonly string[]>> = { contacts: ['email'] };

export const isIdentity = (type: string, name: string) => IDENTITY_PROPERTIES[type]?.includes(name) ?? false;

/** The type an API path names among `types` (by objectTypeId or an alias; standard types also by name). */
export function findObjectType(nameOrId: string, types: readonly ObjectTypeDef[] = STANDARD_OBJECT_TYPES): ObjectTypeDef | undefined {
  const key = nameOrId.toLowerCase();
  return types.find((t) => (!t.custom && t.name === key) || t.objectTypeId === key || t.aliases.includes(key));
}

const SINCE = '2020-01-01T00:00:00.000Z';
export const prop = (name: string, type: PropertyType, fieldType: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({
  name,
  label: name,
  type,
  fieldType,
  groupName: '',
  description: '',
  hasUniqueValue: false,
  hubspotDefined: true,
  readOnlyValue: false,
  options: [],
  createdAt: SINCE,
  updatedAt: SINCE,
  ...extra,
});

const system = (lastModified: string[]) => [
  prop('hs_object_id', 'number', 'number', { readOnlyValue: true }),
  prop('createdate', 'datetime', 'date', { readOnlyValue: true }),
  ...lastModified.map((name) => prop(name, 'datetime', 'date', { readOnlyValue: true })),
];

/**
 * The properties an account has before anyone creates one, each in its type's default group.
 * `currencies`: a multi-currency account's currencies (company currency first); empty for an account
 * with one currency, which has no per-currency properties (catalogue.ts).
 */
export function defaultProperties(type: string, currencies: readonly string[] = []): PropertyDef[] {
  return [...builtIn(type), ...currencyProperties(type, currencies)].map((p) => ({ ...p, groupName: defaultGroupOf(type) }));
}

/** A product's price in one currency of a multi-currency account: hs_price_<code in lower case>. */
export const productPriceProperty = (code: string) => `hs_price_${code.toLowerCase()}`;

// Multi-currency accounts: a deal's currency (deal_currency_code, one of the account's currencies), a line
// item's (hs_line_item_currency_code) and a product's price per currency (docs/crm-wire-behaviour.md).
function currencyProperties(type: string, currencies: readonly string[]): PropertyDef[] {
  if (currencies.length === 0) return [];
  const codes = options(...currencies);
  switch (type) {
    case 'deals':
      return [prop('deal_currency_code', 'enumeration', 'select', { label: 'Currency', options: codes })];
    case 'line_items':
      return [prop('hs_line_item_currency_code', 'enumeration', 'select', { label: 'Currency', options: codes })];
    case 'products':
      return currencies.map((code) => prop(productPriceProperty(code), 'number', 'number', { label: `Unit price (${code})` }));
    default:
      return [];
  }
}

// The owner is an enumeration whose options are the portal's owners: checked against them (writes.ts).
const owner = () => prop(OWNER_PROPERTY, 'enumeration', 'select', { label: 'Owner' });
const options = (...values: string[]) => values.map((value, displayOrder) => ({ label: value, value, displayOrder, hidden: false }));

function builtIn(type: string): PropertyDef[] {
  switch (type) {
    case 'contacts':
      return [...system(['hs_lastmodifieddate', 'lastmodifieddate']), prop('email', 'string', 'text'), prop('firstname', 'string', 'text'), prop('lastname', 'string', 'text'), prop('phone', 'string', 'phonenumber'), owner()];
    case 'companies':
      return [...system(['hs_lastmodifieddate']), prop('name', 'string', 'text'), prop('domain', 'string', 'text'), prop('country', 'string', 'text'), owner()];
    case 'notes':
      return [...system(['hs_lastmodifieddate']), prop('hs_timestamp', 'datetime', 'date'), prop('hs_note_body', 'string', 'html'), prop('hs_attachment_ids', 'enumeration', 'checkbox'), owner()];
    case 'tasks':
      return [
        ...system(['hs_lastmodifieddate']),
        prop('hs_timestamp', 'datetime', 'date', { label: 'Due date' }),
        prop('hs_task_subject', 'string', 'text'),
        prop('hs_task_body', 'string', 'html'),
        // COMPLETED and NOT_STARTED are the guide's; its own example sends WAITING too.
        prop('hs_task_status', 'enumeration', 'select', { options: options('NOT_STARTED', 'IN_PROGRESS', 'WAITING', 'COMPLETED', 'DEFERRED') }),
        prop('hs_task_priority', 'enumeration', 'select', { options: options('LOW', 'MEDIUM', 'HIGH') }),
        prop('hs_task_type', 'enumeration', 'select', { options: options('EMAIL', 'CALL', 'TODO') }),
        owner(),
      ];
    case 'deals':
      return [
        ...system(['hs_lastmodifieddate']),
        owner(),
        prop('dealname', 'string', 'text'),
        prop('amount', 'number', 'number'),
        prop('closedate', 'datetime', 'date'),
        prop('dealstage', 'enumeration', 'radio'),
        prop('pipeline', 'enumeration', 'select'),
        // HubSpot's "Closed lost reason": free text a seller gives when a deal is lost.
        prop('closed_lost_reason', 'string', 'textarea', { label: 'Closed Lost Reason' }),
      ];
    case 'line_items':
      return [
        ...system(['hs_lastmodifieddate']),
        prop('name', 'string', 'text'),
        prop('price', 'number', 'number'),
        prop('quantity', 'number', 'number'),
        prop('hs_product_id', 'string', 'text'),
        prop('description', 'string', 'textarea'),
        // Issue #28: what a line item made from a product copies (catalogue.ts), and its net price,
        // which HubSpot calculates from price and quantity.
        prop('hs_sku', 'string', 'text', { label: 'SKU' }),
        prop('hs_recurring_billing_period', 'string', 'text', { label: 'Term' }),
        prop('amount', 'number', 'number', { label: 'Net price', readOnlyValue: true }),
      ];
    case 'products':
      return [
        ...system(['hs_lastmodifieddate']),
        prop('name', 'string', 'text', { label: 'Name' }),
        prop('price', 'number', 'number', { label: 'Unit price' }),
        prop('hs_sku', 'string', 'text', { label: 'SKU' }),
        prop('description', 'string', 'textarea', { label: 'Description' }),
        prop('hs_cost_of_goods_sold', 'number', 'number', { label: 'Unit cost' }),
        prop('hs_recurring_billing_period', 'string', 'text', { label: 'Term' }),
        owner(),
      ];
    default:
      // A custom object's own properties come with its schema (custom-objects.ts); an owner it has from the start [inf].
      return [...system(['hs_lastmodifieddate']), owner()];
  }
}
