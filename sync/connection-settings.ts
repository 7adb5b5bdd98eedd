// What a connection holds. Settings are shown and edited in clear; secrets are sealed in the store.
// Validated with zod whenever a connection is saved or loaded, so a bad value names its field.
import { z } from 'zod';
import { CHOOSABLE_ENTITIES, ENTITIES, withCatalogueFlows, type Entity } from '../mappings/types.ts';

const entityOverrides = z.object({
  rename: z.record(z.string(), z.string()).optional(),
  disable: z.array(z.string()).optional(),
  constants: z.record(z.string(), z.unknown()).optional(),
  picklists: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  map: z.record(z.string(), z.string()).optional(),
  createOnly: z.array(z.string()).optional(),
  sellerKeeps: z.array(z.string()).optional(),
});

/** A connection's mapping overrides, by entity (mappings/overrides.ts says what each does). */
export const mappingOverridesSchema = z.partialRecord(z.enum(CHOOSABLE_ENTITIES as [Entity, ...Entity[]]), entityOverrides.strict());

/** Salesforce: a connected app in an org (login URL, consumer key; the secret is sealed). */
const salesforceSettingsSchema = z.object({
  kind: z.literal('salesforce'),
  loginUrl: z.url(),
  clientId: z.string().min(1),
  apiVersion: z.string().regex(/^\d+\.\d$/).optional(),
  bulkThreshold: z.number().int().positive().optional(),
  reservedShare: z.number().min(0).max(0.9).optional(),
  /** The CRM organization the credentials reached when the connection was saved (Salesforce org id). */
  organizationId: z.string().min(1).optional(),
  /**
   * The CRM ids the product catalogue (issue #28) writes with, as `crm-sync setup` found or made them:
   * price books (Salesforce: standardPriceBookId, priceBookId), the unit group, its base unit and one price
   * list per currency (Dynamics: unitGroupId, baseUnitId, priceList:<ISO code>). Kept here so a sync run
   * reads none of them again; a connection set up before the catalogue has none (setup adds them).
   */
  catalogueIds: z.record(z.string(), z.string().min(1)).optional(),
});

/**
 * HubSpot: an account reached with a private app's access token, or an OAuth app (client id here; the
 * client secret and refresh token are sealed). `reservedShare` of the daily limit is left to the
 * account's other integrations.
 */
const hubspotSettingsSchema = z.object({
  kind: z.literal('hubspot'),
  baseUrl: z.url().default('https://api.hubapi.com'),
  auth: z.enum(['private-app', 'oauth']),
  clientId: z.string().min(1).optional(),
  /** The HubSpot account (portal, "hub") id: links to records in HubSpot's app use it. */
  portalId: z.string().regex(/^\d+$/, 'must be the account id HubSpot shows (digits)').optional(),
  reservedShare: z.number().min(0).max(0.9).optional(),
  searchPerSecond: z.number().positive().max(10).optional(),
  /** Where entitlements go: the custom object, or the documented fallback for accounts without custom objects. */
  entitlementObject: z.enum(['marketplace_entitlement', 'line_items']).default('marketplace_entitlement'),
  /**
   * The custom object's objectTypeId in this account (2-...), as `crm-sync setup` found or created it:
   * HubSpot's API paths name a custom object by it, never by its bare name. Connections saved before
   * it was kept have none: the connector looks it up in the account's schemas.
   */
  entitlementObjectTypeId: z.string().regex(/^2-\d+$/, 'must be a custom object type id as HubSpot gives it (2-...)').optional(),
  organizationId: z.string().min(1).optional(),
}).refine((crm) => crm.auth !== 'oauth' || crm.clientId, { message: 'an OAuth HubSpot connection needs the app\'s clientId', path: ['clientId'] });

/**
 * Dynamics 365: a Dataverse environment reached with an app registration's client credentials
 * (Microsoft identity platform; the client secret is sealed). `concurrency` bounds this connection's
 * requests in flight (Dataverse allows 52 per user; other integrations share them).
 */
const dynamicsSettingsSchema = z.object({
  kind: z.literal('dynamics'),
  /** The environment's URL, e.g. https://contoso.crm.dynamics.com/ */
  orgUrl: z.url(),
  authority: z.url().default('https://login.microsoftonline.com'),
  tenantId: z.string().min(1),
  clientId: z.string().min(1),
  /** The token's scope; default `<orgUrl>/.default`. */
  scope: z.string().min(1).optional(),
  apiVersion: z.string().regex(/^\d+\.\d+$/).default('9.2'),
  concurrency: z.number().int().min(1).max(52).default(8),
  /** The longest one Dataverse call may take before it is given up and tried again (default 120 s). */
  requestTimeoutMs: z.number().int().min(100).max(600_000).optional(),
  organizationId: z.string().min(1).optional(),
  /**
   * The CRM ids the product catalogue (issue #28) writes with, as `crm-sync setup` found or made them:
   * price books (Salesforce: standardPriceBookId, priceBookId), the unit group, its base unit and one price
   * list per currency (Dynamics: unitGroupId, baseUnitId, priceList:<ISO code>). Kept here so a sync run
   * reads none of them again; a connection set up before the catalogue has none (setup adds them).
   */
  catalogueIds: z.record(z.string(), z.string().min(1)).optional(),
});

/**
 * The CRM side of a connection, one member per CRM kind (HubSpot and Dynamics 365 add theirs).
 * Connections saved before the union carry no `kind`: they are Salesforce connections.
 */
export const crmSettingsSchema = z.preprocess(
  (value) => (value && typeof value === 'object' && !('kind' in value) ? { kind: 'salesforce', ...value } : value),
  z.discriminatedUnion('kind', [salesforceSettingsSchema, hubspotSettingsSchema, dynamicsSettingsSchema]),
);

export type CrmSettings = z.infer<typeof crmSettingsSchema>;

/**
 * Which CRM records are shared with a marketplace partner as co-sell referrals: a checkbox that is
 * true (default `Cosell_Share__c`), a picklist holding one of some values, or a stage among some stages.
 */
export const shareRuleSchema = z.discriminatedUnion('by', [
  z.object({ by: z.literal('checkbox'), field: z.string().min(1) }),
  z.object({ by: z.literal('picklist'), field: z.string().min(1), values: z.array(z.string().min(1)).min(1) }),
  z.object({ by: z.literal('stage'), stages: z.array(z.string().min(1)).min(1) }),
]);
export type ShareRule = z.infer<typeof shareRuleSchema>;
export const DEFAULT_SHARE_RULE: ShareRule = { by: 'checkbox', field: 'Cosell_Share__c' };
/** The share checkbox each CRM's project fields provide (a connection without its own rule uses its CRM's). */
export const DEFAULT_SHARE_RULES: Record<CrmSettings['kind'], ShareRule> = {
  salesforce: DEFAULT_SHARE_RULE,
  hubspot: { by: 'checkbox', field: 'cosell_share' },
  dynamics: { by: 'checkbox', field: 'ccs_cosellshare' },
};

/**
 * A new connection's co-sell window (and the stage sync's CRM side) starts this many days back: a
 * quarter of changes reaches the deals being worked now, and in an org with years of Opportunities a
 * quarter of SystemModstamp stays under the query optimizer's selectivity threshold (README "Settings").
 */
export const DEFAULT_COSELL_START_HORIZON_DAYS = 90;

/** A renewal opportunity is made this many days before its entitlement ends, unless the connection says otherwise (README "Settings"). */
export const DEFAULT_RENEWAL_LEAD_DAYS = 90;

/** A backfill (and the timeline's first run) writes the events of this many days back, not the whole history. */
export const DEFAULT_TIMELINE_BACKFILL_DAYS = 30;

/**
 * An event type names notification events (contract §2.8) by their entityType, optionally their action,
 * optionally the entity's status after it: `OFFER`, `OFFER:STATUS_CHANGED`, `OFFER:STATUS_CHANGED:ACCEPTED`
 * (any case). mappings/canonical/timeline.ts says how an event matches.
 */
const eventTypeSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z_]+(:[A-Za-z_]+(:[A-Za-z0-9_ -]+)?)?$/, 'must be an event type such as OFFER, OFFER:STATUS_CHANGED or OFFER:STATUS_CHANGED:ACCEPTED');

/** The price book (price lists) a connection's catalogue prices go into when it names none. */
export const DEFAULT_CATALOGUE_PRICE_BOOK = 'Commerce Marketplace Products';

export const timelineSettingsSchema = z.object({
  /**
   * 'default': every business event about a record the connection syncs (audit-only events, with no
   * delivery channel and requireAudit, never); or exactly the listed event types.
   */
  eventTypes: z.union([z.literal('default'), z.array(eventTypeSchema).min(1)]).default('default'),
  /** 'action-items': events marked isActionItem are open tasks, the others completed activities; or the listed event types are open tasks. */
  openTasksFor: z.union([z.literal('action-items'), z.array(eventTypeSchema)]).default('action-items'),
  backfillDays: z.number().int().min(1).max(3650).default(DEFAULT_TIMELINE_BACKFILL_DAYS),
}).strict();
export type TimelineSettings = z.infer<typeof timelineSettingsSchema>;

export const connectionSettingsSchema = z.object({
  commerce: z.object({
    baseUrl: z.url(),
    authUrl: z.url(),
    clientId: z.string().min(1),
    organizationId: z.string().min(1),
    /**
     * The commerce client's per-request timeout (default 30 s). It also bounds how long a create whose
     * answer was lost is waited out before it is looked for (activities/claimed-creates.ts): a service
     * commits a request no later than the client gives up on it.
     */
    requestTimeoutMs: z.number().int().min(1000).max(300_000).optional(),
  }),
  crm: crmSettingsSchema,
  /**
   * Whether this connection writes CRM ids back onto commerce records. Only one connection per commerce
   * organization and CRM kind does (two orgs, UAT and production, would overwrite each other's ids for
   * ever). Unset on connections saved before the rule: they write back.
   */
  writeBack: z.boolean().optional(),
  /** The flows it syncs; choosing `catalogue` brings its CRM's price flows with it, and only then (withCatalogueFlows, below). */
  entities: z.array(z.enum(CHOOSABLE_ENTITIES as [Entity, ...Entity[]])).min(1).default([...ENTITIES]),
  /** CRM-to-commerce co-sell: opportunities shared with a partner become referrals (its own schedule). */
  cosell: z
    .object({
      enabled: z.boolean().default(true),
      /** Unset: the CRM's own default (DEFAULT_SHARE_RULES). */
      share: shareRuleSchema.optional(),
      /**
       * The second signal a shared record's referral waits for before it is submitted to the partner (a
       * checkbox such as Cosell_Submit__c, a picklist value, or a stage). Unset: submitted in the run
       * that creates it, as soon as it validates (README "Co-sell lifecycle").
       */
      submit: shareRuleSchema.optional(),
      /** Who owns each two-way field: the commerce side, the CRM, or the latest writer (each side's own clock). */
      owners: z.object({ stage: z.enum(['commerce', 'crm', 'latest']).default('latest') }).default({ stage: 'latest' }),
      /** Stage tables replacing the defaults (mappings/salesforce/stages.ts), one per direction. */
      stages: z.object({ toCommerce: z.record(z.string(), z.string()).optional(), toCrm: z.record(z.string(), z.string()).optional() }).default({}),
      /**
       * How far back a connection's first co-sell read goes (days of record changes; unset:
       * DEFAULT_COSELL_START_HORIZON_DAYS). README "Settings" says why the default.
       */
      startHorizonDays: z.number().int().min(1).max(36_500).optional(),
      /**
       * A deal desk's approval before a private offer asked for from the CRM goes to the buyer (issue #28;
       * docs/cosell.md "Private offers from Opportunity products"): the draft is held until `field` holds
       * `approvedValue` (as the CRM's own approval process sets it), then published; `approvedByField`, when
       * given, names who approved for the audit trail. Unset: no approval, the draft is published at once.
       */
      offerApproval: z.object({ field: z.string().trim().min(1), approvedValue: z.string().min(1), approvedByField: z.string().trim().min(1).optional() }).strict().optional(),
    })
    .default({ enabled: true, owners: { stage: 'latest' }, stages: {} }),
  /** Renewals (the renewal flow, when the connection syncs it): the opportunity is made `leadDays` before an entitlement ends (unset: DEFAULT_RENEWAL_LEAD_DAYS). */
  renewals: z.object({ leadDays: z.number().int().min(1).max(3650).optional() }).optional(),
  /**
   * The timeline (issue #27 section 1; docs/timeline.md): which notification events become activities on
   * the CRM records they concern, which of those are open tasks, and how far back a backfill goes.
   */
  timeline: timelineSettingsSchema.default({ eventTypes: 'default', openTasksFor: 'action-items', backfillDays: DEFAULT_TIMELINE_BACKFILL_DAYS }),
  /**
   * The product catalogue (issue #28; docs/private-offers.md): the price book (Salesforce) or the price
   * lists' name (Dynamics: "<priceBook> (<ISO code>)", one per currency) the catalogue's prices go into.
   */
  catalogue: z.object({ priceBook: z.string().trim().min(1).max(80).default(DEFAULT_CATALOGUE_PRICE_BOOK) }).strict().default({ priceBook: DEFAULT_CATALOGUE_PRICE_BOOK }),
  overrides: mappingOverridesSchema.default({}),
  schedule: z
    .object({
      every: z.string().regex(/^\d+(s|m|h)$/).default('5m'),
      realtimeEvery: z.string().regex(/^\d+(s|m|h)$/).default('30s'),
      lookbackSeconds: z.number().int().min(0).default(600),
      pageSize: z.number().int().min(2).max(1000).default(1000),
      /** The reconciliation pass: re-reads everything and writes only what differs (the safety net). */
      reconcileEvery: z.string().regex(/^\d+(s|m|h)$/).default('24h'),
      /** The CRM-to-commerce co-sell pass: every 30 s, so an opportunity shared in the CRM is a referral
       * within a minute at the 95th percentile (bench/freshness.ts); a quiet pass is a few queries. */
      cosellEvery: z.string().regex(/^\d+(s|m|h)$/).default('30s'),
    })
    .default({ every: '5m', realtimeEvery: '30s', lookbackSeconds: 600, pageSize: 1000, reconcileEvery: '24h', cosellEvery: '30s' }),
}).transform((settings) => ({
  ...settings,
  entities: withCatalogueFlows(settings.entities, settings.crm.kind),
  cosell: { ...settings.cosell, share: settings.cosell.share ?? DEFAULT_SHARE_RULES[settings.crm.kind] },
}));

export type ConnectionSettings = z.infer<typeof connectionSettingsSchema>;

export const connectionSecretsSchema = z.object({
  commerceClientSecret: z.string().min(1),
  /** Salesforce connected app, HubSpot OAuth app and Dynamics app registration secret. */
  crmClientSecret: z.string().min(1).optional(),
  crmRefreshToken: z.string().min(1).optional(),
  /** HubSpot private app access token. */
  crmAccessToken: z.string().min(1).optional(),
});

export type ConnectionSecrets = z.infer<typeof connectionSecretsSchema>;
