// The commerce side of a private offer asked for from the CRM (issue #28 section 2), for every CRM alike:
// the draft made (held until approved where the CRM side reads an approval, A19) and, for a draft already
// made whose record changed, its next step, taken by comparing the offer as the commerce side holds it
// with what the record asks: the changed terms sent once (updateDraft), a held draft published once
// approved, an offer with the buyer extended to a new expiry, or cancelled. Each step is read-then-act,
// so a step repeated after a crash finds itself done; none of them creates an offer (only the create
// does, and the flow's create-then-adopt by metaInfo covers it).
import type { OpportunityIdField } from '../commerce/crm-ids.ts';
import { CommerceApiError } from '../commerce/errors.ts';
import type { CommerceClient } from '../commerce/index.ts';
import type { Offer } from '../commerce/models.ts';
import type { DraftOfferRequest } from '../mappings/canonical/draft-offer-ask.ts';
import { offerTermsOn, type OfferTerms } from '../mappings/canonical/offer-lines.ts';
import { canonicalJson } from '../sync/hash.ts';
import type { Advanced, Made } from './crm-to-commerce.ts';
import type { MadeAudit, MadeWithExtras } from './made-extras.ts';

/** A draft request of any CRM (its metaInfo names the record under that CRM's field). */
type Request = Omit<DraftOfferRequest<OpportunityIdField>, 'metaInfo'> & { metaInfo: Partial<Record<OpportunityIdField, string>> };

/** The info fields a request decides (any other the commerce side keeps is left as it is). */
const MANAGED_INFO = ['currency', 'commitAmount', 'commits', 'dimensions', 'paymentInstallments', 'cloudAAgreementDuration'] as const;
/** The statuses after which nothing is left to cancel (A9: cancelling a PENDING_CANCEL offer leaves it there). */
const CANCELLED = new Set(['PENDING_CANCEL', 'CANCELLED']);

/**
 * The draft's body: the offer's fields, its terms priced on its product where the request has product
 * lines or a duration (the product's dimension types, A18), its charges, and a new expiry in place of the
 * close date's. Or why the product refuses the terms, in the seller's words.
 */
export async function draftBody(commerce: CommerceClient, orgId: string, request: Request): Promise<{ body: Partial<Offer> } | { refused: string }> {
  const { lines, durationMonths, charges, publish: _publish, approval: _approval, extendTo, cancel: _cancel, ...offer } = request;
  let terms: OfferTerms = {};
  if (lines || durationMonths !== undefined) {
    const priced = offerTermsOn(await commerce.products.get(orgId, offer.productID), { lines, durationMonths, charges });
    if ('refused' in priced) return priced;
    terms = priced.terms;
  } else if (charges) terms = { paymentInstallments: charges };
  const info = { ...offer.info, ...terms };
  return { body: { ...offer, ...(extendTo && { expireTime: extendTo }), ...(Object.keys(info).length > 0 && { info: info as Offer['info'] }) } };
}

/** The audit of a publication: the approval that let it go (when a rule held), then the publication. */
function publication(request: Request, offerId: string): MadeAudit[] {
  return [...(request.approval ? [{ action: 'offer-approved', ...(request.approval.by && { by: request.approval.by }), detail: { offerId } }] : []), { action: 'offer-published', detail: { offerId } }];
}

/**
 * Makes the draft. A request without `publish` is sent at once, as drafts always were (HubSpot and
 * Dynamics); otherwise the draft is held, and published in the same call when the request may go to the
 * buyer. A publication that fails after the draft was made leaves it held and unsettled: the record's next
 * read publishes it (or shows why not).
 */
export async function createDraftOffer(commerce: CommerceClient, orgId: string, request: Request): Promise<{ made: Made } | { refused: string }> {
  try {
    const built = await draftBody(commerce, orgId, request);
    if ('refused' in built) return built;
    if (request.publish === undefined) return { made: await commerce.offers.draft(orgId, built.body) };
    const held = await commerce.offers.draft(orgId, built.body, { hold: true });
    if (!request.publish) return { made: held };
    try {
      const published: MadeWithExtras = { ...(await commerce.offers.publish(orgId, held.id)), audit: publication(request, held.id) };
      return { made: published };
    } catch (error) {
      if (isRefusal(error)) return { made: { ...held, settled: false } as MadeWithExtras };
      throw error;
    }
  } catch (error) {
    if (isRefusal(error)) return { refused: (error as Error).message };
    throw error;
  }
}

/** A draft found by its CRM id: a held one is unsettled, so the record's next read decides whether to publish it. */
export function adoptedDraft(offer: Offer): Made {
  return offer.subStatus === 'DRAFT' ? ({ ...offer, settled: false } as MadeWithExtras) : offer;
}

/**
 * The next step of an offer made before, whose record changed: cancelled when asked (nothing else then),
 * else the changed terms sent (a draft takes any; an offer with the buyer is no draft, and the commerce
 * side's 409 naming its status is shown on the record), a held draft published once approved, and an offer
 * with the buyer extended to the new expiry asked for.
 */
export async function advanceDraftOffer(commerce: CommerceClient, orgId: string, id: string, request: Request): Promise<Advanced> {
  try {
    const offer = await commerce.offers.get(orgId, id);
    if (request.cancel) {
      if (CANCELLED.has(String(offer.status))) return { unchanged: true };
      const cancelled: MadeWithExtras = { ...(await commerce.offers.cancel(orgId, id)), audit: [{ action: 'offer-cancelled', detail: { offerId: id, previousStatus: offer.status } }] };
      return { made: cancelled };
    }
    const built = await draftBody(commerce, orgId, request);
    if ('refused' in built) return built;
    const isDraft = offer.status === 'PENDING_CREATE';
    const audit: MadeAudit[] = [];
    let current = offer;
    const patch = changedFields(offer, built.body, { expiry: isDraft });
    if (patch) {
      current = await commerce.offers.updateDraft(orgId, id, patch);
      audit.push({ action: 'offer-updated', detail: { offerId: id, fields: Object.keys(patch).sort() } });
    }
    if (isDraft && current.subStatus === 'DRAFT' && request.publish) {
      current = await commerce.offers.publish(orgId, id);
      audit.push(...publication(request, id));
    }
    if (!isDraft && request.extendTo && current.expireTime !== request.extendTo) {
      current = await commerce.offers.extendExpiry(orgId, id, new Date(request.extendTo));
      audit.push({ action: 'offer-extended', detail: { offerId: id, expireTime: request.extendTo, previousExpireTime: offer.expireTime ?? null } });
    }
    if (audit.length === 0) return { unchanged: true };
    const made: MadeWithExtras = { ...current, audit };
    return { made };
  } catch (error) {
    if (isRefusal(error)) return { refused: `the marketplace refused the change to offer ${id}: ${(error as Error).message}` };
    throw error;
  }
}

/**
 * The fields of `body` the offer holds otherwise, as a draft update (a JSON merge patch, A19: null removes
 * an info field the request no longer has, arrays are replaced whole); none when all agree. The expiry
 * counts only for a draft: an offer with the buyer changes its expiry by an extension alone.
 */
export function changedFields(offer: Offer, body: Partial<Offer>, options: { expiry: boolean }): Partial<Offer> | undefined {
  const patch: Record<string, unknown> = {};
  const differs = (a: unknown, b: unknown) => canonicalJson(a ?? null) !== canonicalJson(b ?? null);
  for (const field of ['name', 'productID', 'buyerID'] as const) if (body[field] !== undefined && differs(offer[field], body[field])) patch[field] = body[field];
  if (differs(offer.contactIds?.length ? offer.contactIds : null, body.contactIds?.length ? body.contactIds : null)) patch.contactIds = body.contactIds ?? [];
  if (options.expiry && body.expireTime && differs(offer.expireTime, body.expireTime)) patch.expireTime = body.expireTime;
  const info: Record<string, unknown> = {};
  for (const field of MANAGED_INFO) {
    const wanted = body.info?.[field];
    if (field === 'currency' && wanted === undefined) continue; // an offer without a currency of its own is USD (§2): nothing to remove
    if (differs(offer.info?.[field], wanted)) info[field] = wanted ?? null;
  }
  if (Object.keys(info).length > 0) patch.info = info as Offer['info'];
  return Object.keys(patch).length > 0 ? (patch as Partial<Offer>) : undefined;
}

/** The commerce side's answer about this one offer (a 4xx other than 401, 408 and 429): the record's, never the page's. */
function isRefusal(error: unknown): boolean {
  const status = error instanceof CommerceApiError ? error.status : (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 408 && status !== 429;
}
