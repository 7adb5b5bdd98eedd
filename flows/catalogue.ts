// The product catalogue (issue #28 section 1; docs/catalogue.md): commerce products become CRM products,
// one per product dimension keyed "productId|dimensionKey", with their prices. Three flows, run in this
// order (parents first): `catalogue` (the products), `catalogue-standard-price` (Salesforce only: the
// standard price book's entry per price key and currency, which Salesforce requires before any other
// price) and `catalogue-price` (the connection's price book's entries on Salesforce, the price list items
// per currency on Dynamics). HubSpot keeps prices on the product, so only `catalogue` runs there (a flow
// without a mapping for a CRM kind does not run there). A connection chooses `catalogue`; the price flows
// come with it (mappings/types.ts withCatalogueFlows). All three are `due` flows: every run reads every
// product (flows/catalogue-reads.ts) and content hashes keep a quiet run from writing. A DELETED product's
// CRM products become inactive, never deleted (Dynamics: retired, flows/catalogue-states.ts). A record
// read by id (a dead letter's retry) is read with the connection's settings (ByIdContext), as in a run.
import { catalogueToDynamicsProduct, priceToDynamicsPriceListItem } from '../mappings/dynamics/catalogue.ts';
import { catalogueToHubSpotProduct } from '../mappings/hubspot/catalogue.ts';
import { catalogueToProduct2, priceToPricebookEntry, standardPriceToPricebookEntry } from '../mappings/salesforce/catalogue.ts';
import { catalogueItemById, cataloguePriceById, dueCatalogue, duePrices } from './catalogue-reads.ts';
import { settleDynamicsProductStates } from './catalogue-states.ts';
import type { CommerceToCrmFlow } from './types.ts';

type Names = 'catalogue' | 'catalogue-standard-price' | 'catalogue-price';

export const catalogueFlow = {
  name: 'catalogue',
  direction: 'commerce-to-crm',
  source: {
    // Read by `due` on every run; the window is the products' (unused), reads by id parse the price key.
    window: (commerce, orgId, query) => commerce.products.query(orgId, query),
    byId: catalogueItemById,
  },
  // A PRODUCT event names a product, not one of its dimensions: the next run reads the catalogue whole.
  events: [],
  parents: [],
  due: (commerce, orgId, context) => dueCatalogue(commerce, orgId, context),
  mappings: { salesforce: catalogueToProduct2, hubspot: catalogueToHubSpotProduct, dynamics: catalogueToDynamicsProduct },
  deletes: 'reflect-status',
  afterWrite: settleDynamicsProductStates,
} satisfies CommerceToCrmFlow<Names>;

const standardPrices = duePrices('standard');
export const catalogueStandardPriceFlow = {
  name: 'catalogue-standard-price',
  direction: 'commerce-to-crm',
  source: {
    window: (commerce, orgId, query) => commerce.products.query(orgId, query),
    byId: (commerce, orgId, id, context) => cataloguePriceById(commerce, orgId, id, 'standard', context),
  },
  events: [],
  parents: ['catalogue'],
  due: (commerce, orgId, context) => standardPrices(commerce, orgId, { ...context, entity: 'catalogue-standard-price' }),
  mappings: { salesforce: standardPriceToPricebookEntry },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<Names>;

const namedPrices = duePrices('named');
export const cataloguePriceFlow = {
  name: 'catalogue-price',
  direction: 'commerce-to-crm',
  source: {
    window: (commerce, orgId, query) => commerce.products.query(orgId, query),
    byId: (commerce, orgId, id, context) => cataloguePriceById(commerce, orgId, id, 'named', context),
  },
  events: [],
  // After the standard prices (a Salesforce price book entry needs its product's standard price first).
  parents: ['catalogue', 'catalogue-standard-price'],
  due: (commerce, orgId, context) => namedPrices(commerce, orgId, { ...context, entity: 'catalogue-price' }),
  mappings: { salesforce: priceToPricebookEntry, dynamics: priceToDynamicsPriceListItem },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<Names>;
