// The draft renewal offer of an entitlement (marketplace A): the pending draft, 404 when there is none (§7.4, A15).
import { notFound } from '../errors.ts';
import { draftOf } from '../renewals.ts';
import { found, ok, type HandlerTable } from './common.ts';

export const renewalHandlers: HandlerTable = {
  'GET /org/{orgId}/entitlement/{entitlementId}/renewal/draftOffer': ({ state, params }) => {
    const entitlement = found(state.store.entitlements.get(params.entitlementId!), 'entitlement', params.entitlementId!);
    const draft = draftOf(state.store, entitlement.id);
    if (!draft) throw notFound(`entitlement ${entitlement.id} has no pending draft renewal offer`);
    return ok(draft);
  },
};
