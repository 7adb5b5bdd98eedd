// The organization's services and quotas snapshot (§4.3 Organization; A20): the services switched on
// and each quota with its limit, the calls used in the current window and when that window ends.
import { SERVICES } from '../quotas.ts';
import { ok, type HandlerTable } from './common.ts';

export const organizationHandlers: HandlerTable = {
  'GET /org/{orgId}/services-and-quotas': ({ state, params }) =>
    ok({
      organizationID: params.orgId!,
      services: SERVICES.map((name) => ({ name, enabled: true })),
      quotas: state.quotas.quotas(params.orgId!, state.nowMs()),
    }),
};
