// Products (0-7) and line items (0-8) as HubSpot keeps them (issue #28; docs/crm-wire-behaviour.md,
// HubSpot "Products and line items"): a line item made with hs_product_id is an instance of that product
// and takes its name, price, SKU, description and term unless the create gives its own; a line item's
// price cannot be negative; a term (hs_recurring_billing_period) is an ISO 8601 period; a line item's
// net price (amount) is HubSpot's to calculate, price times quantity, never written by a client.
import type { Store } from './store.ts';
import { productPriceProperty } from './schema.ts';

/** The properties a line item made from a product copies from it, where the create does not give them. */
export const COPIED_FROM_PRODUCT = ['name', 'price', 'hs_sku', 'description', 'hs_recurring_billing_period'] as const;

// PnYnMnD or PnW, at least one part (the line items guide); a product's P#M is one of these.
const PERIOD = /^P(?=\d)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?$/;

type Invalid = { isValid: false; message: string; error: string; name: string };

/** Why a checked value is not one the catalogue objects take (HubSpot's VALIDATION_ERROR entry), or undefined. */
export function catalogueValueProblem(store: Store, type: string, name: string, value: string): Invalid | undefined {
  if (value === '' || (type !== 'products' && type !== 'line_items')) return undefined;
  if (name === 'hs_recurring_billing_period' && !PERIOD.test(value)) {
    return { isValid: false, message: `${JSON.stringify(value)} is not a valid term: use an ISO 8601 period such as P12M, P1Y or P2W`, error: 'INVALID_PERIOD', name };
  }
  if (type !== 'line_items') return undefined;
  if (name === 'price' && Number(value) < 0) return { isValid: false, message: `The price of a line item cannot be negative (${value})`, error: 'INVALID_PRICE', name };
  if (name === 'hs_product_id') {
    const product = store.record('products', value);
    // HubSpot's words for an unknown product are not published [inf].
    if (!product || product.archived) return { isValid: false, message: `No product with id ${value} exists to make this line item from`, error: 'INVALID_PRODUCT_ID', name };
  }
  return undefined;
}

/**
 * A new line item's values with its product's filled in where the create leaves them out. In a
 * multi-currency account a line item in another currency takes the product's price in that currency
 * (hs_price_<code>) when the product has one [inf].
 */
export function withProductValues(store: Store, values: Record<string, string>): Record<string, string> {
  const productId = values.hs_product_id;
  if (!productId) return values;
  const product = store.record('products', productId);
  if (!product || product.archived) return values;
  const filled = { ...values };
  for (const name of COPIED_FROM_PRODUCT) {
    if (filled[name] === undefined && product.properties[name] !== undefined) filled[name] = product.properties[name]!;
  }
  const currency = values.hs_line_item_currency_code;
  const inCurrency = currency ? product.properties[productPriceProperty(currency)] : undefined;
  if (values.price === undefined && inCurrency !== undefined) filled.price = inCurrency;
  return filled;
}

/** Decimal text as a whole number and its scale, so that 19.99 x 3 is 59.97 exactly. */
function scaled(text: string): { units: bigint; scale: number } | undefined {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE][-+]?\d+)?$/.exec(text.trim());
  if (!match || /[eE]/.test(text)) {
    const n = Number(text);
    return Number.isFinite(n) ? scaled(n.toFixed(6)) : undefined;
  }
  const [, sign, whole, fraction = ''] = match;
  return { units: BigInt(`${sign}${whole || '0'}${fraction}`), scale: fraction.length };
}

function product(a: string, b: string): string | undefined {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y) return undefined;
  const units = x.units * y.units;
  const scale = x.scale + y.scale;
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Keeps a line item's calculated net price in step: price x quantity (a quantity left out counts as 1 [inf]). */
export function deriveLineItem(type: string, properties: Record<string, string>): void {
  if (type !== 'line_items') return;
  const price = properties.price;
  if (price === undefined) {
    delete properties.amount;
    return;
  }
  const amount = product(price, properties.quantity ?? '1');
  if (amount === undefined) delete properties.amount;
  else properties.amount = amount;
}
