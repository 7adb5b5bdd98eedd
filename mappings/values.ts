// Small pure helpers the mappings share: times in either wire form, money, marketplace names and ids.
import { toDate, type Entitlement, type EntitlementTerm, type Time } from '../commerce/models.ts';

export const MARKETPLACE_NAMES: Record<string, string> = {
  cloudA: 'Marketplace A',
  cloudB: 'Marketplace B',
  cloudC: 'Marketplace C',
  cloudD: 'Marketplace D',
  cloudE: 'Marketplace E',
  cloudF: 'Marketplace F',
};

/** 'Marketplace A' for cloudA; an unknown partner code is kept as it came (§9.5). */
export function marketplaceName(partner: string | undefined): string | undefined {
  return partner ? (MARKETPLACE_NAMES[partner] ?? partner) : undefined;
}

export class UnparseableTimeError extends Error {}

/**
 * ISO date-time for a CRM datetime field, to the second (Salesforce keeps no milliseconds, so what is
 * written is exactly what is stored); null stays null; garbage is an error naming the field.
 */
export function isoDateTime(value: Time | null | undefined, field: string): string | null | undefined {
  if (value === null) return null;
  if (value === undefined || value === '') return undefined;
  const date = toDate(value);
  if (!date) throw new UnparseableTimeError(`${field} ${JSON.stringify(value)} is not a date-time`);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** YYYY-MM-DD for a CRM date field. */
export function isoDate(value: Time | null | undefined, field: string): string | null | undefined {
  const dateTime = isoDateTime(value, field);
  return dateTime ? dateTime.slice(0, 10) : dateTime;
}

/** The currency a commerce record's amounts are in: its own, else USD (the contract's default, spec §2). */
export function commerceCurrency(currency: string | null | undefined): string {
  return currency || 'USD';
}

export function amount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The term whose amounts describe the entitlement now: the one the entitlement names, else the
 * latest-starting top-level term. Sub terms of a divided commit split their parent's commit, so they
 * are never counted on their own.
 */
export function currentTerm(entitlement: Entitlement, terms: EntitlementTerm[]): EntitlementTerm | undefined {
  const topLevel = terms.filter((term) => !term.info?.parentEntitlementTermId);
  const named = topLevel.find((term) => term.id === entitlement.entitlementTermID);
  if (named) return named;
  return [...topLevel].sort((a, b) => (toDate(b.startTime)?.getTime() ?? 0) - (toDate(a.startTime)?.getTime() ?? 0))[0];
}

/** The marketplace's own agreement/order id and subscription/instance id, by marketplace. */
export function marketplaceIds(entitlement: Entitlement): { agreementId?: string; subscriptionId?: string } {
  const info = entitlement.info ?? {};
  const first = (list: unknown) => (Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined) : undefined);
  const text = (value: unknown) => (value === undefined || value === null || value === '' ? undefined : String(value));
  switch (entitlement.partner) {
    case 'cloudA':
      return { agreementId: text(info.cloudAAgreement?.agreementId), subscriptionId: text(info.cloudALicenseArn) };
    case 'cloudB':
      return { agreementId: text(info.cloudBAssetID), subscriptionId: text(first(info.cloudBSubscriptions)?.id) };
    case 'cloudC':
      return { agreementId: text(first(info.cloudCEntitlements)?.name ?? first(info.cloudCEntitlements)?.id) };
    case 'cloudD':
      return { agreementId: text(first(info.cloudDOrders)?.OrderId), subscriptionId: text(first(info.cloudDEntitlements)?.InstanceId) };
    case 'cloudE':
      return { agreementId: text((info.cloudEAcceptedOffer as Record<string, unknown> | undefined)?.id) };
    case 'cloudF':
      return { agreementId: text((info.cloudFOffer as Record<string, unknown> | undefined)?.id) };
    default:
      return {};
  }
}

/** Drops undefined values so "not known" never overwrites a CRM value, while null still clears one. */
export function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Dynamics ids are GUIDs; the contract wants them lowercased and without braces (§2.6). */
export function dynamicsGuid(id: string): string {
  return id.trim().replace(/^\{|\}$/g, '').toLowerCase();
}
