// Offer writes: create (deduplicated for 60 s, §8), draftOffer (A9), cancel and extendExpiryDate with
// the allowed statuses of §3.
import { badRequest, failedPrecondition } from '../errors.ts';
import { isPlainObject } from '../http-util.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import { nextId } from '../store.ts';
import { CANCELLABLE_OFFER_STATUSES, EXTENDABLE_OFFER_STATUSES, OFFER_TYPES, type Offer } from '../types.ts';
import { dateTimeField, mergePatch, objectBody, ok, patchMetaInfo, type HandlerTable, type Reply } from './common.ts';
import { offerChanged, offerOf } from './offers.ts';

const RESALE = new Set(['CPPO', 'CPPO_IN', 'CPPO_OUT']);
/** Fields the service sets itself; a create or draft body cannot choose them. */
const SERVER_OWNED = ['id', 'organizationID', 'status', 'subStatus', 'externalID', 'externalStatus', 'partner', 'partnerID', 'service', 'productType', 'channelType', 'createdBy', 'lastUpdatedBy', 'creationTime', 'lastUpdateTime'];

/** Checks the fields a client may send; `requireProduct` is false only when updating a draft. */
function validateOfferFields(state: SandboxState, body: Record<string, unknown>, requireProduct: boolean) {
  const { store } = state;
  if (typeof body.name !== 'string' || body.name.trim() === '') throw badRequest('name is required and must be a non-empty string', { field: 'name' });
  if (requireProduct || body.productID !== undefined) {
    if (typeof body.productID !== 'string' || !store.products.get(body.productID)) throw badRequest(`productID must name an existing product, got ${JSON.stringify(body.productID)}`, { field: 'productID' });
  }
  if (body.offerType !== undefined && !(OFFER_TYPES as readonly unknown[]).includes(body.offerType)) throw badRequest(`offerType must be one of ${OFFER_TYPES.join(', ')}`, { field: 'offerType' });
  if (body.buyerID !== undefined && (typeof body.buyerID !== 'string' || !store.buyers.get(body.buyerID))) throw badRequest(`buyerID must name an existing buyer, got ${JSON.stringify(body.buyerID)}`, { field: 'buyerID' });
  if (body.contactIds !== undefined) {
    if (!Array.isArray(body.contactIds) || body.contactIds.some((id) => typeof id !== 'string' || !store.contacts.get(id))) throw badRequest('contactIds must be a list of existing contact ids', { field: 'contactIds' });
  }
  for (const field of ['info', 'metaInfo'] as const) if (body[field] !== undefined && !isPlainObject(body[field])) throw badRequest(`${field} must be an object`, { field });
  for (const field of ['expireTime', 'endTime'] as const) if (body[field] !== undefined && body[field] !== null) dateTimeField(body[field], field);
  if (body.pricingType !== undefined && typeof body.pricingType !== 'string') throw badRequest('pricingType must be a string', { field: 'pricingType' });
}

/** A new offer in PENDING_CREATE: it gets its externalID once "created on the marketplace". */
function newOffer(state: SandboxState, body: Record<string, unknown>, clientId: string): Offer {
  const product = state.store.products.get(body.productID as string)!;
  const offerType = (body.offerType as string | undefined) ?? 'PRIVATE';
  const now = state.nowIso();
  const extra = { ...body };
  for (const key of SERVER_OWNED) delete extra[key];
  const offer: Offer = {
    ...(extra as Partial<Offer>),
    id: nextId('offer', state.store.offers),
    name: body.name as string,
    organizationID: state.settings.organizationId,
    contactIds: (body.contactIds as string[] | undefined) ?? [],
    channelType: RESALE.has(offerType) ? 'RESALE' : 'DIRECT',
    offerType,
    pricingType: (body.pricingType as string | undefined) ?? 'CONTRACT',
    productID: product.id,
    productType: product.productType,
    partner: product.partner,
    partnerID: product.partnerID,
    service: product.productType,
    status: 'PENDING_CREATE',
    createdBy: clientId,
    lastUpdatedBy: clientId,
    creationTime: now,
    lastUpdateTime: now,
    endTime: (body.endTime as string | undefined) ?? null,
    expireTime: (body.expireTime as string | undefined) ?? null,
    info: { ...((body.info as Record<string, unknown> | undefined) ?? {}), visibility: offerType === 'PUBLIC' || offerType === 'FREE_TRIAL' ? 'PUBLIC' : 'PRIVATE' },
    metaInfo: { ...patchMetaInfo({}, body.metaInfo ?? {}), createdBySource: 'API' },
  };
  state.store.offers.add(offer);
  emitEvent(state, { action: 'CREATED', entityType: 'OFFER', entityID: offer.id, entityName: offer.name, entityStatus: offer.status, partner: offer.partner, contactIds: offer.contactIds, timestamp: now, createdBySource: 'API' });
  return offer;
}

export const offerWriteHandlers: HandlerTable = {
  'POST /org/{orgId}/offer': ({ state, body, clientId }): Reply => {
    const fields = objectBody(body);
    const nowMs = state.nowMs();
    const remembered = state.dedup.find(clientId, fields, nowMs);
    if (remembered) return { status: remembered.status, text: remembered.text };
    validateOfferFields(state, fields, true);
    const text = JSON.stringify(newOffer(state, fields, clientId));
    state.dedup.remember(clientId, fields, nowMs, 200, text);
    state.journal?.dedup({ clientId, body: fields, atMs: nowMs, status: 200, text });
    return { status: 200, text };
  },

  'POST /org/{orgId}/draftOffer': ({ state, body, clientId }) => {
    const fields = objectBody(body);
    if (fields.id === undefined) {
      validateOfferFields(state, fields, true);
      return ok(newOffer(state, fields, clientId));
    }
    const offer = offerOf(state, String(fields.id));
    validateOfferFields(state, { name: offer.name, ...fields }, false);
    if (offer.status !== 'PENDING_CREATE') throw failedPrecondition(`only a PENDING_CREATE draft can be updated; offer ${offer.id} is ${offer.status}`, offer.status);
    const patch = { ...fields };
    for (const key of SERVER_OWNED) delete patch[key];
    if (patch.metaInfo !== undefined) patch.metaInfo = patchMetaInfo(offer.metaInfo, patch.metaInfo);
    const merged = mergePatch(offer, patch) as Offer;
    if (patch.productID !== undefined) {
      const product = state.store.products.get(patch.productID as string)!;
      Object.assign(merged, { productType: product.productType, partner: product.partner, partnerID: product.partnerID, service: product.productType });
    }
    // Replace the record's contents in place so every index keeps pointing at it.
    for (const key of Object.keys(offer)) delete (offer as Record<string, unknown>)[key];
    Object.assign(offer, merged);
    offerChanged(state, offer, 'UPDATED', clientId, { changed: 'draft' });
    return ok(offer);
  },

  'POST /org/{orgId}/offer/{offerId}/cancel': ({ state, params, body, clientId }) => {
    const offer = offerOf(state, params.offerId!);
    if (body !== undefined) objectBody(body);
    if (!CANCELLABLE_OFFER_STATUSES.includes(offer.status)) {
      throw failedPrecondition(`an offer can be cancelled only when ${CANCELLABLE_OFFER_STATUSES.join(', ')}; offer ${offer.id} is ${offer.status}`, offer.status);
    }
    const previous = offer.status;
    offer.status = 'PENDING_CANCEL';
    offerChanged(state, offer, previous === offer.status ? 'UPDATED' : 'STATUS_CHANGED', clientId, { previousStatus: previous });
    return ok(offer);
  },

  'POST /org/{orgId}/offer/{offerId}/extendExpiryDate': ({ state, params, body, clientId }) => {
    const offer = offerOf(state, params.offerId!);
    const fields = objectBody(body);
    const expireMs = dateTimeField(fields.expireTime, 'expireTime');
    if (expireMs <= state.nowMs()) throw badRequest(`expireTime must be in the future, got ${String(fields.expireTime)}`, { field: 'expireTime' });
    if (!EXTENDABLE_OFFER_STATUSES.includes(offer.status)) {
      throw failedPrecondition(`an offer's expiry date can be extended only when ${EXTENDABLE_OFFER_STATUSES.join(', ')}; offer ${offer.id} is ${offer.status}`, offer.status);
    }
    const previous = offer.status;
    offer.status = 'PENDING_ACCEPTANCE';
    offer.expireTime = new Date(expireMs).toISOString();
    offerChanged(state, offer, previous === offer.status ? 'UPDATED' : 'STATUS_CHANGED', clientId, { previousStatus: previous, expireTime: offer.expireTime });
    return ok(offer);
  },
};
