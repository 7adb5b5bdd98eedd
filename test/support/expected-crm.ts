// The witness: what the Salesforce org should hold for a commerce data set, worked out field by field
// from the documented rules (expected-rules.ts), never with mappings/. A record that should not reach
// the CRM is not dropped: it is listed with the reason it is expected to be rejected.
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import {
  ACCOUNT_STATUS,
  expectedDate,
  expectedDateTime,
  ExpectedRejection,
  marketplaceOf,
  money,
  STAGE_OF_STATUS,
  withoutAbsent,
  expectedEntitlementFacts,
} from './expected-rules.ts';
import { orgObject, relationshipField } from './salesforce-org-schema.ts';

/** The synced entities, parents first (README "How the sync works"). */
export type Entity = 'buyer' | 'contact' | 'offer' | 'entitlement' | 'referral';
export const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];
const COMMERCE_KIND: Record<Entity, string> = { buyer: 'buyers', contact: 'contacts', offer: 'offers', entitlement: 'entitlements', referral: 'referrals' };

/** The object and external id field of each entity (README "Default objects and fields"). */
export const TARGET: Record<Entity, { object: string; externalIdField: string }> = {
  buyer: { object: 'Account', externalIdField: 'Commerce_Buyer_Id__c' },
  contact: { object: 'Contact', externalIdField: 'Commerce_Contact_Id__c' },
  offer: { object: 'Opportunity', externalIdField: 'Commerce_Offer_Id__c' },
  entitlement: { object: 'Marketplace_Entitlement__c', externalIdField: 'Commerce_Entitlement_Id__c' },
  referral: { object: 'Cosell_Referral__c', externalIdField: 'Commerce_Referral_Id__c' },
};

/** One record as the sync should write it: relationship references as `{ExternalIdField: value}`. */
export type ExpectedRecord = { object: string; externalIdField: string; externalId: string; carriedCrmId?: string; fields: Record<string, unknown> };
export type ExpectedEntity = { records: Map<string, ExpectedRecord>; rejected: Map<string, string> };
export type ExpectedOrg = Record<Entity, ExpectedEntity>;
export type CommerceSnapshot = Record<Entity, any[]> & { entitlementTerms: any[] };

export async function commerceDump(commerce: Pick<CommerceSandbox, 'apiUrl'>, kind: string): Promise<any[]> {
  const body: any = await (await fetch(`${commerce.apiUrl}/_sandbox/records/${kind}`)).json();
  return Array.isArray(body) ? body : (body.records ?? body.rows);
}

export async function commerceSnapshot(commerce: Pick<CommerceSandbox, 'apiUrl'>): Promise<CommerceSnapshot> {
  const entries = await Promise.all(ENTITIES.map(async (entity) => [entity, await commerceDump(commerce, COMMERCE_KIND[entity])] as const));
  return { ...(Object.fromEntries(entries) as Record<Entity, any[]>), entitlementTerms: await commerceDump(commerce, 'entitlementTerms') };
}

const record = (entity: Entity, externalId: string, fields: Record<string, unknown>, carriedCrmId?: unknown): ExpectedRecord => ({
  ...TARGET[entity],
  externalId,
  ...(typeof carriedCrmId === 'string' && carriedCrmId ? { carriedCrmId } : {}),
  fields: withoutAbsent(fields),
});

const requireId = (entity: Entity, source: { id?: unknown }): string => {
  if (typeof source.id !== 'string' || !source.id) throw new ExpectedRejection(`the ${entity} has no id`);
  return source.id;
};

/** Account describe: Name, Marketplace__c, Marketplace_Account_Id__c, BillingCountry, Website, Marketplace_Status__c. */
export function expectedAccount(buyer: any): ExpectedRecord {
  const id = requireId('buyer', buyer);
  return record('buyer', id, {
    Name: buyer.name || id,
    Marketplace__c: marketplaceOf(buyer.partner),
    Marketplace_Account_Id__c: buyer.externalID,
    BillingCountry: buyer.country,
    Website: buyer.emailDomain ? `https://${buyer.emailDomain}` : undefined,
    Marketplace_Status__c: buyer.status ? (ACCOUNT_STATUS[buyer.status] ?? buyer.status) : undefined,
  }, buyer.metaInfo?.crmAAccountId);
}

/** Contact describe: LastName ("[not provided]" when absent), FirstName, Email, Phone, Title, Account. */
export function expectedContact(contact: any): ExpectedRecord {
  const id = requireId('contact', contact);
  return record('contact', id, {
    LastName: contact.lastName || '[not provided]',
    FirstName: contact.firstName,
    Email: contact.email,
    Phone: contact.phone,
    Title: contact.title,
    Account: contact.buyerID ? { Commerce_Buyer_Id__c: contact.buyerID } : undefined,
  });
}

/**
 * Opportunity describe: stage from the status; CloseDate from "offer.expireTime, else the acceptance
 * date, else the creation date"; Offer_Expiration__c the expiry, cleared when null.
 */
export function expectedOpportunity(offer: any): ExpectedRecord {
  const id = requireId('offer', offer);
  const where = (field: string) => `offer ${id}: ${field}`;
  const status = offer.status;
  // Contract §9.5 (README "Metrics", unknown values): a status no stage is mapped for never refuses the
  // record; a new Opportunity opens at the stage of PENDING_CREATE, its raw status in Offer_Status__c.
  const stage = status === undefined ? undefined : (STAGE_OF_STATUS[status] ?? STAGE_OF_STATUS.PENDING_CREATE);
  const closeDate = expectedDate(offer.expireTime, where('expireTime')) ?? expectedDate(offer.metaInfo?.offerAcceptDate, where('metaInfo.offerAcceptDate')) ?? expectedDate(offer.creationTime, where('creationTime'));
  return record('offer', id, {
    Name: offer.name || `Offer ${id}`,
    StageName: stage,
    CloseDate: closeDate ?? undefined,
    Amount: money(offer.info?.commitAmount),
    Account: offer.buyerID ? { Commerce_Buyer_Id__c: offer.buyerID } : undefined,
    Marketplace__c: marketplaceOf(offer.partner),
    Offer_Type__c: offer.offerType,
    Offer_Status__c: offer.status,
    Offer_URL__c: offer.info?.privateOfferUrl,
    Offer_Expiration__c: expectedDateTime(offer.expireTime, where('expireTime')),
  }, offer.metaInfo?.crmAOpportunityId);
}

/** Entitlement describe: amounts from the current term (commit falls back to info.commitAmount), ids per marketplace. */
export function expectedEntitlement(entitlement: any, terms: any[]): ExpectedRecord {
  const id = requireId('entitlement', entitlement);
  const facts = expectedEntitlementFacts(entitlement, terms, id);
  return record('entitlement', id, {
    Name: facts.name,
    Status__c: facts.status,
    Start_Date__c: facts.start,
    End_Date__c: facts.end,
    Commit_Amount__c: facts.commitAmount,
    Used_Commit_Amount__c: facts.usedCommitAmount,
    Credit_Amount__c: facts.creditAmount,
    Used_Credit_Amount__c: facts.usedCreditAmount,
    Annualized_Amount__c: facts.annualizedAmount,
    Currency__c: facts.currency,
    Marketplace__c: facts.marketplace,
    Marketplace_Agreement_Id__c: facts.agreementId,
    Marketplace_Subscription_Id__c: facts.subscriptionId,
    Product_Id__c: facts.productId,
    Offer_Id__c: facts.offerId,
    Invoiced_Amount__c: facts.invoicedAmount,
    Gross_Amount__c: facts.grossAmount,
    Collectable_Amount__c: facts.collectableAmount,
    Disbursed_Amount__c: facts.disbursedAmount,
    Reported_Amount__c: facts.reportedAmount,
    Net_Terms_Days__c: facts.netTermsInDays,
    Auto_Renew__c: facts.autoRenew,
    Agreement_Status__c: facts.agreementStatus,
    Agreement_PDF_URL__c: facts.agreementPdfUrl,
    Agreement_PDF_Note__c: facts.agreementPdfNote,
    Initial_Agreement_Id__c: facts.initialAgreementId,
    Payment_Installments__c: facts.paymentInstallments,
    Account__r: entitlement.buyerID ? { Commerce_Buyer_Id__c: entitlement.buyerID } : undefined,
    Opportunity__r: entitlement.offerID ? { Commerce_Offer_Id__c: entitlement.offerID } : undefined,
  });
}

/** Referral describe: its Opportunity is the CRM id it carries, else its offer's Opportunity. */
export function expectedReferral(referral: any): ExpectedRecord {
  const id = requireId('referral', referral);
  return record('referral', id, {
    Name: referral.name || id,
    Stage__c: referral.stage,
    Status__c: referral.status,
    Partner__c: marketplaceOf(referral.partner),
    Direction__c: referral.direction,
    Deal_Value__c: money(referral.dealValue),
    Currency__c: referral.currency,
    Expected_Close_Date__c: expectedDate(referral.expectedCloseDate, `referral ${id}: expectedCloseDate`),
    Opportunity__c: referral.crmAOpportunityId || undefined,
    Opportunity__r: !referral.crmAOpportunityId && referral.offerID ? { Commerce_Offer_Id__c: referral.offerID } : undefined,
  });
}

/** What the org itself refuses (Salesforce's own checks): lengths, required fields, restricted picklists. */
function orgRefusal(expected: ExpectedRecord, creating: boolean): string | undefined {
  for (const field of orgObject(expected.object).fields) {
    const value = expected.fields[field.name];
    if (creating && field.required && (value === undefined || value === null || value === '')) {
      return `${expected.object}.${field.name} is required and the record gives none (REQUIRED_FIELD_MISSING)`;
    }
    if (typeof value === 'string' && field.length && field.type !== 'reference' && value.length > field.length) {
      return `${expected.object}.${field.name} holds ${field.length} characters, the record gives ${value.length} (STRING_TOO_LONG)`;
    }
    if (field.restrictedPicklist && typeof value === 'string' && !field.picklistValues!.includes(value)) {
      return `${JSON.stringify(value)} is not a value of the restricted picklist ${expected.object}.${field.name}`;
    }
  }
  return undefined;
}

const PARENT_BY_KEY: Record<string, Entity> = { Commerce_Buyer_Id__c: 'buyer', Commerce_Offer_Id__c: 'offer' };

/**
 * The whole expected org. `org.opportunityIds`: the Opportunity Ids the org really has, to tell whether
 * a referral's carried crmAOpportunityId names one of them (Salesforce refuses a reference to a record
 * it does not have); without it, carried ids are taken as valid.
 */
export function expectedOrg(snapshot: CommerceSnapshot, org: { opportunityIds?: ReadonlySet<string> } = {}): ExpectedOrg {
  const termsOf = Map.groupBy(snapshot.entitlementTerms, (term: { entitlementID: string }) => term.entitlementID);
  const build: Record<Entity, (source: any) => ExpectedRecord> = {
    buyer: expectedAccount,
    contact: expectedContact,
    offer: expectedOpportunity,
    entitlement: (entitlement) => expectedEntitlement(entitlement, termsOf.get(entitlement.id) ?? []),
    referral: expectedReferral,
  };
  const result = {} as ExpectedOrg;
  // Parents first, as the sync writes them: a child of a rejected parent is rejected in turn.
  for (const entity of ENTITIES) {
    const entry: ExpectedEntity = { records: new Map(), rejected: new Map() };
    result[entity] = entry;
    for (const source of snapshot[entity]) {
      try {
        const expected = build[entity](source);
        const reason = orgRefusal(expected, true) ?? missingParent(expected, result, org);
        if (reason) entry.rejected.set(expected.externalId, reason);
        else entry.records.set(expected.externalId, expected);
      } catch (error) {
        if (!(error instanceof ExpectedRejection)) throw error;
        entry.rejected.set(String(source.id), error.message);
      }
    }
  }
  return result;
}

function missingParent(expected: ExpectedRecord, sofar: Partial<ExpectedOrg>, org: { opportunityIds?: ReadonlySet<string> }): string | undefined {
  for (const [name, value] of Object.entries(expected.fields)) {
    if (!value || typeof value !== 'object') continue;
    const [key, id] = Object.entries(value as Record<string, string>)[0]!;
    const parent = PARENT_BY_KEY[key]!;
    if (!relationshipField(expected.object, name)) return `${expected.object} has no relationship ${name}`;
    if (!sofar[parent]?.records.has(id)) {
      const why = sofar[parent]?.rejected.get(id) ?? `no ${parent} ${id} on the commerce side`;
      return `Foreign key external ID: ${id} not found for field ${key} in entity ${TARGET[parent].object} (${why})`;
    }
  }
  const carried = expected.object === 'Cosell_Referral__c' ? expected.fields.Opportunity__c : undefined;
  if (typeof carried === 'string' && org.opportunityIds && !org.opportunityIds.has(carried)) {
    return `carries the Opportunity id ${carried}, which is no Opportunity of this org (Salesforce refuses the reference)`;
  }
  return undefined;
}

/** The records the CRM should hold for one entity, by external id (their fields as written). */
export async function expectedCrmState(commerce: Pick<CommerceSandbox, 'apiUrl'>, entity: Entity): Promise<Map<string, Record<string, unknown>>> {
  const expected = expectedOrg(await commerceSnapshot(commerce))[entity];
  return new Map([...expected.records].map(([id, record]) => [id, record.fields]));
}

/** Compares one expected field with what the CRM stored (date-times compared as instants). */
export function sameValue(expected: unknown, stored: unknown): boolean {
  if (expected === null || expected === undefined) return stored === null || stored === undefined;
  if (typeof expected === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(expected) && typeof stored === 'string') return Date.parse(expected) === Date.parse(stored);
  if (typeof expected === 'object') return JSON.stringify(expected) === JSON.stringify(stored);
  return expected === stored;
}
