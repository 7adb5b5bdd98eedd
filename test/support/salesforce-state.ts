// The check every Salesforce sync test ends with: the org holds exactly what the witness
// (expected-crm.ts) says the commerce side should produce, one record per commerce record, every field,
// and every parent link pointing at the right record (resolved through the external id fields).
import { expect } from 'vitest';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { commerceDump, commerceSnapshot, ENTITIES, expectedOrg, sameValue, TARGET, type CommerceSnapshot, type Entity, type ExpectedOrg } from './expected-crm.ts';
import { orgObject } from './salesforce-org-schema.ts';

type Commerce = Pick<CommerceSandbox, 'apiUrl'>;
type Salesforce = Pick<SalesforceSandbox, 'instanceUrl'>;
export type OrgDump = Record<Entity, any[]>;

export async function salesforceDump(salesforce: Salesforce, object: string): Promise<any[]> {
  const body: any = await (await fetch(`${salesforce.instanceUrl}/_sandbox/records/${object}`)).json();
  return Array.isArray(body) ? body : body.records;
}

async function orgDump(salesforce: Salesforce): Promise<OrgDump> {
  const entries = await Promise.all(ENTITIES.map(async (entity) => [entity, await salesforceDump(salesforce, TARGET[entity].object)] as const));
  return Object.fromEntries(entries) as OrgDump;
}

/** Where the witness stands: the commerce data, the org, and what the org should hold. */
export async function expectedAgainstOrg(commerce: Commerce, salesforce: Salesforce) {
  const [snapshot, org] = await Promise.all([commerceSnapshot(commerce), orgDump(salesforce)]);
  const expected = expectedOrg(snapshot, { opportunityIds: new Set(org.offer.map((opportunity) => opportunity.Id)) });
  return { snapshot, org, expected };
}

/** Every way the org differs from what the commerce side says it should hold (empty when in step). */
export async function salesforceDifferences(commerce: Commerce, salesforce: Salesforce): Promise<string[]> {
  const { snapshot, org, expected } = await expectedAgainstOrg(commerce, salesforce);
  return orgDifferences(snapshot, org, expected);
}

/** The comparison itself, on data already read (pure). `org`: the records of each entity's object. */
export function orgDifferences(snapshot: CommerceSnapshot, org: OrgDump, expected: ExpectedOrg): string[] {
  return [...recordDifferences(org, expected), ...linkDifferences(snapshot, org, expected)];
}

/** Record by record, field by field: a field the sync does not write is expected empty (null). */
function recordDifferences(org: OrgDump, expected: ExpectedOrg): string[] {
  const differences: string[] = [];
  for (const entity of ENTITIES) {
    const { object, externalIdField } = TARGET[entity];
    const { records, rejected } = expected[entity];
    const byExternalId = Map.groupBy(org[entity], (row) => String(row[externalIdField]));
    for (const [externalId, rows] of byExternalId) {
      if (rows.length > 1) differences.push(`${entity} ${externalId}: ${rows.length} CRM records (duplicates)`);
      if (rejected.has(externalId)) differences.push(`${entity} ${externalId}: in the CRM, but expected to be rejected: ${rejected.get(externalId)}`);
      else if (!records.has(externalId)) differences.push(`${entity} ${externalId}: in the CRM but not on the commerce side`);
    }
    // Reference fields are compared as links (below); the external id is the key itself.
    const plainFields = orgObject(object).fields.filter((field) => !field.system && field.type !== 'reference' && field.name !== externalIdField);
    for (const [externalId, record] of records) {
      const row = byExternalId.get(externalId)?.[0];
      if (!row) {
        differences.push(`${entity} ${externalId}: missing from the CRM`);
        continue;
      }
      for (const field of plainFields) {
        // A checkbox the sync does not write holds its default, false (Salesforce never stores null there).
        const value = record.fields[field.name] ?? (field.type === 'boolean' ? false : null);
        if (!sameValue(value, row[field.name])) differences.push(`${entity} ${externalId} ${field.name}: expected ${JSON.stringify(value)}, stored ${JSON.stringify(row[field.name])}`);
      }
    }
  }
  return differences;
}

/**
 * Every parent link points at the right record: the Account whose Commerce_Buyer_Id__c is the child's
 * buyerID, the Opportunity whose Commerce_Offer_Id__c is its offerID; a referral carrying an Opportunity
 * id of this org points at that one. Read from the commerce records, not from the expected fields.
 */
function linkDifferences(snapshot: CommerceSnapshot, org: OrgDump, expected: ExpectedOrg): string[] {
  const differences: string[] = [];
  const accountOf = new Map(org.buyer.map((row) => [row.Commerce_Buyer_Id__c, row.Id]));
  const opportunityOf = new Map(org.offer.map((row) => [row.Commerce_Offer_Id__c, row.Id]));
  const account = (buyerID: unknown) => (buyerID ? (accountOf.get(buyerID) ?? `(no Account for ${buyerID})`) : null);
  const opportunity = (offerID: unknown) => (offerID ? (opportunityOf.get(offerID) ?? `(no Opportunity for ${offerID})`) : null);
  const check = (entity: Entity, links: (source: any) => Record<string, unknown>) => {
    const rows = new Map(org[entity].map((row) => [row[TARGET[entity].externalIdField], row]));
    for (const source of snapshot[entity]) {
      const row = rows.get(source.id);
      if (!row || !expected[entity].records.has(source.id)) continue; // missing or rejected: reported above
      for (const [field, want] of Object.entries(links(source))) {
        if ((row[field] ?? null) !== want) differences.push(`${entity} ${source.id} ${field}: expected ${JSON.stringify(want)}, stored ${JSON.stringify(row[field])}`);
      }
    }
  };
  check('contact', (contact) => ({ AccountId: account(contact.buyerID) }));
  check('offer', (offer) => ({ AccountId: account(offer.buyerID) }));
  check('entitlement', (entitlement) => ({ Account__c: account(entitlement.buyerID), Opportunity__c: opportunity(entitlement.offerID) }));
  check('referral', (referral) => ({ Opportunity__c: referral.crmAOpportunityId || opportunity(referral.offerID) }));
  return differences;
}

/** The org matches the commerce side; returns the witness's view, so a test can check its rejections too. */
export async function expectSalesforceMatchesCommerce(commerce: Commerce, salesforce: Salesforce): Promise<ExpectedOrg> {
  const { snapshot, org, expected } = await expectedAgainstOrg(commerce, salesforce);
  expect(orgDifferences(snapshot, org, expected)).toEqual([]);
  return expected;
}

/** Every record the witness expects to be rejected, as `entity:sourceId` (what the dead letters should hold). */
export function expectedRejections(expected: ExpectedOrg): string[] {
  return ENTITIES.flatMap((entity) => [...expected[entity].rejected.keys()].map((id) => `${entity}:${id}`)).sort();
}

/** Write-back: every offer carries the Id of its Opportunity and of its buyer's Account. */
export async function expectOfferWriteBack(commerce: Commerce, salesforce: Salesforce) {
  const opportunityIds = new Map((await salesforceDump(salesforce, 'Opportunity')).map((o) => [o.Commerce_Offer_Id__c, o.Id]));
  const accountIds = new Map((await salesforceDump(salesforce, 'Account')).map((a) => [a.Commerce_Buyer_Id__c, a.Id]));
  let checked = 0;
  for (const offer of await commerceDump(commerce, 'offers')) {
    const crmId = opportunityIds.get(offer.id);
    if (!crmId) continue;
    expect(offer.metaInfo?.crmAOpportunityId, `offer ${offer.id} carries its Opportunity id`).toBe(crmId);
    expect(offer.metaInfo?.crmAAccountId, `offer ${offer.id} carries its buyer's Account id`).toBe(accountIds.get(offer.buyerID));
    checked += 1;
  }
  expect(checked).toBeGreaterThan(0);
}
