// Table metadata: the standard tables the sandbox starts with (account, contact, opportunity), and
// the shapes custom tables, columns, alternate keys and lookups take once created through the
// metadata API. Everything the Web API does is driven by these definitions.
import { withSalesCatalogue } from './catalogue-schema.ts';

export type AttributeType =
  | 'String' | 'Memo' | 'Boolean' | 'Decimal' | 'Money' | 'Integer' | 'BigInt' | 'Double' | 'DateTime'
  | 'Lookup' | 'Customer' | 'Owner' | 'Picklist' | 'Uniqueidentifier' | 'State' | 'Status';

export type AttributeDef = {
  LogicalName: string;
  SchemaName: string;
  AttributeType: AttributeType;
  MetadataId: string;
  MaxLength?: number;
  /** DateTime: 'DateOnly' or 'DateAndTime'. */
  Format?: string;
  DateTimeBehavior?: 'UserLocal' | 'DateOnly' | 'TimeZoneIndependent';
  Targets?: string[];
  Precision?: number;
  MinValue?: number;
  MaxValue?: number;
  /** Picklist/State/Status option values. */
  Options?: number[];
  /** A choice column's option labels by value: its formatted value (the label a person sees). */
  OptionLabels?: Record<number, string>;
  IsValidForCreate: boolean;
  IsValidForUpdate: boolean;
  RequiredLevel: 'None' | 'ApplicationRequired' | 'SystemRequired' | 'Recommended';
  IsCustomAttribute: boolean;
  IsPrimaryId?: boolean;
  IsPrimaryName?: boolean;
  /** Filled by the server, never written by clients (createdon, versionnumber, fullname...). */
  computed?: boolean;
};

export type KeyIndexStatus = 'Pending' | 'InProgress' | 'Active' | 'Failed';
/** An alternate key. Its index is built by an asynchronous job (key-jobs.ts): `buildStartedAt` (ms since
 * the epoch, real time) is when the job was queued; the key identifies rows and enforces uniqueness only once Active. */
export type KeyDef = { LogicalName: string; SchemaName: string; KeyAttributes: string[]; EntityKeyIndexStatus: KeyIndexStatus; MetadataId: string; DisplayName: string; buildStartedAt?: number };
export type RelationshipDef = {
  SchemaName: string;
  ReferencingEntity: string;
  ReferencingAttribute: string;
  ReferencedEntity: string;
  ReferencedAttribute: string;
  ReferencingEntityNavigationPropertyName: string;
  ReferencedEntityNavigationPropertyName: string;
  MetadataId: string;
  IsCustomRelationship: boolean;
};

export type EntityDef = {
  LogicalName: string;
  SchemaName: string;
  EntitySetName: string;
  PrimaryIdAttribute: string;
  PrimaryNameAttribute: string;
  IsCustomEntity: boolean;
  MetadataId: string;
  DisplayName: string;
  Attributes: AttributeDef[];
  Keys: KeyDef[];
  ManyToOneRelationships: RelationshipDef[];
};

/** A stable GUID from a name, so standard metadata ids are the same in every sandbox. */
export function nameGuid(name: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const words: number[] = [];
  for (let round = 0; round < 4; round += 1) {
    for (const ch of `${round}:${name}`) {
      h1 = Math.imul(h1 ^ ch.charCodeAt(0), 0x01000193) >>> 0;
      h2 = Math.imul(h2 + ch.charCodeAt(0), 0x5bd1e995) >>> 0;
    }
    words.push((h1 ^ h2) >>> 0);
  }
  const hex = words.map((w) => w.toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

type Extra = Partial<AttributeDef>;
export function attr(table: string, name: string, type: AttributeType, extra: Extra = {}): AttributeDef {
  return {
    LogicalName: name,
    SchemaName: name.replace(/(^|_)([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase()),
    AttributeType: type,
    MetadataId: nameGuid(`${table}.${name}`),
    IsValidForCreate: true,
    IsValidForUpdate: true,
    RequiredLevel: 'None',
    IsCustomAttribute: false,
    ...(type === 'String' ? { MaxLength: 100 } : {}),
    ...(type === 'Memo' ? { MaxLength: 2000 } : {}),
    ...extra,
  };
}

export const SYSTEM = (table: string, id: string): AttributeDef[] => [
  attr(table, id, 'Uniqueidentifier', { IsPrimaryId: true, IsValidForUpdate: false, RequiredLevel: 'SystemRequired' }),
  attr(table, 'createdon', 'DateTime', { Format: 'DateAndTime', DateTimeBehavior: 'UserLocal', IsValidForCreate: false, IsValidForUpdate: false, computed: true }),
  attr(table, 'modifiedon', 'DateTime', { Format: 'DateAndTime', DateTimeBehavior: 'UserLocal', IsValidForCreate: false, IsValidForUpdate: false, computed: true }),
  attr(table, 'versionnumber', 'BigInt', { IsValidForCreate: false, IsValidForUpdate: false, computed: true }),
  attr(table, 'statecode', 'State', { Options: [0, 1], IsValidForCreate: false, RequiredLevel: 'SystemRequired' }),
  attr(table, 'statuscode', 'Status', { Options: [1, 2] }),
];

export function relationship(from: string, attribute: string, to: string, nav: string, toId: string): RelationshipDef {
  return {
    SchemaName: `${from}_${attribute}_${to}`,
    ReferencingEntity: from,
    ReferencingAttribute: attribute,
    ReferencedEntity: to,
    ReferencedAttribute: toId,
    ReferencingEntityNavigationPropertyName: nav,
    ReferencedEntityNavigationPropertyName: `${from}_${attribute}_${to}`,
    MetadataId: nameGuid(`rel:${from}.${attribute}.${to}`),
    IsCustomRelationship: false,
  };
}

/** A user-owned table's owner: the caller unless a create binds another (`ownerid@odata.bind: "/systemusers(<guid>)"`). */
export const ownerAttribute = (table: string) => attr(table, 'ownerid', 'Owner', { Targets: ['systemuser', 'team'], RequiredLevel: 'SystemRequired' });
export const ownerRelationship = (table: string) => relationship(table, 'ownerid', 'systemuser', 'ownerid', 'systemuserid');

/** The activity `task` (issue #27 section 1), regarding an account, an opportunity or a custom table made with HasActivities. */
export const taskRegarding = (table: string, id: string) => relationship('task', 'regardingobjectid', table, `regardingobjectid_${table}_task`, id);

export function standardEntities(): EntityDef[] {
  const account: EntityDef = {
    LogicalName: 'account', SchemaName: 'Account', EntitySetName: 'accounts', PrimaryIdAttribute: 'accountid', PrimaryNameAttribute: 'name',
    IsCustomEntity: false, MetadataId: nameGuid('entity:account'), DisplayName: 'Account',
    Attributes: [
      ...SYSTEM('account', 'accountid'),
      attr('account', 'name', 'String', { MaxLength: 160, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
      attr('account', 'accountnumber', 'String', { MaxLength: 20 }),
      attr('account', 'websiteurl', 'String', { MaxLength: 200 }),
      attr('account', 'emailaddress1', 'String', { MaxLength: 100 }),
      attr('account', 'telephone1', 'String', { MaxLength: 50 }),
      attr('account', 'address1_country', 'String', { MaxLength: 80 }),
      attr('account', 'description', 'Memo', { MaxLength: 2000 }),
      ownerAttribute('account'),
    ],
    Keys: [], ManyToOneRelationships: [ownerRelationship('account')],
  };
  const contact: EntityDef = {
    LogicalName: 'contact', SchemaName: 'Contact', EntitySetName: 'contacts', PrimaryIdAttribute: 'contactid', PrimaryNameAttribute: 'fullname',
    IsCustomEntity: false, MetadataId: nameGuid('entity:contact'), DisplayName: 'Contact',
    Attributes: [
      ...SYSTEM('contact', 'contactid'),
      attr('contact', 'firstname', 'String', { MaxLength: 50 }),
      attr('contact', 'lastname', 'String', { MaxLength: 50, RequiredLevel: 'ApplicationRequired' }),
      attr('contact', 'fullname', 'String', { MaxLength: 160, IsPrimaryName: true, IsValidForCreate: false, IsValidForUpdate: false, computed: true }),
      attr('contact', 'emailaddress1', 'String', { MaxLength: 100 }),
      attr('contact', 'telephone1', 'String', { MaxLength: 50 }),
      attr('contact', 'jobtitle', 'String', { MaxLength: 100 }),
      attr('contact', 'description', 'Memo', { MaxLength: 2000 }),
      attr('contact', 'parentcustomerid', 'Customer', { Targets: ['account', 'contact'] }),
      ownerAttribute('contact'),
    ],
    Keys: [],
    ManyToOneRelationships: [
      relationship('contact', 'parentcustomerid', 'account', 'parentcustomerid_account', 'accountid'),
      relationship('contact', 'parentcustomerid', 'contact', 'parentcustomerid_contact', 'contactid'),
      ownerRelationship('contact'),
    ],
  };
  const opportunity: EntityDef = {
    LogicalName: 'opportunity', SchemaName: 'Opportunity', EntitySetName: 'opportunities', PrimaryIdAttribute: 'opportunityid', PrimaryNameAttribute: 'name',
    IsCustomEntity: false, MetadataId: nameGuid('entity:opportunity'), DisplayName: 'Opportunity',
    Attributes: [
      ...SYSTEM('opportunity', 'opportunityid').map((a) => (a.LogicalName === 'statecode' ? { ...a, Options: [0, 1, 2] } : a.LogicalName === 'statuscode' ? { ...a, Options: [1, 2, 3, 4, 5] } : a)),
      attr('opportunity', 'name', 'String', { MaxLength: 300, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
      attr('opportunity', 'description', 'Memo', { MaxLength: 2000 }),
      attr('opportunity', 'estimatedvalue', 'Money', { Precision: 2, MinValue: -922337203685477, MaxValue: 922337203685477 }),
      attr('opportunity', 'estimatedclosedate', 'DateTime', { Format: 'DateOnly', DateTimeBehavior: 'DateOnly' }),
      attr('opportunity', 'stepname', 'String', { MaxLength: 200 }),
      attr('opportunity', 'salesstage', 'Picklist', { Options: [0, 1, 2, 3] }),
      attr('opportunity', 'closeprobability', 'Integer', { MinValue: 0, MaxValue: 100 }),
      attr('opportunity', 'parentaccountid', 'Lookup', { Targets: ['account'] }),
      attr('opportunity', 'parentcontactid', 'Lookup', { Targets: ['contact'] }),
      attr('opportunity', 'customerid', 'Customer', { Targets: ['account', 'contact'] }),
      // Set by WinOpportunity / LoseOpportunity from the opportunityclose activity (opportunity-states.ts).
      attr('opportunity', 'actualvalue', 'Money', { Precision: 2, MinValue: -922337203685477, MaxValue: 922337203685477 }),
      attr('opportunity', 'actualclosedate', 'DateTime', { Format: 'DateOnly', DateTimeBehavior: 'DateOnly' }),
      // Its own currency (Microsoft's opportunity table reference: TransactionCurrencyId, "Choose the local
      // currency for the record", ApplicationRequired; bound and checked by catalogue.ts) and the exchange rate
      // Dataverse sets from it (ExchangeRate, Decimal of precision 12, read-only).
      attr('opportunity', 'transactioncurrencyid', 'Lookup', { Targets: ['transactioncurrency'], RequiredLevel: 'ApplicationRequired' }),
      attr('opportunity', 'exchangerate', 'Decimal', { Precision: 12, MinValue: 0.000000000001, MaxValue: 100_000_000_000, IsValidForCreate: false, IsValidForUpdate: false }),
      ownerAttribute('opportunity'),
    ],
    Keys: [],
    ManyToOneRelationships: [
      relationship('opportunity', 'parentaccountid', 'account', 'parentaccountid', 'accountid'),
      relationship('opportunity', 'transactioncurrencyid', 'transactioncurrency', 'transactioncurrencyid', 'transactioncurrencyid'),
      relationship('opportunity', 'parentcontactid', 'contact', 'parentcontactid', 'contactid'),
      relationship('opportunity', 'customerid', 'account', 'customerid_account', 'accountid'),
      relationship('opportunity', 'customerid', 'contact', 'customerid_contact', 'contactid'),
      ownerRelationship('opportunity'),
    ],
  };
  // The activity WinOpportunity / LoseOpportunity create for each close (Microsoft's opportunityclose
  // table reference: subject, opportunityid, actualrevenue, actualend, description); completed at once.
  const opportunityclose: EntityDef = {
    LogicalName: 'opportunityclose', SchemaName: 'OpportunityClose', EntitySetName: 'opportunitycloses', PrimaryIdAttribute: 'activityid', PrimaryNameAttribute: 'subject',
    IsCustomEntity: false, MetadataId: nameGuid('entity:opportunityclose'), DisplayName: 'Opportunity Close',
    Attributes: [
      ...SYSTEM('opportunityclose', 'activityid').map((a) => (a.LogicalName === 'statecode' ? { ...a, Options: [0, 1, 2] } : a.LogicalName === 'statuscode' ? { ...a, Options: [1, 2, 3] } : a)),
      attr('opportunityclose', 'subject', 'String', { MaxLength: 200, IsPrimaryName: true }),
      attr('opportunityclose', 'description', 'Memo', { MaxLength: 2000 }),
      attr('opportunityclose', 'actualrevenue', 'Money', { Precision: 2, MinValue: -922337203685477, MaxValue: 922337203685477 }),
      attr('opportunityclose', 'actualend', 'DateTime', { Format: 'DateOnly', DateTimeBehavior: 'DateOnly' }),
      attr('opportunityclose', 'opportunityid', 'Lookup', { Targets: ['opportunity'] }),
    ],
    Keys: [],
    ManyToOneRelationships: [relationship('opportunityclose', 'opportunityid', 'opportunity', 'opportunityid', 'opportunityid')],
  };
  // The organisation's users (users.ts seeds them): owners of records.
  const systemuser: EntityDef = {
    LogicalName: 'systemuser', SchemaName: 'SystemUser', EntitySetName: 'systemusers', PrimaryIdAttribute: 'systemuserid', PrimaryNameAttribute: 'fullname',
    IsCustomEntity: false, MetadataId: nameGuid('entity:systemuser'), DisplayName: 'User',
    Attributes: [
      ...SYSTEM('systemuser', 'systemuserid'),
      attr('systemuser', 'fullname', 'String', { MaxLength: 200, IsPrimaryName: true, IsValidForCreate: false, IsValidForUpdate: false }),
      attr('systemuser', 'internalemailaddress', 'String', { MaxLength: 100 }),
    ],
    Keys: [], ManyToOneRelationships: [],
  };
  // Microsoft's task table reference: subject, description, scheduledend (Due), prioritycode, regarding,
  // owner; states Open 0 (Not Started 2, In Progress 3, Waiting 4, Deferred 7), Completed 1 (5),
  // Canceled 2 (6), checked by task-states.ts. statecode is not valid for create.
  const task: EntityDef = {
    LogicalName: 'task', SchemaName: 'Task', EntitySetName: 'tasks', PrimaryIdAttribute: 'activityid', PrimaryNameAttribute: 'subject',
    IsCustomEntity: false, MetadataId: nameGuid('entity:task'), DisplayName: 'Task',
    Attributes: [
      ...SYSTEM('task', 'activityid').map((a) => (a.LogicalName === 'statecode' ? { ...a, Options: [0, 1, 2] } : a.LogicalName === 'statuscode' ? { ...a, Options: [2, 3, 4, 7, 5, 6] } : a)),
      attr('task', 'subject', 'String', { MaxLength: 200, IsPrimaryName: true, RequiredLevel: 'ApplicationRequired' }),
      attr('task', 'description', 'Memo', { MaxLength: 2000 }),
      attr('task', 'scheduledend', 'DateTime', { Format: 'DateAndTime', DateTimeBehavior: 'UserLocal' }),
      attr('task', 'actualend', 'DateTime', { Format: 'DateAndTime', DateTimeBehavior: 'UserLocal' }),
      attr('task', 'prioritycode', 'Picklist', { Options: [0, 1, 2], OptionLabels: { 0: 'Low', 1: 'Normal', 2: 'High' } }),
      attr('task', 'regardingobjectid', 'Lookup', { Targets: ['account', 'opportunity'] }),
      ownerAttribute('task'),
    ],
    Keys: [],
    ManyToOneRelationships: [taskRegarding('account', 'accountid'), taskRegarding('opportunity', 'opportunityid'), ownerRelationship('task')],
  };
  // The currency rows an opportunity's (and a price list's) transactioncurrencyid names: their definition,
  // so a client reads the table as any other (Microsoft's TransactionCurrency table reference: entity set
  // transactioncurrencies, primary id transactioncurrencyid, primary name currencyname); its rows are
  // currencies.ts's, read-only.
  const transactioncurrency: EntityDef = {
    LogicalName: 'transactioncurrency', SchemaName: 'TransactionCurrency', EntitySetName: 'transactioncurrencies', PrimaryIdAttribute: 'transactioncurrencyid', PrimaryNameAttribute: 'currencyname',
    IsCustomEntity: false, MetadataId: nameGuid('entity:transactioncurrency'), DisplayName: 'Currency',
    Attributes: [
      ...SYSTEM('transactioncurrency', 'transactioncurrencyid'),
      attr('transactioncurrency', 'currencyname', 'String', { MaxLength: 100, IsPrimaryName: true, RequiredLevel: 'SystemRequired' }),
      attr('transactioncurrency', 'isocurrencycode', 'String', { MaxLength: 5, RequiredLevel: 'SystemRequired' }),
      attr('transactioncurrency', 'currencysymbol', 'String', { MaxLength: 13, RequiredLevel: 'SystemRequired' }),
    ],
    Keys: [], ManyToOneRelationships: [],
  };
  // The sales catalogue (issue #28): products, unit groups and units, price lists and their items, and
  // opportunity products, with the opportunity's price list (catalogue-schema.ts).
  return withSalesCatalogue([account, contact, opportunity, opportunityclose, systemuser, task, transactioncurrency]);
}

export const isLookup = (a: AttributeDef) => a.AttributeType === 'Lookup' || a.AttributeType === 'Customer' || a.AttributeType === 'Owner';
export const isGuidAttribute = (a: AttributeDef) => a.AttributeType === 'Uniqueidentifier' || isLookup(a);
