// Offer writes: create (deduplicated for 60 s, §8), draftOffer (A9; held drafts, A19), publishing a
// held draft (POST {O}/offer with its id, A19), cancel and extendExpiryDate with the allowed statuses of §3.
import { badRequest, failedPrecondition } from '../errors.ts';
import { isPlainObject } from '../http-util.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import { nextId } from '../store.ts';
import { checkOfferTerms, HELD_DRAFT, TERM_FIELDS } from '../offer-terms.ts';
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
    const product = typeof body.productID === 'string' ? store.products.get(body.productID) : undefined;
    if (!product) throw badRequest(`productID must name an existing product, got ${JSON.stringify(body.productID)}`, { field: 'productID' });
    if (product.status === 'DELETED') throw badRequest(`productID: product ${product.id} (${product.name}) is DELETED; an offer is made on a listed product`, { field: 'productID' });
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

/**
 * A new offer in PENDING_CREATE: it gets its externalID once "created on the marketplace". `hold` keeps
 * it a draft (subStatus DRAFT, A19): saved, not sent, until it is published.
 */
function newOffer(state: SandboxState, body: Record<string, unknown>, clientId: string, hold = false): Offer {
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
  if (hold) offer.subStatus = HELD_DRAFT;
  state.store.offers.add(offer);
  emitEvent(state, { action: 'CREATED', entityType: 'OFFER', entityID: offer.id, entityName: offer.name, entityStatus: offer.status, partner: offer.partner, contactIds: offer.contactIds, timestamp: now, createdBySource: 'API', info: hold ? { subStatus: HELD_DRAFT } : undefined });
  return offer;
}

const productOf = (state: SandboxState, id: string) => state.store.products.get(id)!;

/**
 * POST {O}/draftOffer with an `id`: the offer and what it becomes when merged (A9); checks every field
 * (400) and the status (409) and changes nothing, so a caller can check more before `applyDraftUpdate`.
 */
function draftUpdate(state: SandboxState, fields: Record<string, unknown>): { offer: Offer; merged: Offer } {
  const offer = offerOf(state, String(fields.id));
  validateOfferFields(state, { name: offer.name, ...fields }, false);
  const patch = { ...fields };
  for (const key of SERVER_OWNED) delete patch[key];
  if (patch.metaInfo !== undefined) patch.metaInfo = patchMetaInfo(offer.metaInfo, patch.metaInfo);
  const merged = mergePatch(offer, patch) as Offer;
  // Terms are checked when the update touches them: an update of the name alone leaves them as they were.
  const info = patch.info as Record<string, unknown> | undefined;
  if (patch.productID !== undefined || (info && TERM_FIELDS.some((field) => field in info))) checkOfferTerms(productOf(state, merged.productID), merged.info);
  if (offer.status !== 'PENDING_CREATE') throw failedPrecondition(`only a PENDING_CREATE draft can be updated; offer ${offer.id} is ${offer.status}`, offer.status);
  if (patch.productID !== undefined) {
    const product = productOf(state, patch.productID as string);
    Object.assign(merged, { productType: product.productType, partner: product.partner, partnerID: product.partnerID, service: product.productType });
  }
  return { offer, merged };
}

/** Replaces the record's contents in place so every index keeps pointing at it; a held draft stays held (its subStatus is kept). */
function applyDraftUpdate(offer: Offer, merged: Offer): Offer {
  for (const key of Object.keys(offer)) delete (offer as Record<string, unknown>)[key];
  Object.assign(offer, merged);
  return offer;
}

/**
 * POST {O}/offer with the `id` of a held draft (A19): the draft, with any other fields of the body merged
 * in as a draft update, is sent to the marketplace: subStatus DRAFT goes, the status stays PENDING_CREATE
 * until the marketplace has created it (the change driver gives it its externalID). Nothing changes
 * unless it is published.
 */
function publishDraft(state: SandboxState, fields: Record<string, unknown>, clientId: string): Offer {
  const offer = offerOf(state, String(fields.id));
  if (offer.status !== 'PENDING_CREATE' || offer.subStatus !== HELD_DRAFT) throw notADraft(offer);
  const { merged } = Object.keys(fields).some((key) => key !== 'id') ? draftUpdate(state, fields) : { merged: offer };
  if (merged.offerType === 'PRIVATE' && !merged.buyerID) {
    throw failedPrecondition(`offer ${offer.id} has no buyerID; a private offer is published to one buyer: set buyerID with POST draftOffer first`, offer.status);
  }
  const product = productOf(state, merged.productID);
  if (product?.status === 'DELETED') throw failedPrecondition(`offer ${offer.id} is for product ${product.id} (${product.name}), which is DELETED; it cannot be published`, offer.status);
  if (merged !== offer) applyDraftUpdate(offer, merged);
  delete offer.subStatus;
  // One change, one event: an update sent with the publish is part of it.
  offerChanged(state, offer, 'UPDATED', clientId, { changed: 'published', previousSubStatus: HELD_DRAFT });
  return offer;
}

function notADraft(offer: Offer) {
  const what = offer.status === 'PENDING_CREATE' ? 'was published already and waits for the marketplace' : `is ${offer.status}`;
  return failedPrecondition(`only a draft held for publishing (PENDING_CREATE, subStatus DRAFT) can be published; offer ${offer.id} ${what}`, offer.status);
}

export const offerWriteHandlers: HandlerTable = {
  'POST /org/{orgId}/offer': ({ state, body, clientId }): Reply => {
    const fields = objectBody(body);
    const nowMs = state.nowMs();
    const remembered = state.dedup.find(clientId, fields, nowMs);
    if (remembered) return { status: remembered.status, text: remembered.text };
    let made: Offer;
    if (fields.id !== undefined) made = publishDraft(state, fields, clientId);
    else {
      validateOfferFields(state, fields, true);
      checkOfferTerms(productOf(state, fields.productID as string), fields.info);
      made = newOffer(state, fields, clientId);
    }
    const text = JSON.stringify(made);
    state.dedup.remember(clientId, fields, nowMs, 200, text);
    state.journal?.dedup({ clientId, body: fields, atMs: nowMs, status: 200, text });
    return { status: 200, text };
  },

  'POST /org/{orgId}/draftOffer': ({ state, body, clientId }) => {
    const fields = objectBody(body);
    if (fields.id !== undefined) {
      const { offer, merged } = draftUpdate(state, fields);
      offerChanged(state, applyDraftUpdate(offer, merged), 'UPDATED', clientId, { changed: 'draft' });
      return ok(offer);
    }
    // subStatus DRAFT asks to hold the draft until it is published (A19); without it the draft is sent at once, as before.
    const hold = fields.subStatus === HELD_DRAFT;
    if (fields.subStatus !== undefined && !hold) throw badRequest(`subStatus may only be ${HELD_DRAFT} (hold the draft until it is published), got ${JSON.stringify(fields.subStatus)}`, { field: 'subStatus' });
    validateOfferFields(state, fields, true);
    checkOfferTerms(productOf(state, fields.productID as string), fields.info);
    return ok(newOffer(state, fields, clientId, hold));
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
