// Commission actions on a referral (§3.6, A13): accepted only once the deal is won (stage Launched, A6).
// The sandbox keeps what was asked on the referral's `commission` and emits one REFERRAL event.
import { badRequest, failedPrecondition } from '../errors.ts';
import { emitEvent, type SandboxState } from '../state.ts';
import type { Referral } from '../types.ts';
import { found, objectBody, ok, type HandlerTable } from './common.ts';

const WON_STAGE = 'Launched';

/** A2's order: the record (404) is looked up before the body is checked (400), the stage last (409). */
function mustBeWon(referral: Referral, what: string): Referral {
  if (referral.stage !== WON_STAGE) {
    throw failedPrecondition(`${what} is accepted only once the deal is won (stage ${WON_STAGE}); referral ${referral.id} is at stage ${referral.stage}`, referral.status);
  }
  return referral;
}

function commissionChanged(state: SandboxState, referral: Referral, commission: Record<string, unknown>, change: string): Referral {
  referral.commission = { ...(referral.commission ?? {}), ...commission };
  referral.lastUpdateTime = state.nowIso();
  emitEvent(state, { action: 'UPDATED', entityType: 'REFERRAL', entityID: referral.id, entityName: referral.name, entityStatus: referral.status, partner: referral.partner, timestamp: referral.lastUpdateTime, createdBySource: 'API', info: { commission: change } });
  return referral;
}

export const commissionHandlers: HandlerTable = {
  // A proposed update of the commission terms (seller only): the terms are kept verbatim.
  'POST /org/{orgId}/cosell/referral/{referralId}/commission-update': ({ state, params, body }) => {
    const referral = found(state.store.referrals.get(params.referralId!), 'referral', params.referralId!);
    const terms = objectBody(body);
    if (Object.keys(terms).length === 0) throw badRequest('the proposed commission terms are empty: send the terms to change', { field: 'body' });
    mustBeWon(referral, 'a commission-terms update');
    return ok(commissionChanged(state, referral, { proposedUpdate: terms, proposedTime: state.nowIso() }, 'update proposed'));
  },

  // A commission lifecycle action: `action` names it (the contract lists none, so any name is kept).
  'PATCH /org/{orgId}/cosell/referral/{referralId}/commission': ({ state, params, body }) => {
    const referral = found(state.store.referrals.get(params.referralId!), 'referral', params.referralId!);
    const { action } = objectBody(body);
    if (typeof action !== 'string' || action.trim() === '') throw badRequest(`action must name the commission action to apply, got ${JSON.stringify(action) ?? 'nothing'}`, { field: 'action' });
    mustBeWon(referral, `the commission action ${action}`);
    return ok(commissionChanged(state, referral, { lastAction: action, lastActionTime: state.nowIso() }, action));
  },
};
