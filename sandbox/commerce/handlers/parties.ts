// Organizations, buyers and contacts (A5, A6): list, query and get.
import { runQuery } from '../paging.ts';
import { filterList, found, listReply, ok, type HandlerTable } from './common.ts';

export const partyHandlers: HandlerTable = {
  'GET /org': ({ state }) => ok(state.store.organizations.rows.map(({ id, name }) => ({ id, name }))),

  'GET /org/{orgId}/buyer': ({ state, query }) =>
    listReply(filterList(state.store.buyers.rows, query, { partner: (b) => b.partner, status: (b) => b.status, externalId: (b) => b.externalID }), query),
  'GET /org/{orgId}/buyer/query': ({ state, query }) => ok(runQuery(state.store.buyers.rows, query, state.settings.totalCountCap)),
  'GET /org/{orgId}/buyer/{buyerId}': ({ state, params }) => ok(found(state.store.buyers.get(params.buyerId!), 'buyer', params.buyerId!)),

  'GET /org/{orgId}/contact': ({ state, query }) =>
    listReply(filterList(state.store.contacts.rows, query, { buyerId: (c) => c.buyerID, email: (c) => c.email }), query),
  'GET /org/{orgId}/contact/query': ({ state, query }) => ok(runQuery(state.store.contacts.rows, query, state.settings.totalCountCap)),
  'GET /org/{orgId}/contact/{contactId}': ({ state, params }) => ok(found(state.store.contacts.get(params.contactId!), 'contact', params.contactId!)),
};
