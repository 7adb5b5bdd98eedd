// The seeded, deterministic data set: same options ⇒ byte-identical records. Sizes derive from the
// entitlement count (buyers ≈ n/4, contacts ≈ 2 per buyer, offers ≈ n, referrals ≈ n/10, 8 products and a
// retired (DELETED) ninth).
import { createRandom } from './prng.ts';
import { type GenContext } from './data/common.ts';
import { makeEntitlement, type TermCounter } from './data/entitlements.ts';
import { makeHistory, type EventSource } from './data/events.ts';
import { indexParties, makeOffer, makeReferral } from './data/offers.ts';
import { makeBuyers, makeContacts, makeProducts, retiredProduct } from './data/parties.ts';
import { OFFER_TYPES, type Buyer, type Contact, type Entitlement, type EntitlementTerm, type NotificationEvent, type Offer, type Organization, type Product, type Referral } from './types.ts';

export const DEFAULT_BASE_TIME = '2026-01-01T00:00:00.000Z';

export type GeneratorOptions = {
  seed: number;
  entitlements: number;
  organizationId: string;
  /** Generated times lie before this instant; fixed so the data does not depend on the clock. */
  baseTime?: string;
};

export type Dataset = {
  organizations: Organization[];
  products: Product[];
  buyers: Buyer[];
  contacts: Contact[];
  offers: Offer[];
  entitlements: Entitlement[];
  entitlementTerms: EntitlementTerm[];
  referrals: Referral[];
  notificationEvents: NotificationEvent[];
};

export function generateDataset(options: GeneratorOptions): Dataset {
  const ctx: GenContext = {
    random: createRandom(options.seed),
    organizationId: options.organizationId,
    baseMs: Date.parse(options.baseTime ?? DEFAULT_BASE_TIME),
    externalIds: new Set(),
  };
  const n = Math.max(0, Math.floor(options.entitlements));
  const products = makeProducts(ctx, 8);
  const buyers = makeBuyers(ctx, Math.max(6, Math.round(n / 4)));
  const contacts = makeContacts(ctx, buyers);
  const parties = indexParties(products, buyers, contacts);

  // The first offers walk through the products (hence marketplaces A..F) and every offer type, and the
  // fourth one is oversized, so small data sets still hold every case the tests look for.
  const offerCount = Math.max(OFFER_TYPES.length, n);
  const offers: Offer[] = [];
  for (let i = 0; i < offerCount; i++) {
    const early = i < 12;
    offers.push(
      makeOffer(ctx, i + 1, parties, {
        product: early ? products[i % products.length] : undefined,
        offerType: i < OFFER_TYPES.length ? OFFER_TYPES[i] : undefined,
        oversized: i === 3 ? true : undefined,
        status: i < 6 ? 'ACCEPTED' : undefined,
        expectedCount: offerCount,
      }),
    );
  }

  const entitlements: Entitlement[] = [];
  const entitlementTerms: EntitlementTerm[] = [];
  const termCounter: TermCounter = { next: 1 };
  for (let i = 0; i < n; i++) {
    const offer = i < Math.min(12, offers.length) ? offers[i]! : ctx.random.pick(offers);
    const made = makeEntitlement(ctx, i + 1, offer, parties, termCounter, {
      expectedCount: n,
      dividedCommit: i === 2 ? true : undefined,
      status: i < 6 ? 'ACTIVE' : undefined,
    });
    entitlements.push(made.entitlement);
    entitlementTerms.push(...made.terms);
  }

  const referralCount = Math.max(2, Math.round(n / 10));
  const referrals: Referral[] = [];
  for (let i = 0; i < referralCount; i++) referrals.push(makeReferral(ctx, i + 1, parties, offers, { expectedCount: referralCount }));

  const sources: EventSource[] = [
    ...products.map((p) => ({ entityType: 'PRODUCT', id: p.id, name: p.name, status: p.status, partner: p.partner, creationTime: p.creationTime, lastUpdateTime: p.lastUpdateTime })),
    ...buyers.map((b) => ({ entityType: 'BUYER', id: b.id, name: b.name, status: b.status, partner: b.partner, creationTime: b.creationTime, lastUpdateTime: b.lastUpdateTime })),
    ...contacts.map((c) => ({ entityType: 'CONTACT', id: c.id, name: `${c.firstName} ${c.lastName}`, contactIds: [c.id], creationTime: c.creationTime, lastUpdateTime: c.lastUpdateTime })),
    ...offers.map((o) => ({ entityType: 'OFFER', id: o.id, name: o.name, status: o.status, partner: o.partner, contactIds: o.contactIds, creationTime: o.creationTime, lastUpdateTime: o.lastUpdateTime })),
    ...entitlements.map((e) => ({ entityType: 'ENTITLEMENT', id: e.id, name: e.name, status: e.status, partner: e.partner, creationTime: e.creationTime, lastUpdateTime: e.lastUpdateTime })),
    ...referrals.map((r) => ({ entityType: 'REFERRAL', id: r.id, name: r.name, status: r.status, partner: r.partner, creationTime: r.creationTime, lastUpdateTime: r.lastUpdateTime })),
  ];
  const notificationEvents = makeHistory(ctx.random, options.organizationId, ctx.baseMs, sources);

  return {
    organizations: [{ id: options.organizationId, name: 'Sandbox Seller Inc.' }],
    // The retired product comes last and draws nothing, so the records above are what the seed always made.
    products: [...products, retiredProduct(ctx, products.length + 1)],
    buyers,
    contacts,
    offers,
    entitlements,
    entitlementTerms,
    referrals,
    notificationEvents,
  };
}
