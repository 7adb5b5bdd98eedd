// Products, buyers and their contacts. Products and the first buyers cycle through marketplaces A..F
// so that even a tiny data set holds every marketplace.
import { PARTNERS, type Buyer, type Contact, type Partner, type Product } from '../types.ts';
import { CATALOGUE } from './catalogue.ts';
import {
  buyerExternalId,
  DAY,
  COMPANY_HEADS,
  COMPANY_TAILS,
  COUNTRIES,
  createdBefore,
  crmAAccountId,
  FIRST_NAMES,
  iso,
  LAST_NAMES,
  PRODUCT_NAMES,
  PRODUCT_TYPES,
  recordId,
  SELLER_ACCOUNT,
  tiedPast,
  TITLES,
  uniqueExternalId,
  type GenContext,
} from './common.ts';

export function makeProducts(ctx: GenContext, count: number): Product[] {
  const r = ctx.random;
  const products: Product[] = [];
  for (let i = 0; i < count; i++) {
    const partner = PARTNERS[i % PARTNERS.length]!;
    const last = tiedPast(ctx, count);
    // The catalogue (A18) is fixed, not drawn; these draws made the dimensions before it existed and
    // are kept so that every record after the products is exactly what the seed always made.
    for (let d = r.int(2, 5); d > 0; d--) r.pick(['Units', 'Hours', 'GB', 'Requests']);
    const entry = CATALOGUE[i % CATALOGUE.length]!;
    products.push({
      id: recordId('prod', i + 1),
      organizationID: ctx.organizationId,
      name: PRODUCT_NAMES[i % PRODUCT_NAMES.length]! + (i >= PRODUCT_NAMES.length ? ` ${i + 1}` : ''),
      partner,
      partnerID: SELLER_ACCOUNT[partner],
      productType: PRODUCT_TYPES[i % PRODUCT_TYPES.length]!,
      status: 'PUBLIC',
      externalID: uniqueExternalId(ctx, () => `prod-${r.alnum(20)}`),
      creationTime: iso(createdBefore(ctx, last, 900)),
      lastUpdateTime: iso(last),
      info: catalogueInfo(entry),
    });
  }
  return products;
}

const catalogueInfo = (entry: (typeof CATALOGUE)[number]) => ({
  dimensions: entry.dimensions.map((dimension) => ({ ...dimension, prices: dimension.prices.map((price) => ({ ...price })) })),
  currencies: [...entry.currencies],
  vendorName: 'Sandbox Software Inc.',
});

/**
 * The catalogue's retired product (A18, §3: a product is soft-deleted to DELETED): the last of the
 * catalogue, made after every other record and without a draw, so the seed's data is as it was. Its
 * times are fixed before the data's base time; it has no event in the generated history.
 */
export function retiredProduct(ctx: GenContext, number: number): Product {
  const entry = CATALOGUE[CATALOGUE.length - 1]!;
  const partner: Partner = 'cloudC';
  return {
    id: recordId('prod', number),
    organizationID: ctx.organizationId,
    name: entry.name,
    partner,
    partnerID: SELLER_ACCOUNT[partner],
    productType: entry.productType,
    status: 'DELETED',
    externalID: `prod-retired${String(number).padStart(13, '0')}`,
    creationTime: iso(ctx.baseMs - 400 * DAY),
    lastUpdateTime: iso(ctx.baseMs - 20 * DAY),
    info: catalogueInfo(entry),
  };
}

export function makeBuyers(ctx: GenContext, count: number): Buyer[] {
  const r = ctx.random;
  const buyers: Buyer[] = [];
  for (let i = 0; i < count; i++) {
    const partner: Partner = i < PARTNERS.length ? PARTNERS[i]! : r.pick(PARTNERS);
    const head = r.pick(COMPANY_HEADS);
    const name = `${head} ${r.pick(COMPANY_TAILS)} ${i + 1}`;
    const last = tiedPast(ctx, count);
    const metaInfo: Record<string, unknown> = { customMetaInfo: { segment: r.pick(['SMB', 'MID_MARKET', 'ENTERPRISE']) } };
    if (r.chance(0.4)) metaInfo.crmAAccountId = crmAAccountId(r);
    if (r.chance(0.3)) metaInfo.crmBCompanyId = r.digits(10);
    if (r.chance(0.3)) metaInfo.crmCAccountId = r.guid();
    buyers.push({
      id: recordId('buyer', i + 1),
      organizationID: ctx.organizationId,
      name,
      externalID: buyerExternalId(ctx, partner),
      partner,
      emailDomain: `${head.toLowerCase().replace(/[^a-z]/g, '')}${i + 1}.example.com`,
      country: r.pick(COUNTRIES),
      status: r.chance(0.05) ? 'DELETED' : 'ACTIVE',
      creationTime: iso(createdBefore(ctx, last)),
      lastUpdateTime: iso(last),
      metaInfo,
    });
  }
  return buyers;
}

/** One to three contacts per buyer (two on average). */
export function makeContacts(ctx: GenContext, buyers: readonly Buyer[]): Contact[] {
  const r = ctx.random;
  const contacts: Contact[] = [];
  const expected = buyers.length * 2;
  for (const buyer of buyers) {
    const howMany = r.int(1, 3);
    for (let k = 0; k < howMany; k++) {
      const firstName = r.pick(FIRST_NAMES);
      const lastName = r.pick(LAST_NAMES);
      const last = tiedPast(ctx, expected);
      const n = contacts.length + 1;
      contacts.push({
        id: recordId('contact', n),
        organizationID: ctx.organizationId,
        buyerID: buyer.id,
        firstName,
        lastName,
        email: `${firstName}.${lastName}.${n}@${buyer.emailDomain}`.toLowerCase().replace(/[^a-z0-9.@-]/g, ''),
        phone: `+1-555-${r.digits(3)}-${r.digits(4)}`,
        title: r.pick(TITLES),
        tags: r.chance(0.5) ? [r.pick(['billing', 'technical', 'decision-maker', 'legal'])] : [],
        creationTime: iso(createdBefore(ctx, last)),
        lastUpdateTime: iso(last),
      });
    }
  }
  return contacts;
}
