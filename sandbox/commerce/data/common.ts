// Helpers shared by the data generators: ids, times on a coarse grid (so many records share one
// lastUpdateTime, which cursor tests need), marketplace-shaped external ids, word lists.
import type { Random } from '../prng.ts';
import type { Partner } from '../types.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Generated lastUpdateTime values fall on this grid, so several records share each instant. */
export const GRID_MS = 15 * MINUTE;

export type GenContext = {
  random: Random;
  organizationId: string;
  baseMs: number;
  /** Every external id handed out so far: by-external-id lookups must find exactly one record. */
  externalIds: { has(id: string): boolean; add(id: string): unknown };
};

const dayPrefixes = new Map<number, number[]>();
const isoCodes: number[] = new Array(24);
const ZERO = 48;
/**
 * Date#toISOString, but fast: generating 10,000 entitlements formats some 500,000 instants. The
 * string is built from char codes in one go, because a template literal would leave a rope of
 * small strings behind every timestamp for the garbage collector to copy.
 */
export function iso(ms: number): string {
  const day = Math.floor(ms / DAY);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    const text = new Date(day * DAY).toISOString();
    prefix = Array.from({ length: 11 }, (_, i) => text.charCodeAt(i));
    dayPrefixes.set(day, prefix);
  }
  const rest = ms - day * DAY;
  const millis = rest % 1000;
  const seconds = Math.floor(rest / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds / 60) % 60;
  const secs = seconds % 60;
  for (let i = 0; i < 11; i++) isoCodes[i] = prefix[i]!;
  isoCodes[11] = ZERO + Math.floor(hours / 10);
  isoCodes[12] = ZERO + (hours % 10);
  isoCodes[13] = 58; // ':'
  isoCodes[14] = ZERO + Math.floor(minutes / 10);
  isoCodes[15] = ZERO + (minutes % 10);
  isoCodes[16] = 58;
  isoCodes[17] = ZERO + Math.floor(secs / 10);
  isoCodes[18] = ZERO + (secs % 10);
  isoCodes[19] = 46; // '.'
  isoCodes[20] = ZERO + Math.floor(millis / 100);
  isoCodes[21] = ZERO + (Math.floor(millis / 10) % 10);
  isoCodes[22] = ZERO + (millis % 10);
  isoCodes[23] = 90; // 'Z'
  return String.fromCharCode(...isoCodes);
}

export const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const recordId = (prefix: string, n: number, width = 6) => `${prefix}-${pad(n, width)}`;

/** A past instant on the grid; about `rowsPerInstant` rows of `count` share each instant. */
export function tiedPast(ctx: GenContext, count: number, rowsPerInstant = 4): number {
  const buckets = Math.max(8, Math.ceil(count / rowsPerInstant));
  return ctx.baseMs - ctx.random.int(0, buckets - 1) * GRID_MS;
}

/** Creation some days before `lastUpdateMs`, with milliseconds so creation times rarely tie. */
export const createdBefore = (ctx: GenContext, lastUpdateMs: number, maxDays = 540) =>
  lastUpdateMs - ctx.random.int(0, maxDays) * DAY - ctx.random.int(0, DAY - 1);

export function uniqueExternalId(ctx: GenContext, make: () => string): string {
  for (;;) {
    const id = make();
    if (!ctx.externalIds.has(id)) {
      ctx.externalIds.add(id);
      return id;
    }
  }
}

/** The seller's own account id on each marketplace (Offer.partnerID). */
export const SELLER_ACCOUNT: Record<Partner, string> = {
  cloudA: '210987654321',
  cloudB: '5f1c2a9e-7d3b-4c1a-9e2f-0b6d8a4c3e71',
  cloudC: 'seller-cloudc-4417',
  cloudD: '1688000912',
  cloudE: 'ce-seller-77',
  cloudF: 'cf-seller-31',
};

export function offerExternalId(ctx: GenContext, partner: string): string {
  const r = ctx.random;
  return uniqueExternalId(ctx, () => {
    switch (partner) {
      case 'cloudA': return `offer-${r.alnum(13)}`;
      case 'cloudB': return r.guid();
      case 'cloudC': return `projects/${r.digits(12)}/services/app.endpoints.example.cloud/privateOffers/${r.digits(10)}`;
      case 'cloudD': return r.digits(12);
      case 'cloudE': return `eo-${r.alnum(10)}`;
      default: return `fo-${r.alnum(12)}`;
    }
  });
}

export function buyerExternalId(ctx: GenContext, partner: string): string {
  const r = ctx.random;
  return uniqueExternalId(ctx, () => {
    switch (partner) {
      case 'cloudA': return r.digits(12);
      case 'cloudB': return r.guid();
      case 'cloudC': return `billingAccounts/${r.hex(6).toUpperCase()}-${r.hex(6).toUpperCase()}-${r.hex(6).toUpperCase()}`;
      case 'cloudD': return r.digits(16);
      case 'cloudE': return `eb-${r.alnum(12)}`;
      default: return `fb-${r.alnum(12)}`;
    }
  });
}

export function entitlementExternalId(ctx: GenContext, partner: string): string {
  const r = ctx.random;
  return uniqueExternalId(ctx, () => {
    switch (partner) {
      case 'cloudA': return `agmt-${r.alnum(25)}`;
      case 'cloudB': return r.guid();
      case 'cloudC': return `providers/seller/entitlements/${r.guid()}`;
      case 'cloudD': return r.digits(14);
      case 'cloudE': return `ee-${r.alnum(14)}`;
      default: return `fe-${r.alnum(14)}`;
    }
  });
}

/** Formats of the three CRMs' ids: an 18-char record id, a numeric deal id, a lowercased GUID (§4.2). */
export const crmAOpportunityId = (r: Random) => `006${r.alnum(15).toUpperCase()}`;
export const crmAAccountId = (r: Random) => `001${r.alnum(15).toUpperCase()}`;
export const crmBDealId = (r: Random) => `${r.int(1, 9)}${r.digits(10)}`;
export const crmCOpportunityId = (r: Random) => r.guid();

export const COMPANY_HEADS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Wonka', 'Tyrell', 'Cyberdyne', 'Soylent', 'Hooli', 'Vandelay', 'Massive', 'Nakatomi', 'Oscorp', 'Aperture', 'Gringotts', 'Monarch', 'Dunder', 'Pied Piper'];
export const COMPANY_TAILS = ['Logistics', 'Holdings', 'Analytics', 'Health', 'Retail', 'Energy', 'Labs', 'Foods', 'Media', 'Systems', 'Bank', 'Motors'];
export const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Dennis', 'Radia', 'Linus', 'Hedy', 'Tim', 'Katherine', 'Guido', 'Anita', 'Bjarne', 'Shafi', 'Leslie'];
export const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Ritchie', 'Perlman', 'Torvalds', 'Lamarr', 'Berners-Lee', 'Johnson', 'van Rossum', 'Borg', 'Stroustrup', 'Goldwasser', "O'Neil"];
export const TITLES = ['CTO', 'VP Engineering', 'Procurement Manager', 'Head of Data', 'IT Director', 'CFO', 'Platform Lead'];
export const COUNTRIES = ['US', 'US', 'US', 'GB', 'DE', 'FR', 'JP', 'AU', 'CA', 'IN', 'BR', 'SG'];
export const PRODUCT_NAMES = ['Insight Analytics', 'Vault Backup', 'Streamline ETL', 'Sentinel Security', 'Atlas Search', 'Pulse Monitoring', 'Beacon Identity', 'Harbor Containers'];
export const PRODUCT_TYPES = ['SAAS', 'AMI', 'SAAS', 'CONTAINER', 'SAAS', 'VM', 'SAAS', 'PROFESSIONAL_SERVICES'];
