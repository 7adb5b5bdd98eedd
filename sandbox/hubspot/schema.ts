// The object types the sandbox serves and the properties each starts with. Standard objects are
// reachable by name or objectTypeId (deals = 0-3); the custom object by its name or 2-1234567.
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

export type ObjectTypeDef = { name: string; objectTypeId: string; aliases: string[] };

export const OBJECT_TYPES: readonly ObjectTypeDef[] = [
  { name: 'contacts', objectTypeId: '0-1', aliases: ['contact'] },
  { name: 'companies', objectTypeId: '0-2', aliases: ['company'] },
  { name: 'deals', objectTypeId: '0-3', aliases: ['deal'] },
  { name: 'line_items', objectTypeId: '0-8', aliases: ['line_item'] },
  { name: 'marketplace_entitlement', objectTypeId: '2-1234567', aliases: ['p_marketplace_entitlement'] },
];

/**
 * Properties that identify a record although their definition says hasUniqueValue false: HubSpot
 * keeps one contact per email (a second is 409 "Contact already exists") and upserts contacts by it.
 */
export const IDENTITY_PROPERTIES: Readonly<Record<string, readonly string[]>> = { contacts: ['email'] };

export const isIdentity = (type: string, name: string) => IDENTITY_PROPERTIES[type]?.includes(name) ?? false;

export function findObjectType(nameOrId: string): ObjectTypeDef | undefined {
  const key = nameOrId.toLowerCase();
  return OBJECT_TYPES.find((t) => t.name === key || t.objectTypeId === key || t.aliases.includes(key));
}

const SINCE = '2020-01-01T00:00:00.000Z';
const prop = (name: string, type: PropertyType, fieldType: string, extra: Partial<PropertyDef> = {}): PropertyDef => ({
  name,
  label: name,
  type,
  fieldType,
  groupName: 'information',
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

/** The properties an account has before anyone creates one. */
export function defaultProperties(type: string): PropertyDef[] {
  switch (type) {
    case 'contacts':
      return [...system(['hs_lastmodifieddate', 'lastmodifieddate']), prop('email', 'string', 'text'), prop('firstname', 'string', 'text'), prop('lastname', 'string', 'text'), prop('phone', 'string', 'phonenumber')];
    case 'companies':
      return [...system(['hs_lastmodifieddate']), prop('name', 'string', 'text'), prop('domain', 'string', 'text'), prop('country', 'string', 'text')];
    case 'deals':
      return [
        ...system(['hs_lastmodifieddate']),
        prop('dealname', 'string', 'text'),
        prop('amount', 'number', 'number'),
        prop('closedate', 'datetime', 'date'),
        prop('dealstage', 'enumeration', 'radio'),
        prop('pipeline', 'enumeration', 'select'),
      ];
    case 'line_items':
      return [...system(['hs_lastmodifieddate']), prop('name', 'string', 'text'), prop('price', 'number', 'number'), prop('quantity', 'number', 'number'), prop('hs_product_id', 'string', 'text'), prop('description', 'string', 'textarea')];
    case 'marketplace_entitlement':
      return [...system(['hs_lastmodifieddate']), prop('entitlement_name', 'string', 'text', { hubspotDefined: false }), prop('entitlement_id', 'string', 'text', { hubspotDefined: false, hasUniqueValue: true })];
    default:
      return [];
  }
}
