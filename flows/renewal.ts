// Renewals (issue #25 section 3): an entitlement nearing its end -> one renewal opportunity (deal) on the
// buyer's account, linked to the entitlement, keyed by renewal-<entitlement id>. A renewal falls due with
// the clock, not with a change of its entitlement (nothing announces "90 days left"), so this flow reads
// what is due on every run (`due`), whole, instead of a change window: the entitlements ending within the
// connection's lead time, and the ended ones whose renewal is already in the CRM (to close it). Content
// hashes keep a quiet run from writing anything. For each, the pending draft renewal offer (marketplace A,
// 404 when none) and the entitlement that renewed it are read (`related`); the canonical renewal
// (mappings/canonical/renewal.ts) decides DUE, DRAFTED, WON or LOST.
import pLimit from 'p-limit';
import { parseRecord, q, sort, toDate, type CommerceClient, type Page } from '../commerce/index.ts';
import type { Entitlement, Offer } from '../commerce/models.ts';
import { hasEnded, type RenewalContext } from '../mappings/canonical/renewal.ts';
import { renewalToDynamicsOpportunity } from '../mappings/dynamics/renewal.ts';
import { renewalToHubSpotDeal } from '../mappings/hubspot/renewal.ts';
import { renewalToOpportunity } from '../mappings/salesforce/renewal.ts';
import { DEFAULT_RENEWAL_LEAD_DAYS, type ConnectionSettings } from '../sync/connection-settings.ts';
import { linkRenewingEntitlementsToPrevious } from './previous-entitlement-links.ts';
import { linkEntitlementsToRenewals } from './renewal-links.ts';
import type { CommerceToCrmFlow, RelatedRead, RelatedReader } from './types.ts';

const DAY_MS = 86_400_000;
/**
 * How long after its end an entitlement whose renewal is open is still read to close it: a worker
 * stopped for longer than this leaves that renewal open (the reconciliation of a later run does not
 * reach it either). A quarter, as the lead time.
 */
const CLOSE_WITHIN_DAYS = 90;

/** What a due read gives: the records, and the rows that could not be used. */
export type DueRead = { records: any[]; rejected: Page<any>['rejected'] };

/**
 * The entitlements whose renewal is due now: ending within the lead time and still running, and those
 * ended lately whose renewal opportunity is already in the CRM (`linked`), so it is closed; an
 * entitlement that ended before its renewal was ever made gets none.
 */
export async function dueRenewals(
  commerce: CommerceClient,
  orgId: string,
  context: { now: Date; settings: ConnectionSettings; linked(ids: string[]): Promise<Set<string>>; pageSize: number; signal?: AbortSignal },
): Promise<DueRead> {
  const leadDays = context.settings.renewals?.leadDays ?? DEFAULT_RENEWAL_LEAD_DAYS;
  const window = q.and(q.le('endTime', new Date(context.now.getTime() + leadDays * DAY_MS)), q.ge('endTime', new Date(context.now.getTime() - CLOSE_WITHIN_DAYS * DAY_MS)));
  const read: DueRead = { records: [], rejected: [] };
  for await (const page of commerce.entitlements.query(orgId, { q: window.expression, s: sort({ field: 'endTime' }, { field: 'id' }), pageSize: context.pageSize })) {
    context.signal?.throwIfAborted();
    read.records.push(...page.records);
    read.rejected.push(...page.rejected);
  }
  const asOf = context.now.toISOString();
  const ended = read.records.filter((entitlement: Entitlement) => hasEnded(entitlement, asOf));
  const linked = ended.length ? await context.linked(ended.map((entitlement) => entitlement.id)) : new Set<string>();
  read.records = read.records.filter((entitlement: Entitlement) => !hasEnded(entitlement, asOf) || linked.has(entitlement.id));
  return read;
}

/** The renewal offer an agreement was renewed on (marketplace A: endTimeBehavior.renewalSummary.offerId). */
function renewedOnOffer(entitlement: Entitlement): string | undefined {
  const behaviour = entitlement.info?.cloudAAgreement?.endTimeBehavior as { renewalSummary?: { offerId?: unknown } } | undefined;
  const offerId = behaviour?.renewalSummary?.offerId;
  return typeof offerId === 'string' && offerId ? offerId : undefined;
}

/** The pending draft renewal offer of an entitlement (marketplace A only, §4.3); none on a 404 (§7.4). */
async function draftRenewalOffer(commerce: CommerceClient, orgId: string, entitlementId: string): Promise<Offer | undefined> {
  try {
    const parsed = parseRecord('offer', await commerce.call('GET /org/{orgId}/entitlement/{entitlementId}/renewal/draftOffer', { orgId, entitlementId }));
    if (!parsed.ok) throw parsed.error;
    return parsed.record;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

/** The entitlement that came from the renewal offer, on the same buyer (the newest, if the service made several). */
async function renewingEntitlement(commerce: CommerceClient, orgId: string, entitlement: Entitlement, offerId: string): Promise<Entitlement | undefined> {
  const found: Entitlement[] = [];
  for await (const page of commerce.entitlements.query(orgId, { q: q.eq('offerID', offerId).expression, s: sort({ field: 'creationTime', direction: 'desc' }, { field: 'id' }), pageSize: 20 })) {
    found.push(...(page.records as Entitlement[]).filter((other) => other.id !== entitlement.id && (!entitlement.buyerID || other.buyerID === entitlement.buyerID)));
    break;
  }
  return found[0];
}

/** For each entitlement: its draft renewal offer and the entitlement that renewed it, read a few at a time. */
export const readRenewalContext: RelatedReader = async (commerce, orgId, entitlements, options) => {
  const limit = pLimit(options.concurrency ?? 8);
  const read: RelatedRead = { byRecord: new Map(), unreadable: new Map(), latest: new Map() };
  const asOf = new Date().toISOString();
  let finished = 0;
  await Promise.all(
    entitlements.map((entitlement: Entitlement) =>
      limit(async () => {
        options.signal?.throwIfAborted();
        const context: RenewalContext = { asOf };
        try {
          const offerId = renewedOnOffer(entitlement);
          if (offerId) context.successor = await renewingEntitlement(commerce, orgId, entitlement, offerId);
          // Draft renewal offers are marketplace A's (§4.3); a renewed or ended entitlement has none pending.
          if (!context.successor && entitlement.partner === 'cloudA' && !hasEnded(entitlement, asOf)) context.draft = await draftRenewalOffer(commerce, orgId, entitlement.id);
        } catch (error) {
          read.unreadable.set(entitlement.id, [`its renewal cannot be read: ${(error as Error).message}`]);
        }
        read.byRecord.set(entitlement.id, context);
        const times = [context.draft?.lastUpdateTime, context.successor?.lastUpdateTime].map((time) => toDate(time ?? undefined)?.getTime() ?? 0);
        if (Math.max(...times) > 0) read.latest.set(entitlement.id, new Date(Math.max(...times)));
        finished += 1;
        options.onProgress?.({ entity: 'renewal', phase: 'renewal offers', read: finished, of: entitlements.length });
      }),
    ),
  );
  return read;
};

export const renewalFlow = {
  name: 'renewal',
  direction: 'commerce-to-crm',
  source: {
    // Read by `due` on every run; the window and reads by id (dead-letter retries) are the entitlements'.
    window: (c, org, query) => c.entitlements.query(org, query),
    byId: (c, org, id) => c.entitlements.get(org, id),
  },
  events: [],
  parents: ['buyer', 'entitlement'],
  due: dueRenewals,
  related: readRenewalContext,
  mappings: { salesforce: renewalToOpportunity, hubspot: renewalToHubSpotDeal, dynamics: renewalToDynamicsOpportunity },
  deletes: 'reflect-status',
  // The entitlement points at its renewal too (flows/renewal-links.ts), and the entitlement that renewed
  // it back at it (flows/previous-entitlement-links.ts).
  afterWrite: async (context) => [...(await linkEntitlementsToRenewals(context)), ...(await linkRenewingEntitlementsToPrevious(context))],
} satisfies CommerceToCrmFlow<'buyer' | 'entitlement' | 'renewal'>;
