// describeGlobal and describe bodies, in the shape Salesforce returns (the subset of keys clients
// read, plus the common flags so that generic tooling finds what it expects).
import { isFilterable, orgObjects, type FieldType, type SandboxField, type SandboxObject } from './schema.ts';

const SOAP_TYPES: Record<FieldType, string> = {
  id: 'tns:ID',
  reference: 'tns:ID',
  string: 'xsd:string',
  textarea: 'xsd:string',
  url: 'xsd:string',
  email: 'xsd:string',
  phone: 'xsd:string',
  picklist: 'xsd:string',
  date: 'xsd:date',
  datetime: 'xsd:dateTime',
  currency: 'xsd:double',
  double: 'xsd:double',
  boolean: 'xsd:boolean',
};

const objectUrls = (object: SandboxObject, version: string) => {
  const base = `/services/data/v${version}/sobjects/${object.name}`;
  return { sobject: base, describe: `${base}/describe`, rowTemplate: `${base}/{ID}` };
};

/** `unique` is the org's current setting (Setup can change it), the schema's by default. */
export function describeField(f: SandboxField, unique: boolean = f.unique): Record<string, unknown> {
  const textLike = ['string', 'textarea', 'url', 'email', 'phone', 'picklist', 'id', 'reference'].includes(f.type);
  const filterable = isFilterable(f);
  return {
    aggregatable: filterable && f.type !== 'boolean',
    autoNumber: false,
    byteLength: textLike ? f.length * 3 : 0,
    calculated: f.formula !== undefined,
    calculatedFormula: f.formula ?? null,
    cascadeDelete: false,
    caseSensitive: false,
    compoundFieldName: null,
    controllerName: null,
    createable: !f.system && !f.readOnlyByPermission && !f.formula,
    custom: f.custom,
    // A multi-currency org's CurrencyIsoCode is defaulted by its user's currency, not by a value of the field.
    defaultValue: typeof f.defaultValue === 'string' ? null : f.defaultValue,
    defaultValueFormula: null,
    defaultedOnCreate: f.system || f.type === 'boolean' || typeof f.defaultValue === 'string',
    dependentPicklist: false,
    deprecatedAndHidden: false,
    digits: 0,
    displayLocationInDecimal: false,
    encrypted: false,
    externalId: f.externalId,
    extraTypeInfo: f.type === 'url' ? 'url' : f.type === 'textarea' ? 'plaintextarea' : null,
    filterable,
    filteredLookupInfo: null,
    groupable: filterable && !['currency', 'datetime'].includes(f.type),
    highScaleNumber: false,
    htmlFormatted: false,
    idLookup: f.idLookup,
    inlineHelpText: null,
    label: f.label,
    length: textLike ? f.length : 0,
    mask: null,
    maskType: null,
    name: f.name,
    nameField: f.name === 'Name',
    namePointing: false,
    nillable: !f.required && !f.system && f.type !== 'boolean' && typeof f.defaultValue !== 'string',
    permissionable: !f.required && !f.system,
    picklistValues: f.picklistValues.map((value) => ({ active: true, defaultValue: false, label: value, validFor: null, value })),
    polymorphicForeignKey: false,
    precision: f.precision,
    queryByDistance: false,
    referenceTargetField: null,
    referenceTo: f.referenceTo,
    relationshipName: f.relationshipName,
    relationshipOrder: null,
    restrictedDelete: false,
    restrictedPicklist: f.restrictedPicklist,
    scale: f.scale,
    searchPrefilterable: false,
    soapType: SOAP_TYPES[f.type],
    sortable: filterable,
    type: f.type,
    unique,
    updateable: !f.system && !f.createOnly && !f.readOnlyByPermission && !f.formula,
    writeRequiresMasterRead: false,
  };
}

/** Child relationships pointing at `object`: Contacts, Opportunities, Marketplace_Entitlements__r ... */
function childRelationships(object: SandboxObject) {
  return orgObjects().flatMap((child) =>
    child.fields
      .filter((f) => f.referenceTo.includes(object.name))
      .map((f) => ({
        cascadeDelete: false,
        childSObject: child.name,
        deprecatedAndHidden: false,
        field: f.name,
        junctionIdListNames: [],
        junctionReferenceTo: [],
        relationshipName: child.childRelationshipName ?? (child.custom ? `${child.labelPlural.replaceAll(' ', '_')}__r` : child.labelPlural.replaceAll(' ', '')),
        restrictedDelete: false,
      })),
  );
}

function objectFlags(object: SandboxObject, version: string) {
  return {
    activateable: false,
    createable: true,
    custom: object.custom,
    customSetting: false,
    deletable: true,
    deprecatedAndHidden: false,
    feedEnabled: false,
    hasSubtypes: false,
    isSubtype: false,
    keyPrefix: object.keyPrefix,
    label: object.label,
    labelPlural: object.labelPlural,
    layoutable: true,
    mergeable: false,
    mruEnabled: true,
    name: object.name,
    queryable: true,
    replicateable: true,
    retrieveable: true,
    searchable: true,
    triggerable: true,
    undeletable: true,
    updateable: true,
    urls: objectUrls(object, version),
  };
}

export function describeGlobal(version: string) {
  return {
    encoding: 'UTF-8',
    maxBatchSize: 200,
    sobjects: orgObjects().map((o) => objectFlags(o, version)),
  };
}

export function describeObject(object: SandboxObject, version: string, isUnique: (field: SandboxField) => boolean = (f) => f.unique) {
  return {
    ...objectFlags(object, version),
    actionOverrides: [],
    childRelationships: childRelationships(object),
    compactLayoutable: true,
    fields: object.fields.map((f) => describeField(f, isUnique(f))),
    namedLayoutInfos: [],
    networkScopeFieldName: null,
    recordTypeInfos: [],
    searchLayoutable: true,
    supportedScopes: [{ label: 'All records', name: 'everything' }],
  };
}

/** GET /sobjects/{T}: the basic information resource. */
export function objectInfo(object: SandboxObject, version: string) {
  return { objectDescribe: objectFlags(object, version), recentItems: [] };
}

/** A record as the REST API renders it: attributes first, then the requested fields. */
export function renderRecord(object: SandboxObject, record: Record<string, unknown>, fields: SandboxField[], version: string) {
  const out: Record<string, unknown> = {
    attributes: { type: object.name, url: `/services/data/v${version}/sobjects/${object.name}/${String(record.Id)}` },
  };
  for (const f of fields) out[f.name] = record[f.name] ?? null;
  return out;
}
