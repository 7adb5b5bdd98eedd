// Offer reads (list with every filter of §4.2, query, get, by external id), metaInfo update and the
// soft delete of §3.
import { runQuery } from '../paging.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import type { Offer } from '../types.ts';
import { filterList, found, listReply, ok, patchMetaInfo, type HandlerTable } from './common.ts';

export const offerOf = (state: SandboxState, id: string) => found(state.store.offers.get(id), 'offer', id);

/** Bumps lastUpdateTime and emits the event of one offer change (A8, A9). */
export function offerChanged(state: SandboxState, offer: Offer, action: string, updatedBy: string, info?: Record<string, unknown>) {
  offer.lastUpdateTime = state.nowIso();
  offer.lastUpdatedBy = updatedBy;
  emitEvent(state, {
    action,
    entityType: 'OFFER',
    entityID: offer.id,
    entityName: offer.name,
    entityStatus: offer.status,
    partner: offer.partner,
    contactIds: offer.contactIds,
    timestamp: offer.lastUpdateTime,
    createdBySource: 'API',
    info,
  });
}

// An injected poison offer may have no metaInfo at all.
const meta = (offer: Offer, key: string) => (offer.metaInfo as Offer['metaInfo'] | undefined)?.[key];

export const offerReadHandlers: HandlerTable = {
  // §4.2 List Offers. CRM ids are matched against metaInfo exactly as stored (crmCOpportunityId is
  // stored lowercased without braces, so a client must send it that way).
  'GET /org/{orgId}/offer': ({ state, query }) =>
    listReply(
      filterList(state.store.offers.rows, query, {
        status: (o) => o.status,
        partner: (o) => o.partner,
        offerType: (o) => o.offerType,
        productId: (o) => o.productID,
        buyerId: (o) => o.buyerID,
        crmBDealId: (o) => meta(o, 'crmBDealId'),
        crmAOpportunityId: (o) => meta(o, 'crmAOpportunityId'),
        crmCOpportunityId: (o) => meta(o, 'crmCOpportunityId'),
        contactId: (o) => o.contactIds,
        channelType: (o) => o.channelType,
        pricingType: (o) => o.pricingType,
        productType: (o) => o.productType,
      }),
      query,
    ),

  'GET /org/{orgId}/offer/query': ({ state, query }) => ok(runQuery(state.store.offers.rows, query, state.settings.totalCountCap)),

  'GET /org/{orgId}/offer/{offerId}': ({ state, params }) => ok(offerOf(state, params.offerId!)),

  'GET /org/{orgId}/offerExternalId/{offerExternalId}': ({ state, params }) =>
    ok(found(state.store.offersByExternalId.get(params.offerExternalId!), 'offer with external id', params.offerExternalId!)),

  'PATCH /org/{orgId}/offer/{offerId}/metaInfo': ({ state, params, body, clientId }) => {
    const offer = offerOf(state, params.offerId!);
    offer.metaInfo = patchMetaInfo(offer.metaInfo, body);
    offerChanged(state, offer, 'UPDATED', clientId, { changed: 'metaInfo' });
    return ok(offer);
  },

  'DELETE /org/{orgId}/offer/{offerId}': ({ state, params, clientId }) => {
    const offer = offerOf(state, params.offerId!);
    // Soft delete (§3): the record stays and is still listed, now DELETED. Deleting twice is harmless.
    if (offer.status !== 'DELETED') {
      const previous = offer.status;
      offer.status = 'DELETED';
      offerChanged(state, offer, 'DELETED', clientId, { previousStatus: previous });
    }
    return ok(offer);
  },
};
