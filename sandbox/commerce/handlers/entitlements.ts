// Entitlements and their terms: list, query, get, terms, metaInfo update and addon (§3.3: ACTIVE only).
import { badRequest, failedPrecondition, notFound } from '../errors.ts';
import { runQuery } from '../paging.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import type { Entitlement } from '../types.ts';
import { dateTimeField, filterList, found, listReply, objectBody, ok, patchMetaInfo, type HandlerTable } from './common.ts';

const entitlementOf = (state: SandboxState, id: string) => found(state.store.entitlements.get(id), 'entitlement', id);

function touched(state: SandboxState, entitlement: Entitlement, action: string, info?: Record<string, unknown>) {
  entitlement.lastUpdateTime = state.nowIso();
  emitEvent(state, {
    action,
    entityType: 'ENTITLEMENT',
    entityID: entitlement.id,
    entityName: entitlement.name,
    entityStatus: entitlement.status,
    partner: entitlement.partner,
    timestamp: entitlement.lastUpdateTime,
    createdBySource: 'API',
    info,
  });
}

export const entitlementHandlers: HandlerTable = {
  'GET /org/{orgId}/entitlement': ({ state, query }) =>
    listReply(
      filterList(state.store.entitlements.rows, query, {
        status: (e) => e.status,
        partner: (e) => e.partner,
        buyerId: (e) => e.buyerID,
        offerId: (e) => e.offerID,
        productId: (e) => e.productID,
      }),
      query,
    ),

  'GET /org/{orgId}/entitlement/query': ({ state, query }) => ok(runQuery(state.store.entitlements.rows, query, state.settings.totalCountCap)),

  'GET /org/{orgId}/entitlement/{entitlementId}': ({ state, params }) => ok(entitlementOf(state, params.entitlementId!)),

  'GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm': ({ state, params, query }) => {
    const entitlement = entitlementOf(state, params.entitlementId!);
    return listReply(state.store.termsByEntitlement.get(entitlement.id) ?? [], query);
  },

  'GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm/{entitlementTermId}': ({ state, params }) => {
    const entitlement = entitlementOf(state, params.entitlementId!);
    const term = state.store.entitlementTerms.get(params.entitlementTermId!);
    if (!term || term.entitlementID !== entitlement.id) throw notFound(`entitlement term ${params.entitlementTermId} of entitlement ${entitlement.id} not found`);
    return ok(term);
  },

  'PATCH /org/{orgId}/entitlement/{entitlementId}/metaInfo': ({ state, params, body }) => {
    const entitlement = entitlementOf(state, params.entitlementId!);
    entitlement.metaInfo = patchMetaInfo(entitlement.metaInfo, body);
    touched(state, entitlement, 'UPDATED', { changed: 'metaInfo' });
    return ok(entitlement);
  },

  'POST /org/{orgId}/entitlement/{entitlementId}/addon': ({ state, params, body }) => {
    const entitlement = entitlementOf(state, params.entitlementId!);
    const addon = objectBody(body);
    if (typeof addon.name !== 'string' || addon.name.trim() === '') throw badRequest('name is required and must be a non-empty string', { field: 'name' });
    if (typeof addon.amount !== 'number' || !Number.isFinite(addon.amount) || addon.amount < 0) throw badRequest('amount is required and must be a number of at least 0', { field: 'amount' });
    if (addon.description !== undefined && typeof addon.description !== 'string') throw badRequest('description must be a string', { field: 'description' });
    if (addon.chargeOn !== undefined) dateTimeField(addon.chargeOn, 'chargeOn');
    if (entitlement.status !== 'ACTIVE') {
      throw failedPrecondition(`an addon can be applied to an ACTIVE entitlement only; entitlement ${entitlement.id} is ${entitlement.status}`, entitlement.status);
    }
    const addons = Array.isArray(entitlement.info.addons) ? (entitlement.info.addons as unknown[]) : [];
    const record = {
      id: typeof addon.id === 'string' && addon.id !== '' ? addon.id : `addon-${entitlement.id}-${addons.length + 1}`,
      name: addon.name,
      description: addon.description ?? '',
      amount: addon.amount,
      chargeOn: addon.chargeOn ?? state.nowIso(),
    };
    entitlement.info = { ...entitlement.info, addons: [...addons, record] };
    touched(state, entitlement, 'UPDATED', { changed: 'addons', addonId: record.id });
    return ok(entitlement);
  },
};
