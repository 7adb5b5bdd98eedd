// Plain helpers for the expected CRM state, written from the documented rules (README "Default objects
// and fields", each mapping's `describe`, the contract §2 and docs/commerce-api-assumptions.md), never
// from mappings/: a test that used the code under test to compute its expectation could not fail.

import { expectedRevenueFacts } from './expected-revenue.ts';

/** README and the describes: partner codes cloudA..cloudF appear as "Marketplace A".."Marketplace F". */
export const MARKETPLACE: Record<string, string> = {
  cloudA: 'Marketplace A',
  cloudB: 'Marketplace B',
  cloudC: 'Marketplace C',
  cloudD: 'Marketplace D',
  cloudE: 'Marketplace E',
  cloudF: 'Marketplace F',
};

/** An unknown partner code (§9.5: enumerations grow) is expected as it came. */
export const marketplaceOf = (partner: unknown): string | undefined => (typeof partner === 'string' && partner ? (MARKETPLACE[partner] ?? partner) : undefined);

/**
 * The Opportunity stage of each of §3's nine offer statuses. The describe names ACCEPTED -> Closed Won
 * and EXPIRED -> Closed Lost; the rest is the expectation of this test: open offers are in proposal,
 * failed or cancelling ones in negotiation, used ones won, deleted ones lost.
 */
export const STAGE_OF_STATUS: Record<string, string> = {
  PENDING_CREATE: 'Prospecting',
  PENDING_ACCEPTANCE: 'Proposal/Price Quote',
  ACTIVE: 'Proposal/Price Quote',
  UPDATE_FAILED: 'Negotiation/Review',
  PENDING_CANCEL: 'Negotiation/Review',
  ACCEPTED: 'Closed Won',
  USED: 'Closed Won',
  EXPIRED: 'Closed Lost',
  DELETED: 'Closed Lost',
};

/** A6's buyer statuses on the Account; a status the contract does not list yet is kept as it came. */
export const ACCOUNT_STATUS: Record<string, string> = { ACTIVE: 'Active', DELETED: 'Deleted' };

/** A time the contract allows (ISO 8601 text, or epoch milliseconds for marketplace D): its instant, or a reason. */
export function instantOf(value: unknown): { ms: number } | { problem: string } {
  if (typeof value === 'number' && Number.isFinite(value)) return { ms: value };
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return { ms };
  }
  return { problem: `${JSON.stringify(value)} is not a date-time` };
}

export class ExpectedRejection extends Error {}

/**
 * A datetime field as written: to the second in UTC with "Z" (Salesforce keeps no milliseconds); null
 * stays null (it clears the field); absent stays absent (never overwrites); garbage rejects the record.
 */
export function expectedDateTime(value: unknown, source: string): string | null | undefined {
  if (value === null) return null;
  if (value === undefined || value === '') return undefined;
  const instant = instantOf(value);
  if ('problem' in instant) throw new ExpectedRejection(`${source} ${instant.problem}`);
  return new Date(instant.ms).toISOString().slice(0, 19) + 'Z';
}

/** A date field as written: the UTC day of the instant. */
export function expectedDate(value: unknown, source: string): string | null | undefined {
  const dateTime = expectedDateTime(value, source);
  return typeof dateTime === 'string' ? dateTime.slice(0, 10) : dateTime;
}

/** Amounts are numbers (§2); anything else is not written. */
export const money = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

type Term = { id?: string; startTime?: unknown; commitAmount?: unknown; usedCommitAmount?: unknown; creditAmount?: unknown; usedCreditAmount?: unknown; info?: { parentEntitlementTermId?: string } };

/**
 * The term whose amounts describe the entitlement (describe: "current term"): the one the entitlement
 * names in entitlementTermID, else the one that started last. A sub term of a divided commit
 * (parentEntitlementTermId, §2.2) splits its parent's commit and never counts on its own.
 */
export function expectedCurrentTerm(entitlementTermID: unknown, terms: Term[]): Term | undefined {
  const candidates = terms.filter((term) => !term.info?.parentEntitlementTermId);
  const named = candidates.find((term) => term.id === entitlementTermID);
  if (named) return named;
  let latest: Term | undefined;
  let latestStart = -Infinity;
  for (const term of candidates) {
    const instant = instantOf(term.startTime);
    const start = 'ms' in instant ? instant.ms : 0;
    if (latest === undefined || start > latestStart) [latest, latestStart] = [term, start];
  }
  return latest;
}

const nonEmpty = (value: unknown): string | undefined => (value === undefined || value === null || value === '' ? undefined : String(value));
const firstOf = (list: unknown): Record<string, unknown> | undefined => (Array.isArray(list) && list.length > 0 ? list[0] : undefined);

/**
 * The entitlement describe: agreement id "A: agreement id; B: asset id; C: entitlement name; D: order
 * id; E/F: offer id", subscription id "A: license ARN; B: subscription id; D: instance id" (§2.3, §2.10).
 */
export function expectedMarketplaceIds(partner: unknown, info: Record<string, any> = {}): { agreement?: string; subscription?: string } {
  switch (partner) {
    case 'cloudA':
      return { agreement: nonEmpty(info.cloudAAgreement?.agreementId), subscription: nonEmpty(info.cloudALicenseArn) };
    case 'cloudB':
      return { agreement: nonEmpty(info.cloudBAssetID), subscription: nonEmpty(firstOf(info.cloudBSubscriptions)?.id) };
    case 'cloudC':
      return { agreement: nonEmpty(firstOf(info.cloudCEntitlements)?.name) };
    case 'cloudD':
      return { agreement: nonEmpty(firstOf(info.cloudDOrders)?.OrderId), subscription: nonEmpty(firstOf(info.cloudDEntitlements)?.InstanceId) };
    case 'cloudE':
      return { agreement: nonEmpty(info.cloudEAcceptedOffer?.id) };
    case 'cloudF':
      return { agreement: nonEmpty(info.cloudFOffer?.id) };
    default:
      return {};
  }
}

/** Leaves out what is not known: an absent value is not written (so it never overwrites), null is. */
export function withoutAbsent(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * What an entitlement and its terms say, by the documented rules (each CRM's witness names the fields
 * its CRM uses): the current term's amounts (the entitlement's commit amount when no term gives one),
 * its dates to the second, the marketplace and its own agreement and subscription ids.
 */
export function expectedEntitlementFacts(entitlement: any, terms: Term[], id: string) {
  const where = (field: string) => `entitlement ${id}: ${field}`;
  const term = expectedCurrentTerm(entitlement.entitlementTermID, terms) as Record<string, unknown> | undefined;
  const ids = expectedMarketplaceIds(entitlement.partner, entitlement.info ?? {});
  return {
    name: entitlement.name || id,
    status: entitlement.status,
    start: expectedDateTime(entitlement.startTime, where('startTime')),
    end: expectedDateTime(entitlement.endTime, where('endTime')),
    commitAmount: money(term?.commitAmount) ?? money(entitlement.info?.commitAmount),
    usedCommitAmount: money(term?.usedCommitAmount),
    creditAmount: money(term?.creditAmount),
    usedCreditAmount: money(term?.usedCreditAmount),
    annualizedAmount: money(entitlement.info?.annualizedAmount),
    currency: entitlement.info?.currency || 'USD',
    marketplace: marketplaceOf(entitlement.partner),
    agreementId: ids.agreement,
    subscriptionId: ids.subscription,
    productId: entitlement.productID,
    offerId: entitlement.offerID,
    ...expectedRevenueFacts(entitlement, term, entitlement.info?.currency || 'USD', id),
  };
}
