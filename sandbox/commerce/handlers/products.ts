// Products (A18): list, query, get, the list by cloud partner and a product's dimensions.
import { badRequest } from '../errors.ts';
import { runQuery } from '../paging.ts';
import type { SandboxState } from '../state.ts';
import { PARTNERS } from '../types.ts';
import { filterList, found, listReply, ok, type HandlerTable } from './common.ts';

const productOf = (state: SandboxState, id: string) => found(state.store.products.get(id), 'product', id);

const LIST_FILTERS = { partner: (p: { partner: string }) => p.partner, status: (p: { status: string }) => p.status, productType: (p: { productType: string }) => p.productType };

export const productHandlers: HandlerTable = {
  'GET /org/{orgId}/product': ({ state, query }) => listReply(filterList(state.store.products.rows, query, LIST_FILTERS), query),

  'GET /org/{orgId}/product/query': ({ state, query }) => ok(runQuery(state.store.products.rows, query, state.settings.totalCountCap)),

  'GET /org/{orgId}/product/{productId}': ({ state, params }) => ok(productOf(state, params.productId!)),

  'GET /org/{orgId}/partner/{partner}/product': ({ state, params, query }) => {
    const partner = params.partner!;
    if (!(PARTNERS as readonly string[]).includes(partner)) throw badRequest(`partner must be one of ${PARTNERS.join(', ')}, got ${JSON.stringify(partner)}`, { parameter: 'partner' });
    return listReply(filterList(state.store.products.rows.filter((product) => product.partner === partner), query, LIST_FILTERS), query);
  },

  // A JSON array paged by limit and offset, like the other lists (A5); a poison product's odd `info` lists nothing.
  'GET /org/{orgId}/product/{productId}/dimension': ({ state, params, query }) => {
    const dimensions = (productOf(state, params.productId!).info as { dimensions?: unknown } | undefined)?.dimensions;
    return listReply(Array.isArray(dimensions) ? dimensions : [], query);
  },
};
