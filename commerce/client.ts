// The typed client of the Marketplace Commerce Service. Every call goes through the operation
// catalogue (method and path template from the contract), the token provider and the retrying HTTP
// layer. Records come back parsed leniently (models.ts); lists come back as async iterators of pages.
//
// Where the contract is silent the client follows docs/commerce-api-assumptions.md, as the sandbox does.
// To use the real service, give the real base URL, token host and OAuth application credentials:
//   createCommerceClient({ baseUrl: 'https://<api host>', authUrl: 'https://<token host>', clientId, clientSecret })
import { TokenProvider } from './auth.ts';
import { createHttp, type HttpOptions } from './http.ts';
import { changedSince, sort } from './filter.ts';
import { parseRecord, type Entitlement, type EntitlementTerm, type NotificationEvent, type Offer, type Organization, type Product, type Referral, type ResourceName, type ResourceType, type BillingAddonRecord, type WorkloadMetaInfo } from './models.ts';
import { expandPath, getOperation, type OperationKey, type PathParams } from './operations.ts';
import { eventPages, listPages, queryPages, type Fetch } from './paging.ts';
import { retryPolicyFor } from './retry-policy.ts';
import { parseServicesAndQuotas, type ServicesAndQuotas } from './quota-snapshot.ts';

export type CommerceClientOptions = {
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
} & Pick<HttpOptions, 'timeoutMs' | 'retries' | 'minRetryDelayMs' | 'maxRetryDelayMs' | 'maxRetryAfterMs' | 'onRetry' | 'maxConnectionsPerOrigin' | 'quotaPacing'>;

export type Query = Record<string, string | number | boolean | undefined>;

/** Filters of List Offers (§4.2). */
export type OfferListFilters = {
  status?: string; partner?: string; offerType?: string; productId?: string; buyerId?: string; crmBDealId?: string;
  crmAOpportunityId?: string; crmCOpportunityId?: string; contactId?: string; channelType?: 'DIRECT' | 'RESALE' | (string & {});
  pricingType?: string; productType?: string;
};

/** Filters of List Products (A18). */
export type ProductListFilters = { partner?: string; status?: string; productType?: string };

export type QueryOptions = { q?: string; s?: string; pageSize?: number; /** 1-based page to start at (default 1). */ startPage?: number };

export function createCommerceClient(options: CommerceClientOptions) {
  const tokens = new TokenProvider({ authUrl: options.authUrl, baseUrl: options.baseUrl, clientId: options.clientId, clientSecret: options.clientSecret, fetch: options.fetch, timeoutMs: options.timeoutMs });
  const http = createHttp({ ...options, tokens });

  /** Any of the 156 operations by its catalogue key, with typed path parameters. */
  function call<K extends OperationKey>(key: K, params: PathParams<K>, init: { query?: Query; body?: unknown } = {}): Promise<unknown> {
    const operation = getOperation(key);
    return http.request({
      operation: key,
      method: operation.method,
      path: expandPath(operation.path, params as Record<string, string>),
      query: init.query,
      body: init.body,
      policy: retryPolicyFor(operation),
    });
  }

  /** One record, validated: a record without what the worker needs is an error naming the field. */
  async function one<R extends ResourceName>(resource: R, pending: Promise<unknown>): Promise<ResourceType[R]> {
    const parsed = parseRecord(resource, await pending);
    if (!parsed.ok) throw parsed.error;
    return parsed.record;
  }

  const pager = <K extends OperationKey>(key: K, params: PathParams<K>, extra: Query = {}): Fetch => (query) => call(key, params, { query: { ...extra, ...query } });

  return {
    call,
    tokens,

    async organizations(): Promise<Organization[]> {
      const rows = (await call('GET /org', {})) as unknown[];
      return rows.map((row) => {
        const parsed = parseRecord('organization', row);
        if (!parsed.ok) throw parsed.error;
        return parsed.record;
      });
    },

    /** The organization's services and quotas snapshot (A20), read leniently; the read is never paced nor counted. */
    servicesAndQuotas: async (orgId: string): Promise<ServicesAndQuotas> => parseServicesAndQuotas(await call('GET /org/{orgId}/services-and-quotas', { orgId })),

    entitlements: {
      query: (orgId: string, query: QueryOptions = {}) => queryPages('entitlement', pager('GET /org/{orgId}/entitlement/query', { orgId }), query),
      list: (orgId: string, paging: { limit?: number } = {}) => listPages('entitlement', pager('GET /org/{orgId}/entitlement', { orgId }), paging),
      get: (orgId: string, entitlementId: string): Promise<Entitlement> => one('entitlement', call('GET /org/{orgId}/entitlement/{entitlementId}', { orgId, entitlementId })),
      terms: (orgId: string, entitlementId: string, paging: { limit?: number } = {}) =>
        listPages('entitlementTerm', pager('GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm', { orgId, entitlementId }), paging),
      term: (orgId: string, entitlementId: string, entitlementTermId: string): Promise<EntitlementTerm> =>
        one('entitlementTerm', call('GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm/{entitlementTermId}', { orgId, entitlementId, entitlementTermId })),
      updateMetaInfo: (orgId: string, entitlementId: string, patch: Partial<WorkloadMetaInfo>): Promise<Entitlement> =>
        one('entitlement', call('PATCH /org/{orgId}/entitlement/{entitlementId}/metaInfo', { orgId, entitlementId }, { body: patch })),
      applyAddon: (orgId: string, entitlementId: string, addon: BillingAddonRecord): Promise<Entitlement> =>
        one('entitlement', call('POST /org/{orgId}/entitlement/{entitlementId}/addon', { orgId, entitlementId }, { body: addon })),
    },

    offers: {
      list: (orgId: string, filters: OfferListFilters & { limit?: number } = {}) => {
        const { limit, ...rest } = filters;
        return listPages('offer', pager('GET /org/{orgId}/offer', { orgId }, rest), { limit });
      },
      query: (orgId: string, query: QueryOptions = {}) => queryPages('offer', pager('GET /org/{orgId}/offer/query', { orgId }), query),
      get: (orgId: string, offerId: string): Promise<Offer> => one('offer', call('GET /org/{orgId}/offer/{offerId}', { orgId, offerId })),
      getByExternalId: (orgId: string, offerExternalId: string): Promise<Offer> =>
        one('offer', call('GET /org/{orgId}/offerExternalId/{offerExternalId}', { orgId, offerExternalId })),
      updateMetaInfo: (orgId: string, offerId: string, patch: Partial<WorkloadMetaInfo>): Promise<Offer> =>
        one('offer', call('PATCH /org/{orgId}/offer/{offerId}/metaInfo', { orgId, offerId }, { body: patch })),
      /** Repeated within 50 s at most, relying on the service's 60-second deduplication of identical bodies (§8). */
      create: (orgId: string, offer: Partial<Offer>): Promise<Offer> => one('offer', call('POST /org/{orgId}/offer', { orgId }, { body: offer })),
      /**
       * A draft offer (A9). By default it is sent to the marketplace at once; `hold: true` keeps it a draft
       * (subStatus DRAFT, A19) until `publish`. Not retried after an ambiguous failure: find it by its CRM id.
       */
      draft: (orgId: string, offer: Partial<Offer>, options: { hold?: boolean } = {}): Promise<Offer> =>
        one('offer', call('POST /org/{orgId}/draftOffer', { orgId }, { body: options.hold ? { ...offer, subStatus: 'DRAFT' } : offer })),
      /** Merges `patch` into a PENDING_CREATE draft (A9, A19): terms it sends are checked against the product; a held draft stays held. */
      updateDraft: (orgId: string, offerId: string, patch: Partial<Offer>): Promise<Offer> =>
        one('offer', call('POST /org/{orgId}/draftOffer', { orgId }, { body: { ...patch, id: offerId } })),
      /**
       * Sends a held draft to the marketplace (A19: POST {O}/offer with its id). A repeat within 60 s gets
       * the first answer (§8), so the create's retry policy covers it; an offer that is no held draft is a 409 naming its status.
       */
      publish: (orgId: string, offerId: string): Promise<Offer> => one('offer', call('POST /org/{orgId}/offer', { orgId }, { body: { id: offerId } })),
      cancel: (orgId: string, offerId: string): Promise<Offer> => one('offer', call('POST /org/{orgId}/offer/{offerId}/cancel', { orgId, offerId }, { body: {} })),
      extendExpiryDate: (orgId: string, offerId: string, expireTime: Date): Promise<Offer> =>
        one('offer', call('POST /org/{orgId}/offer/{offerId}/extendExpiryDate', { orgId, offerId }, { body: { expireTime: expireTime.toISOString() } })),
      /** The same as extendExpiryDate (§3.2: PENDING_ACCEPTANCE, EXPIRED, ACCEPTED or UPDATE_FAILED only). */
      extendExpiry: (orgId: string, offerId: string, expireTime: Date): Promise<Offer> =>
        one('offer', call('POST /org/{orgId}/offer/{offerId}/extendExpiryDate', { orgId, offerId }, { body: { expireTime: expireTime.toISOString() } })),
      delete: (orgId: string, offerId: string): Promise<Offer> => one('offer', call('DELETE /org/{orgId}/offer/{offerId}', { orgId, offerId })),
    },

    products: {
      list: (orgId: string, filters: ProductListFilters & { limit?: number } = {}) => {
        const { limit, ...rest } = filters;
        return listPages('product', pager('GET /org/{orgId}/product', { orgId }, rest), { limit });
      },
      byPartner: (orgId: string, partner: string, paging: { limit?: number } = {}) => listPages('product', pager('GET /org/{orgId}/partner/{partner}/product', { orgId, partner }), paging),
      query: (orgId: string, query: QueryOptions = {}) => queryPages('product', pager('GET /org/{orgId}/product/query', { orgId }), query),
      /** The products changed since `cursor` (up to `until`), oldest first, ties by id: a sync's window (changedSince). */
      window: (orgId: string, cursor: { time: Date; afterId?: string }, options: { until?: Date; pageSize?: number } = {}) =>
        queryPages('product', pager('GET /org/{orgId}/product/query', { orgId }), {
          q: changedSince(cursor, options.until).expression,
          s: sort({ field: 'lastUpdateTime' }, { field: 'id' }),
          pageSize: options.pageSize,
        }),
      get: (orgId: string, productId: string): Promise<Product> => one('product', call('GET /org/{orgId}/product/{productId}', { orgId, productId })),
      /** A product's dimensions with their prices; a dimension without a key or with an unreadable price comes back rejected. */
      dimensions: (orgId: string, productId: string, paging: { limit?: number } = {}) =>
        listPages('productDimension', pager('GET /org/{orgId}/product/{productId}/dimension', { orgId, productId }), paging),
    },

    referrals: {
      /** With `q` and `s` as on query endpoints (the contract lists filters and sort for this list; A5). */
      list: (orgId: string, options: { limit?: number; offset?: number; q?: string; s?: string } = {}) =>
        listPages('referral', pager('GET /org/{orgId}/cosell/referral', { orgId }, { q: options.q, s: options.s }), { limit: options.limit, offset: options.offset }),
      get: (orgId: string, referralId: string): Promise<Referral> => one('referral', call('GET /org/{orgId}/cosell/referral/{referralId}', { orgId, referralId })),
      /** Not retried after an ambiguous failure: callers record an intent and look for the referral before creating again. */
      create: (orgId: string, referral: Partial<Referral>): Promise<Referral> => one('referral', call('POST /org/{orgId}/cosell/referral', { orgId }, { body: referral })),
      batchCreate: async (orgId: string, referrals: Partial<Referral>[]) =>
        (await call('POST /org/{orgId}/cosell/referral/batchCreate', { orgId }, { body: { referrals } })) as { results: { index: number; referral?: Referral; error?: unknown }[] },
      validate: async (orgId: string, referral: Partial<Referral>) =>
        (await call('POST /org/{orgId}/cosell/referral/validate', { orgId }, { body: referral })) as { valid: boolean; errors: { field: string; message: string }[] },
      update: (orgId: string, referralId: string, patch: Partial<Referral>): Promise<Referral> =>
        one('referral', call('PATCH /org/{orgId}/cosell/referral/{referralId}', { orgId, referralId }, { body: patch })),
    },

    buyers: {
      list: (orgId: string, paging: { limit?: number } = {}) => listPages('buyer', pager('GET /org/{orgId}/buyer', { orgId }), paging),
      query: (orgId: string, query: QueryOptions = {}) => queryPages('buyer', pager('GET /org/{orgId}/buyer/query', { orgId }), query),
      get: (orgId: string, buyerId: string) => one('buyer', call('GET /org/{orgId}/buyer/{buyerId}', { orgId, buyerId })),
    },

    contacts: {
      list: (orgId: string, paging: { limit?: number } = {}) => listPages('contact', pager('GET /org/{orgId}/contact', { orgId }), paging),
      query: (orgId: string, query: QueryOptions = {}) => queryPages('contact', pager('GET /org/{orgId}/contact/query', { orgId }), query),
      get: (orgId: string, contactId: string) => one('contact', call('GET /org/{orgId}/contact/{contactId}', { orgId, contactId })),
    },

    notificationEvents: {
      /** The feed in order; `since` (inclusive, on lastUpdateTime) and `entityType` narrow it (A5). */
      list: (orgId: string, options: { since?: Date; entityType?: string; limit?: number; offset?: number } = {}) =>
        eventPages(pager('GET /org/{orgId}/notificationEvent', { orgId }, { since: options.since?.toISOString(), entityType: options.entityType }), options),
      byEntity: (orgId: string, entityType: string, entityId: string, paging: { limit?: number } = {}) =>
        eventPages(pager('GET /org/{orgId}/notificationEvent/{entityType}/{entityId}', { orgId, entityType, entityId }), paging),
    },

    auditingEvents: {
      query: (orgId: string, query: QueryOptions = {}) =>
        queryPages('notificationEvent', pager('GET /org/{orgId}/auditingEvent/query', { orgId }), query),
    },
  };
}

export type CommerceClient = ReturnType<typeof createCommerceClient>;
export type { NotificationEvent };
