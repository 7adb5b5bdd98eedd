// The check every HubSpot sync test ends with: the account holds what the documented HubSpot rules
// (mappings/hubspot/README.md, issue #11) say the commerce side should produce, worked out here field by
// field from the commerce records, never with mappings/: one company per buyer, one contact per email,
// one deal per offer and per referral, one entitlement record per entitlement, each associated to what it
// belongs to. Records whose association target is missing are written and also expected as dead letters.
// Interface (as salesforce-state.ts): expectHubSpotMatchesCommerce(commerce, hubspot) -> the witness's view,
// hubspotRejections(view) -> `entity:id` sorted, expectDealWriteBack(commerce, hubspot).
import { expect } from 'vitest';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';
import { commerceDump, commerceSnapshot, type CommerceSnapshot, type Entity } from './expected-crm.ts';
import {
  ACCOUNT_STATUS,
  expectedDate,
  expectedDateTime,
  ExpectedRejection,
  marketplaceOf,
  money,
  withoutAbsent,
  expectedEntitlementFacts,
} from './expected-rules.ts';

type Commerce = Pick<CommerceSandbox, 'apiUrl'>;
type HubSpot = Pick<HubSpotSandbox, 'controlUrl' | 'accessToken'>;

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];
/** Where each entity lives in HubSpot and the property it is keyed by. */
export const HUBSPOT_TARGET: Record<Entity, { object: string; key: string }> = {
  buyer: { object: 'companies', key: 'commerce_buyer_id' },
  contact: { object: 'contacts', key: 'commerce_contact_id' },
  offer: { object: 'deals', key: 'commerce_offer_id' },
  entitlement: { object: 'marketplace_entitlement', key: 'entitlement_id' },
  referral: { object: 'deals', key: 'commerce_referral_id' },
};

/** Offer status -> stage of the "Marketplace offers" pipeline (issue #11 design). */
const OFFER_STAGE: Record<string, string> = {
  PENDING_CREATE: 'Draft',
  PENDING_ACCEPTANCE: 'Offer extended',
  ACTIVE: 'Offer extended',
  UPDATE_FAILED: 'Needs attention',
  PENDING_CANCEL: 'Needs attention',
  ACCEPTED: 'Accepted',
  USED: 'Accepted',
  EXPIRED: 'Lost',
  DELETED: 'Lost',
};

/** One expected HubSpot record: properties, the targets it is associated to, and what is only set when made. */
export type ExpectedHubSpotRecord = {
  key: string;
  properties: Record<string, unknown>;
  /** target object -> the commerce ids (of that target's key) it is associated to. */
  associations: Record<string, string[]>;
  /** Properties written when the record is made only (compared only where the test knows it was made by the sync). */
  createOnly?: Record<string, unknown>;
};

export type HubSpotView = Record<Entity, { records: Map<string, ExpectedHubSpotRecord>; rejected: Map<string, string> }>;

const requireId = (entity: Entity, source: { id?: unknown }) => {
  if (typeof source.id !== 'string' || !source.id) throw new ExpectedRejection(`the ${entity} has no id`);
  return source.id;
};

function company(buyer: any): ExpectedHubSpotRecord {
  const id = requireId('buyer', buyer);
  return {
    key: id,
    properties: withoutAbsent({
      name: buyer.name || id,
      domain: buyer.emailDomain,
      country: buyer.country,
      marketplace: marketplaceOf(buyer.partner),
      marketplace_account_id: buyer.externalID,
      marketplace_status: buyer.status ? (ACCOUNT_STATUS[buyer.status] ?? buyer.status) : undefined,
    }),
    associations: {},
  };
}

function contact(source: any): ExpectedHubSpotRecord {
  const id = requireId('contact', source);
  return {
    key: id,
    properties: withoutAbsent({ email: source.email, firstname: source.firstName, lastname: source.lastName, phone: source.phone, jobtitle: source.title }),
    associations: { companies: source.buyerID ? [source.buyerID] : [] },
  };
}

function offerDeal(offer: any): ExpectedHubSpotRecord {
  const id = requireId('offer', offer);
  const where = (field: string) => `offer ${id}: ${field}`;
  // §9.5: a status no stage is mapped for opens a new deal at Draft (PENDING_CREATE's stage); the raw status is in offer_status.
  const stage = offer.status === undefined ? 'Draft' : (OFFER_STAGE[offer.status] ?? 'Draft');
  const closedate = expectedDate(offer.expireTime, where('expireTime')) ?? expectedDate(offer.metaInfo?.offerAcceptDate, where('metaInfo.offerAcceptDate')) ?? expectedDate(offer.creationTime, where('creationTime'));
  return {
    key: id,
    properties: withoutAbsent({
      dealname: offer.name || `Offer ${id}`,
      dealstage: stage,
      closedate: closedate ?? undefined,
      amount: money(offer.info?.commitAmount),
      marketplace: marketplaceOf(offer.partner),
      offer_type: offer.offerType,
      offer_status: offer.status,
      offer_url: offer.info?.privateOfferUrl,
      offer_expiration: expectedDateTime(offer.expireTime, where('expireTime')),
    }),
    createOnly: { pipeline: 'Marketplace offers' },
    associations: { companies: offer.buyerID ? [offer.buyerID] : [], contacts: [...new Set<string>(offer.contactIds ?? [])] },
  };
}

function entitlementRecord(entitlement: any, terms: any[]): ExpectedHubSpotRecord {
  const id = requireId('entitlement', entitlement);
  const facts = expectedEntitlementFacts(entitlement, terms, id);
  return {
    key: id,
    properties: withoutAbsent({
      entitlement_name: facts.name,
      status: facts.status,
      start_date: facts.start,
      end_date: facts.end,
      commit_amount: facts.commitAmount,
      used_commit_amount: facts.usedCommitAmount,
      credit_amount: facts.creditAmount,
      used_credit_amount: facts.usedCreditAmount,
      annualized_amount: facts.annualizedAmount,
      currency: facts.currency,
      marketplace: facts.marketplace,
      marketplace_agreement_id: facts.agreementId,
      marketplace_subscription_id: facts.subscriptionId,
      product_id: facts.productId,
      offer_id: facts.offerId,
      invoiced_amount: facts.invoicedAmount,
      gross_amount: facts.grossAmount,
      collectable_amount: facts.collectableAmount,
      disbursed_amount: facts.disbursedAmount,
      reported_amount: facts.reportedAmount,
      net_terms_days: facts.netTermsInDays,
      auto_renew: facts.autoRenew,
      agreement_status: facts.agreementStatus,
      agreement_pdf_url: facts.agreementPdfUrl,
      agreement_pdf_note: facts.agreementPdfNote,
      initial_agreement_id: facts.initialAgreementId,
      payment_installments: facts.paymentInstallments,
    }),
    associations: { companies: entitlement.buyerID ? [entitlement.buyerID] : [], deals: entitlement.offerID ? [entitlement.offerID] : [] },
  };
}

function referralDeal(referral: any): ExpectedHubSpotRecord {
  const id = requireId('referral', referral);
  return {
    key: id,
    properties: withoutAbsent({
      dealname: referral.name || `Referral ${id}`,
      amount: money(referral.dealValue),
      closedate: expectedDate(referral.expectedCloseDate, `referral ${id}: expectedCloseDate`),
      cosell_partner: marketplaceOf(referral.partner),
      cosell_status: referral.status,
      cosell_stage: referral.stage,
      referral_direction: referral.direction,
    }),
    createOnly: { pipeline: 'Co-sell referrals' },
    associations: { companies: referral.buyerID ? [referral.buyerID] : [] },
  };
}

/** The association target entity of each target object (by the key its references use). */
const TARGET_ENTITY: Record<string, Entity> = { companies: 'buyer', contacts: 'contact', deals: 'offer' };

/** What the account should hold for a commerce data set, when the connection syncs `synced`. */
export function expectedHubSpot(snapshot: CommerceSnapshot, synced: Entity[] = ENTITIES): HubSpotView {
  const termsOf = Map.groupBy(snapshot.entitlementTerms, (term: { entitlementID: string }) => term.entitlementID);
  const build: Record<Entity, (source: any) => ExpectedHubSpotRecord> = {
    buyer: company,
    contact,
    offer: offerDeal,
    entitlement: (entitlement) => entitlementRecord(entitlement, termsOf.get(entitlement.id) ?? []),
    referral: referralDeal,
  };
  const view = {} as HubSpotView;
  for (const entity of ENTITIES) {
    const entry = { records: new Map<string, ExpectedHubSpotRecord>(), rejected: new Map<string, string>() };
    view[entity] = entry;
    if (!synced.includes(entity)) continue;
    for (const source of snapshot[entity]) {
      try {
        const expected = build[entity](source);
        // A list of associations to an entity the connection does not sync is not made (contacts of a deal).
        if (!synced.includes('contact')) delete expected.associations.contacts;
        entry.records.set(expected.key, expected);
        // Written, but an association target HubSpot will not hold makes it a dead letter too.
        for (const [target, keys] of Object.entries(expected.associations)) {
          const missing = keys.filter((key) => !view[TARGET_ENTITY[target]!]?.records.has(key));
          if (missing.length) entry.rejected.set(expected.key, `no ${target} for ${missing.join(', ')}`);
        }
      } catch (error) {
        if (!(error instanceof ExpectedRejection)) throw error;
        entry.rejected.set(String(source.id), error.message);
      }
    }
  }
  return view;
}

type Stored = { id: string; properties: Record<string, string> };
type AccountDump = { records: Record<string, Stored[]>; associations: { fromType: string; fromId: string; toType: string; toId: string }[]; stageLabel: Map<string, string>; pipelineLabel: Map<string, string> };

async function accountDump(hubspot: HubSpot): Promise<AccountDump> {
  const list = async (type: string): Promise<Stored[]> => {
    const body = await control(hubspot as HubSpotSandbox, 'GET', `/records/${type}`);
    const rows: any[] = Array.isArray(body) ? body : (body.records ?? body.results ?? []);
    return rows.filter((row) => !row.archived).map((row) => ({ id: String(row.id), properties: row.properties ?? {} }));
  };
  const [companies, contacts, deals, entitlements, associations] = await Promise.all([list('companies'), list('contacts'), list('deals'), list('marketplace_entitlement'), control(hubspot as HubSpotSandbox, 'GET', '/associations')]);
  const base = (hubspot as HubSpotSandbox).controlUrl.replace(/\/_sandbox$/, '');
  const pipelines = (await (await fetch(`${base}/crm/v3/pipelines/deals`, { headers: { authorization: `Bearer ${(hubspot as HubSpotSandbox).accessToken}` } })).json()) as { results: { id: string; label: string; stages: { id: string; label: string }[] }[] };
  return {
    records: { companies, contacts, deals, marketplace_entitlement: entitlements },
    associations: Array.isArray(associations) ? associations : (associations.associations ?? associations.results),
    stageLabel: new Map(pipelines.results.flatMap((pipeline) => pipeline.stages.map((stage) => [stage.id, stage.label] as const))),
    pipelineLabel: new Map(pipelines.results.map((pipeline) => [pipeline.id, pipeline.label])),
  };
}

/** HubSpot keeps text: an expected number or instant is compared as such. */
function same(expected: unknown, stored: string | undefined): boolean {
  if (expected === null || expected === undefined) return stored === undefined || stored === '';
  if (stored === undefined) return false;
  if (typeof expected === 'number') return Number(stored) === expected;
  if (typeof expected === 'boolean') return stored === String(expected);
  if (typeof expected === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(expected)) return Date.parse(expected) === Date.parse(stored);
  if (typeof expected === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(expected)) return stored.slice(0, 10) === expected;
  return expected === stored;
}

/** Every way the account differs from the witness (empty when in step). */
export function hubspotDifferences(snapshot: CommerceSnapshot, account: AccountDump, view: HubSpotView): string[] {
  const problems: string[] = [];
  const byKey = (entity: Entity) => {
    const { object, key } = HUBSPOT_TARGET[entity];
    return Map.groupBy(account.records[object]!.filter((record) => record.properties[key]), (record) => record.properties[key]!);
  };
  const crmIdOf = {} as Record<Entity, Map<string, string>>;
  for (const entity of ENTITIES) {
    const stored = byKey(entity);
    crmIdOf[entity] = new Map([...stored].map(([key, records]) => [key, records[0]!.id]));
    if (entity === 'contact') continue; // one per email: compared below
    for (const [key, records] of stored) {
      if (records.length > 1) problems.push(`${entity} ${key}: ${records.length} HubSpot records hold it`);
      if (!view[entity].records.has(key)) problems.push(`${entity} ${key}: in HubSpot, but the witness expects none`);
    }
    for (const [key, expected] of view[entity].records) {
      const record = stored.get(key)?.[0];
      if (!record) {
        problems.push(`${entity} ${key}: missing from HubSpot`);
        continue;
      }
      problems.push(...propertyDifferences(`${entity} ${key}`, expected, record, account));
    }
  }
  // Contacts: one per email (without case); a contact without an email is one of its own.
  const byEmail = Map.groupBy([...view.contact.records.values()], (expected) => (typeof expected.properties.email === 'string' ? `email:${expected.properties.email.toLowerCase()}` : `id:${expected.key}`));
  const contactsById = new Map(account.records.contacts!.map((record) => [record.id, record]));
  for (const [person, group] of byEmail) {
    const holders = account.records.contacts!.filter((record) => (person.startsWith('email:') ? record.properties.email?.toLowerCase() === person.slice(6) : record.properties.commerce_contact_id === group[0]!.key));
    if (holders.length !== 1) {
      problems.push(`contact ${group.map((g) => g.key).join(', ')}: ${holders.length} HubSpot contacts hold ${person}`);
      continue;
    }
    const [holder] = holders;
    for (const expected of group) crmIdOf.contact.set(expected.key, holder!.id);
    if (!group.some((expected) => expected.key === holder!.properties.commerce_contact_id)) problems.push(`contact ${person}: held by commerce_contact_id ${holder!.properties.commerce_contact_id}, none of ${group.map((g) => g.key).join(', ')}`);
    // Its fields: those of the one contact when alone; a merged person is any of them (the last written wins).
    if (group.length === 1) problems.push(...propertyDifferences(`contact ${group[0]!.key}`, group[0]!, holder!, account));
    const companies = [...new Set(group.flatMap((expected) => expected.associations.companies ?? []))];
    problems.push(...associationDifferences(`contact ${person}`, holder!.id, 'contacts', { companies }, account, crmIdOf));
  }
  for (const entity of ['offer', 'entitlement', 'referral'] as Entity[]) {
    for (const [key, expected] of view[entity].records) {
      const crmId = crmIdOf[entity].get(key);
      if (crmId) problems.push(...associationDifferences(`${entity} ${key}`, crmId, HUBSPOT_TARGET[entity].object, expected.associations, account, crmIdOf));
    }
  }
  void contactsById;
  void snapshot;
  return problems;
}

function propertyDifferences(where: string, expected: ExpectedHubSpotRecord, record: Stored, account: AccountDump): string[] {
  const problems: string[] = [];
  const stored = { ...record.properties };
  if (stored.dealstage) stored.dealstage = account.stageLabel.get(stored.dealstage) ?? stored.dealstage;
  if (stored.pipeline) stored.pipeline = account.pipelineLabel.get(stored.pipeline) ?? stored.pipeline;
  for (const [name, value] of Object.entries({ ...expected.properties, ...expected.createOnly })) {
    if (!same(value, stored[name])) problems.push(`${where}: ${name} is ${JSON.stringify(stored[name])}, expected ${JSON.stringify(value)}`);
  }
  return problems;
}

function associationDifferences(where: string, crmId: string, object: string, expected: Record<string, string[]>, account: AccountDump, crmIdOf: Record<Entity, Map<string, string>>): string[] {
  const problems: string[] = [];
  for (const [target, keys] of Object.entries(expected)) {
    const entity = TARGET_ENTITY[target]!;
    const want = [...new Set(keys.map((key) => crmIdOf[entity].get(key)).filter((id): id is string => Boolean(id)))].sort();
    const have = [...new Set(account.associations.filter((a) => a.fromType === object && a.fromId === crmId && a.toType === target).map((a) => a.toId))].sort();
    if (JSON.stringify(want) !== JSON.stringify(have)) problems.push(`${where}: associated to ${target} ${JSON.stringify(have)}, expected ${JSON.stringify(want)}`);
  }
  return problems;
}

/** The account matches the commerce side; returns the witness's view (for its rejections). */
export async function expectHubSpotMatchesCommerce(commerce: Commerce, hubspot: HubSpot, synced: Entity[] = ENTITIES): Promise<HubSpotView> {
  const [snapshot, account] = await Promise.all([commerceSnapshot(commerce), accountDump(hubspot)]);
  const view = expectedHubSpot(snapshot, synced);
  expect(hubspotDifferences(snapshot, account, view)).toEqual([]);
  return view;
}

/** Every record the witness expects to be a dead letter, as `entity:sourceId`, sorted. */
export function hubspotRejections(view: HubSpotView): string[] {
  return ENTITIES.flatMap((entity) => [...view[entity].rejected.keys()].map((id) => `${entity}:${id}`)).sort();
}

/**
 * Write-back: every offer with a deal carries the deal's id in crmBDealId, and so does every referral,
 * but an INBOUND one that carried none: taking it is the inbound flow's (co-sell), which may give the
 * referral to another CRM, so the ordinary sync leaves it.
 */
export async function expectDealWriteBack(commerce: Commerce, hubspot: HubSpot): Promise<void> {
  const account = await accountDump(hubspot);
  const dealOf = (key: string) => new Map(account.records.deals!.filter((deal) => deal.properties[key]).map((deal) => [deal.properties[key]!, deal.id]));
  let checked = 0;
  for (const [kind, key, read] of [['offers', 'commerce_offer_id', (record: any) => record.metaInfo?.crmBDealId], ['referrals', 'commerce_referral_id', (record: any) => record.crmBDealId]] as const) {
    const deals = dealOf(key);
    for (const record of await commerceDump(commerce, kind)) {
      const dealId = deals.get(record.id);
      if (!dealId) continue;
      if (kind === 'referrals' && record.direction === 'INBOUND' && !read(record)) continue;
      expect(read(record), `${kind} ${record.id} carries its deal's id`).toBe(dealId);
      checked += 1;
    }
  }
  expect(checked).toBeGreaterThan(0);
}
