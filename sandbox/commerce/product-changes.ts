// What the change kind `product` does to a listed product (A18): the seller changes one dimension's list
// price in one of the product's currencies (5 % up or down), or, about one time in four while the product
// has fewer than four dimensions, adds a dimension priced in every currency the product is sold in.
import { EXTRA_DIMENSIONS, roundPrice } from './data/catalogue.ts';
import type { SandboxState } from './state.ts';
import type { Product, ProductDimension } from './types.ts';

const MAX_DIMENSIONS = 4;

export type ProductChange = { summary: string; info: Record<string, unknown> };

export function changeProduct(state: SandboxState, product: Product): ProductChange {
  const { random } = state;
  const dimensions = product.info.dimensions;
  const addable = EXTRA_DIMENSIONS.filter((extra) => !dimensions.some((dimension) => dimension.key === extra.key));
  const change = dimensions.length < MAX_DIMENSIONS && addable.length > 0 && (dimensions.length === 0 || random.chance(0.25)) ? addDimension(state, product, random.pick(addable)) : reprice(state, product);
  product.lastUpdateTime = state.nowIso();
  return change;
}

function addDimension(state: SandboxState, product: Product, extra: (typeof EXTRA_DIMENSIONS)[number]): ProductChange {
  const base = extra.type === 'COMMIT' ? state.random.amount(20, 400) : state.random.amount(0.01, 2);
  // Other currencies at a fixed rate from the dollar price, as a seller's price list would convert them.
  const perDollar: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 150 };
  const currencies = product.info.currencies.length > 0 ? product.info.currencies : ['USD'];
  const dimension: ProductDimension = { ...extra, prices: currencies.map((currency) => ({ currency, pricePerUnit: roundPrice(currency, base * (perDollar[currency] ?? 1)) })) };
  product.info = { ...product.info, dimensions: [...product.info.dimensions, dimension], currencies };
  return { summary: `dimension ${dimension.key} added to ${product.id}`, info: { changed: 'dimension', dimensionKey: dimension.key, dimensionType: dimension.type } };
}

function reprice(state: SandboxState, product: Product): ProductChange {
  const { random } = state;
  const dimension = random.pick(product.info.dimensions);
  const price = random.pick(dimension.prices);
  const previous = price.pricePerUnit;
  const next = roundPrice(price.currency, previous * (random.chance(0.7) ? 1.05 : 0.95));
  // A price too small to move by 5 % after rounding moves by its smallest step instead.
  price.pricePerUnit = next !== previous ? next : roundPrice(price.currency, previous + (price.currency === 'JPY' ? 1 : 0.0001));
  return {
    summary: `${product.id} ${dimension.key} ${price.currency} ${previous} -> ${price.pricePerUnit}`,
    info: { changed: 'price', dimensionKey: dimension.key, currency: price.currency, previousPricePerUnit: previous, pricePerUnit: price.pricePerUnit },
  };
}
