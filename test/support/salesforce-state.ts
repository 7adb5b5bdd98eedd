// The check every Salesforce sync test ends with: the org holds exactly what the default mappings make
// of the commerce sandbox, one record per commerce record, parents resolved.
import { expect } from 'vitest';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import type { Entity } from '../../mappings/types.ts';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { commerceDump, expectedCrmState, sameValue } from './expected-crm.ts';

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];
type Commerce = Pick<CommerceSandbox, 'apiUrl'>;
type Salesforce = Pick<SalesforceSandbox, 'instanceUrl'>;

export async function salesforceDump(salesforce: Salesforce, object: string): Promise<any[]> {
  const body: any = await (await fetch(`${salesforce.instanceUrl}/_sandbox/records/${object}`)).json();
  return Array.isArray(body) ? body : body.records;
}

/** Every way the org differs from what the commerce side says it should hold (empty when in step). */
export async function salesforceDifferences(commerce: Commerce, salesforce: Salesforce): Promise<string[]> {
  const differences: string[] = [];
  for (const entity of ENTITIES) {
    const mapping = SALESFORCE_MAPPINGS[entity];
    const expected = await expectedCrmState(commerce, entity);
    if (entity === 'referral') {
      // Referrals naming another org's Opportunity cannot be written: they wait as dead letters.
      for (const referral of await commerceDump(commerce, 'referrals')) if (referral.crmAOpportunityId) expected.delete(referral.id);
    }
    const stored = await salesforceDump(salesforce, mapping.object);
    const byExternalId = Map.groupBy(stored, (record) => String(record[mapping.externalIdField]));
    for (const [externalId, records] of byExternalId) {
      if (records.length > 1) differences.push(`${entity} ${externalId}: ${records.length} CRM records (duplicates)`);
      if (!expected.has(externalId)) differences.push(`${entity} ${externalId}: in the CRM but not on the commerce side`);
    }
    for (const [externalId, fields] of expected) {
      const record = byExternalId.get(externalId)?.[0];
      if (!record) {
        differences.push(`${entity} ${externalId}: missing from the CRM`);
        continue;
      }
      for (const [field, value] of Object.entries(fields)) {
        if (value && typeof value === 'object') continue; // relationship references: checked below
        if (!sameValue(value, record[field])) differences.push(`${entity} ${externalId} ${field}: expected ${JSON.stringify(value)}, stored ${JSON.stringify(record[field])}`);
      }
    }
  }
  // Parents resolved: every entitlement points at one of the Accounts.
  const accountIds = new Set((await salesforceDump(salesforce, 'Account')).map((account) => account.Id));
  for (const entitlement of await salesforceDump(salesforce, 'Marketplace_Entitlement__c')) {
    if (!accountIds.has(entitlement.Account__c)) differences.push(`entitlement ${entitlement.Commerce_Entitlement_Id__c}: Account__c ${entitlement.Account__c} is not an Account`);
  }
  return differences;
}

export async function expectSalesforceMatchesCommerce(commerce: Commerce, salesforce: Salesforce) {
  expect(await salesforceDifferences(commerce, salesforce)).toEqual([]);
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
