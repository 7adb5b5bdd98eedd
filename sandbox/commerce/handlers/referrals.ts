// Co-sell referrals (A6): list, get, create, batchCreate, validate (a dry run) and update with the
// status and stage lists of A6; a referral the seller submits is under partner review for a while
// (A13), during which the seller's updates are refused; the seller decides inbound referrals and closes
// deals by stage (A13, referral-lifecycle.ts).
import { badRequest } from '../errors.ts';
import { isPlainObject } from '../http-util.ts';
import { filterAndSortParams } from '../paging.ts';
import { sortRows } from '../sort.ts';
import { refuseDuringReview, startReviewIfSubmitted } from '../partner-review.ts';
import { applyImpliedChanges, isSellerDecision, reasonErrors, refuseSellerDecision, updateBodyErrors, type FieldError } from '../referral-lifecycle.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import { nextId } from '../store.ts';
import { PARTNERS, REFERRAL_DIRECTIONS, REFERRAL_STAGES, REFERRAL_STATUSES, type Referral } from '../types.ts';
import { filterList, found, listReply, objectBody, ok, type HandlerTable } from './common.ts';

export type { FieldError };

const MAX_BATCH = 100;
const WRITABLE = ['name', 'partner', 'direction', 'status', 'stage', 'buyerID', 'offerID', 'dealValue', 'currency', 'expectedCloseDate', 'crmAOpportunityId', 'crmBDealId', 'crmCOpportunityId', 'description', 'contactIds', 'statusReason', 'closedLostReason'] as const;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = (values: readonly string[]) => `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;
const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

/**
 * Every problem of a referral as it would be saved; an empty list means valid. Messages are for the
 * salesperson whose opportunity became the referral: they say what is wrong and what would be right.
 */
export function referralErrors(state: SandboxState, referral: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const problem = (field: string, message: string) => errors.push({ field, message });
  const text = (field: string, required: boolean) => {
    const value = referral[field];
    if (value === undefined || value === null) {
      if (required) problem(field, `${field} is required`);
      return;
    }
    if (typeof value !== 'string' || value.trim() === '') problem(field, `${field} must be a non-empty string, got ${shown(value)}`);
  };
  const choice = (field: string, values: readonly string[], required: boolean) => {
    const value = referral[field];
    if (value === undefined) {
      if (required) problem(field, `${field} is required: ${oneOf(values)}`);
    } else if (!values.includes(value as string)) {
      problem(field, `${field} must be ${oneOf(values)}, got ${shown(value)}`);
    }
  };
  text('name', true);
  choice('partner', PARTNERS, true);
  text('buyerID', true);
  const buyerID = referral.buyerID;
  if (typeof buyerID === 'string' && buyerID.trim() !== '' && !state.store.buyers.get(buyerID)) {
    problem('buyerID', `buyer ${buyerID} is not a marketplace buyer of this organization: the account is not linked to a marketplace buyer`);
  }
  choice('direction', REFERRAL_DIRECTIONS, false);
  choice('status', REFERRAL_STATUSES, false);
  choice('stage', REFERRAL_STAGES, false);
  if (referral.offerID !== undefined && (typeof referral.offerID !== 'string' || !state.store.offers.get(referral.offerID))) {
    problem('offerID', `offer ${String(referral.offerID)} is not an offer of this organization: name an existing offer or leave offerID out`);
  }
  if (referral.dealValue !== undefined && (typeof referral.dealValue !== 'number' || !Number.isFinite(referral.dealValue) || referral.dealValue < 0)) problem('dealValue', `dealValue must be an amount of 0 or more, got ${shown(referral.dealValue)}`);
  if (referral.currency !== undefined && (typeof referral.currency !== 'string' || !/^[A-Z]{3}$/.test(referral.currency))) problem('currency', `currency must be a three-letter ISO 4217 code in capitals such as USD, got ${shown(referral.currency)}`);
  if (referral.expectedCloseDate !== undefined && (typeof referral.expectedCloseDate !== 'string' || !DATE.test(referral.expectedCloseDate) || Number.isNaN(Date.parse(referral.expectedCloseDate)))) {
    problem('expectedCloseDate', `expectedCloseDate must be a calendar date written YYYY-MM-DD such as 2026-09-30, got ${shown(referral.expectedCloseDate)}`);
  }
  text('crmAOpportunityId', false);
  text('crmBDealId', false);
  if (referral.crmCOpportunityId !== undefined && (typeof referral.crmCOpportunityId !== 'string' || !GUID.test(referral.crmCOpportunityId))) {
    problem('crmCOpportunityId', `crmCOpportunityId must be the opportunity's GUID in lower case without braces, such as 0f8fad5b-d9cb-469f-a165-70867728950e, got ${shown(referral.crmCOpportunityId)}`);
  }
  if (referral.description !== undefined && typeof referral.description !== 'string') problem('description', `description must be a string, got ${shown(referral.description)}`);
  contactErrors(state, referral, problem);
  // Create's defaults (status DRAFT, stage Prospect) are what the reasons are checked against.
  errors.push(...reasonErrors(referral, referral.status ?? 'DRAFT', referral.stage ?? 'Prospect'));
  return errors;
}

/** contactIds (A6): contacts that exist and belong to the referral's buyer. */
function contactErrors(state: SandboxState, referral: Record<string, unknown>, problem: (field: string, message: string) => void) {
  const ids = referral.contactIds;
  if (ids === undefined) return;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) return problem('contactIds', `contactIds must be a list of contact ids, got ${shown(ids)}`);
  for (const id of ids as string[]) {
    const contact = state.store.contacts.get(id);
    if (!contact) problem('contactIds', `contact ${id} is not a contact of this organization`);
    else if (typeof referral.buyerID === 'string' && contact.buyerID !== referral.buyerID) problem('contactIds', `contact ${id} belongs to buyer ${contact.buyerID}, not to the referral's buyer ${referral.buyerID}`);
  }
}

/** Only the writable fields of a body; the service owns id, organizationID and the times. */
function writable(body: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of WRITABLE) if (body[field] !== undefined) result[field] = body[field];
  return result;
}

const invalid = (errors: FieldError[]) =>
  badRequest(`invalid referral: ${errors.map((error) => `${error.field}: ${error.message}`).join('; ')}`, { errors });

function createReferral(state: SandboxState, body: Record<string, unknown>): Referral {
  const now = state.nowIso();
  const referral = {
    direction: 'OUTBOUND',
    status: 'DRAFT',
    stage: 'Prospect',
    currency: 'USD',
    ...writable(body),
    id: nextId('ref', state.store.referrals),
    organizationID: state.settings.organizationId,
    creationTime: now,
    lastUpdateTime: now,
  } as Referral;
  startReviewIfSubmitted(state, referral, undefined);
  state.store.referrals.add(referral);
  referralChanged(state, referral, 'CREATED');
  return referral;
}

function referralChanged(state: SandboxState, referral: Referral, action: string, info?: Record<string, unknown>) {
  emitEvent(state, { action, entityType: 'REFERRAL', entityID: referral.id, entityName: referral.name, entityStatus: referral.status, partner: referral.partner, timestamp: referral.lastUpdateTime, createdBySource: 'API', info });
}

export const referralHandlers: HandlerTable = {
  'GET /org/{orgId}/cosell/referral': ({ state, query }) => {
    const { predicate, sort } = filterAndSortParams(query);
    const rows = filterList(state.store.referrals.rows, query, {
      status: (r) => r.status,
      stage: (r) => r.stage,
      partner: (r) => r.partner,
      direction: (r) => r.direction,
      buyerId: (r) => r.buyerID,
      // The CRM ids a referral carries (A5): how a client finds the referral of an opportunity, e.g.
      // before creating it again after a create whose answer was lost.
      crmAOpportunityId: (r) => r.crmAOpportunityId,
      crmBDealId: (r) => r.crmBDealId,
      crmCOpportunityId: (r) => r.crmCOpportunityId,
    }).filter((row) => predicate(row));
    return listReply(sortRows(rows, sort), query);
  },

  'GET /org/{orgId}/cosell/referral/{referralId}': ({ state, params }) => ok(found(state.store.referrals.get(params.referralId!), 'referral', params.referralId!)),

  'POST /org/{orgId}/cosell/referral': ({ state, body }) => {
    const fields = objectBody(body);
    const errors = referralErrors(state, fields);
    if (errors.length > 0) throw invalid(errors);
    return ok(createReferral(state, fields));
  },

  'POST /org/{orgId}/cosell/referral/validate': ({ state, body }) => {
    const errors = referralErrors(state, objectBody(body));
    return ok({ valid: errors.length === 0, errors });
  },

  'POST /org/{orgId}/cosell/referral/batchCreate': ({ state, body }) => {
    const referrals = objectBody(body).referrals;
    if (!Array.isArray(referrals)) throw badRequest('referrals must be a list', { field: 'referrals' });
    if (referrals.length > MAX_BATCH) throw badRequest(`a batch holds at most ${MAX_BATCH} referrals, got ${referrals.length}`, { field: 'referrals' });
    // Items are independent: the valid ones are created, each invalid one reports its own errors.
    const results = referrals.map((item, index) => {
      if (!isPlainObject(item)) return { index, error: { code: 'INVALID_ARGUMENT', message: 'each referral must be a JSON object', errors: [] } };
      const errors = referralErrors(state, item);
      if (errors.length > 0) return { index, error: { code: 'INVALID_ARGUMENT', message: invalid(errors).message, errors } };
      return { index, referral: createReferral(state, item) };
    });
    return ok({ results });
  },

  'PATCH /org/{orgId}/cosell/referral/{referralId}': ({ state, params, body }) => {
    const referral = found(state.store.referrals.get(params.referralId!), 'referral', params.referralId!);
    const changes = objectBody(body);
    for (const field of ['name', 'partner', 'buyerID', 'direction', 'status', 'stage']) {
      if (changes[field] === null) throw invalid([{ field, message: `${field} cannot be removed` }]);
    }
    const next: Record<string, unknown> = { ...referral };
    for (const field of WRITABLE) {
      if (!(field in changes)) continue;
      if (changes[field] === null) delete next[field];
      else next[field] = changes[field];
    }
    applyImpliedChanges(referral, changes, next);
    const errors = [...updateBodyErrors(changes), ...referralErrors(state, next)];
    if (errors.length > 0) throw invalid(errors);
    refuseSellerDecision(referral, changes);
    refuseDuringReview(state, referral);
    const decidedBySeller = isSellerDecision(referral, changes);
    const previousStatus = referral.status;
    Object.assign(referral, writable(next));
    for (const field of WRITABLE) if (!(field in next)) delete (referral as Record<string, unknown>)[field];
    startReviewIfSubmitted(state, referral, previousStatus);
    referral.lastUpdateTime = state.nowIso();
    const info: Record<string, unknown> = { previousStatus };
    if (decidedBySeller) info.decidedBy = 'SELLER';
    if (previousStatus !== referral.status && referral.statusReason !== undefined) info.statusReason = referral.statusReason;
    if (previousStatus !== referral.status && referral.closedLostReason !== undefined) info.closedLostReason = referral.closedLostReason;
    referralChanged(state, referral, previousStatus === referral.status ? 'UPDATED' : 'STATUS_CHANGED', info);
    return ok(referral);
  },
};
