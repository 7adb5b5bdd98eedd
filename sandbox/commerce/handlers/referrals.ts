// Co-sell referrals (A6): list, get, create, batchCreate, validate (a dry run) and update with the
// status and stage lists of A6.
import { badRequest } from '../errors.ts';
import { isPlainObject } from '../http-util.ts';
import { filterAndSortParams } from '../paging.ts';
import { sortRows } from '../sort.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import { nextId } from '../store.ts';
import { PARTNERS, REFERRAL_DIRECTIONS, REFERRAL_STAGES, REFERRAL_STATUSES, type Referral } from '../types.ts';
import { filterList, found, listReply, objectBody, ok, type HandlerTable } from './common.ts';

export type FieldError = { field: string; message: string };

const MAX_BATCH = 100;
const WRITABLE = ['name', 'partner', 'direction', 'status', 'stage', 'buyerID', 'offerID', 'dealValue', 'currency', 'expectedCloseDate', 'crmAOpportunityId', 'crmBDealId', 'crmCOpportunityId', 'description'] as const;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = (values: readonly string[]) => `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;

/** Every problem of a referral as it would be saved; an empty list means valid. */
export function referralErrors(state: SandboxState, referral: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const text = (field: string, required: boolean) => {
    const value = referral[field];
    if (value === undefined || value === null) {
      if (required) errors.push({ field, message: `${field} is required` });
      return;
    }
    if (typeof value !== 'string' || value.trim() === '') errors.push({ field, message: `${field} must be a non-empty string` });
  };
  const choice = (field: string, values: readonly string[], required: boolean) => {
    const value = referral[field];
    if (value === undefined) {
      if (required) errors.push({ field, message: `${field} is required` });
    } else if (!values.includes(value as string)) {
      errors.push({ field, message: `${field} must be ${oneOf(values)}, got ${JSON.stringify(value)}` });
    }
  };
  text('name', true);
  choice('partner', PARTNERS, true);
  text('buyerID', true);
  if (typeof referral.buyerID === 'string' && referral.buyerID !== '' && !state.store.buyers.get(referral.buyerID)) errors.push({ field: 'buyerID', message: `buyer ${referral.buyerID} does not exist` });
  choice('direction', REFERRAL_DIRECTIONS, false);
  choice('status', REFERRAL_STATUSES, false);
  choice('stage', REFERRAL_STAGES, false);
  if (referral.offerID !== undefined && (typeof referral.offerID !== 'string' || !state.store.offers.get(referral.offerID))) errors.push({ field: 'offerID', message: `offer ${String(referral.offerID)} does not exist` });
  if (referral.dealValue !== undefined && (typeof referral.dealValue !== 'number' || !Number.isFinite(referral.dealValue) || referral.dealValue < 0)) errors.push({ field: 'dealValue', message: 'dealValue must be a number of at least 0' });
  if (referral.currency !== undefined && (typeof referral.currency !== 'string' || !/^[A-Z]{3}$/.test(referral.currency))) errors.push({ field: 'currency', message: 'currency must be an ISO 4217 code such as USD' });
  if (referral.expectedCloseDate !== undefined && (typeof referral.expectedCloseDate !== 'string' || !DATE.test(referral.expectedCloseDate) || Number.isNaN(Date.parse(referral.expectedCloseDate)))) errors.push({ field: 'expectedCloseDate', message: 'expectedCloseDate must be a date YYYY-MM-DD' });
  text('crmAOpportunityId', false);
  text('crmBDealId', false);
  if (referral.crmCOpportunityId !== undefined && (typeof referral.crmCOpportunityId !== 'string' || !GUID.test(referral.crmCOpportunityId))) errors.push({ field: 'crmCOpportunityId', message: 'crmCOpportunityId must be a lowercased GUID without braces' });
  if (referral.description !== undefined && typeof referral.description !== 'string') errors.push({ field: 'description', message: 'description must be a string' });
  return errors;
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
    const errors = referralErrors(state, next);
    if (errors.length > 0) throw invalid(errors);
    const previousStatus = referral.status;
    Object.assign(referral, writable(next));
    for (const field of WRITABLE) if (!(field in next)) delete (referral as Record<string, unknown>)[field];
    referral.lastUpdateTime = state.nowIso();
    referralChanged(state, referral, previousStatus === referral.status ? 'UPDATED' : 'STATUS_CHANGED', { previousStatus });
    return ok(referral);
  },
};
