export { createCommerceClient, type CommerceClient, type CommerceClientOptions, type OfferListFilters, type ProductListFilters } from './client.ts';
export * from './errors.ts';
export * from './models.ts';
export { q, sort, changedSince, literal, type Filter } from './filter.ts';
export { classifyEvent, eventVersion, isAuditOnly } from './notifications.ts';
export { MAX_PAGE_SIZE, type Page, type Rejected } from './paging.ts';
export { OPERATIONS, type OperationKey } from './operations.ts';
