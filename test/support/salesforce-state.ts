// The check every Salesforce sync test ends with: the org holds exactly what the default mappings make
// of the commerce sandbox, one record per commerce record, parents resolved.
import { expect } from 'vitest';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import type { Entity } from '../../mappings/types.ts';
import type { CommerceSandbox } from '../../sandbox/commerce/index.ts';
import type { SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { commerceDump, expectedCrmState, sameValue } from './expected-crm.ts';

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];

export async function salesforceDump(salesforce: SalesforceSandbox, object: string): Promise<any[]> {
  const body: any = await (await fetch(`${salesforce.instanceUrl}/_sandbox/records/${object}`)).json();
  return Array.isArray(body) ? body : body.records;
}

export async function expectSalesforceMatchesCommerce(commerce: CommerceSandbox, salesforce: SalesforceSandbox) {
  for (const entity of ENTITIES) {
    const mapping = SALESFORCE_MAPPINGS[entity];
    const expected = await expectedCrmState(commerce, entity);
    if (entity === 'referral') {
      // Referrals naming another org's Opportunity cannot be written: they wait as dead letters.
      for (const referral of await commerceDump(commerce, 'referrals')) if (referral.crmAOpportunityId) expected.delete(referral.id);
    }
    const stored = await salesforceDump(salesforce, mapping.object);
    const byExternalId = new Map(stored.map((record) => [record[mapping.externalIdField], record]));
    expect(byExternalId.size, `${entity}: one CRM record per commerce record`).toBe(expected.size);
    expect(stored.length, `${entity}: no duplicates`).toBe(expected.size);
    for (const [externalId, fields] of expected) {
      const record = byExternalId.get(externalId);
      expect(record, `${entity} ${externalId} is in the CRM`).toBeDefined();
      for (const [field, value] of Object.entries(fields)) {
        if (value && typeof value === 'object') continue; // relationship references: checked below
        expect(sameValue(value, record[field]), `${entity} ${externalId} ${field}: expected ${JSON.stringify(value)}, stored ${JSON.stringify(record[field])}`).toBe(true);
      }
    }
  }
  // Parents resolved: every entitlement points at one of the Accounts.
  const accountIds = new Set((await salesforceDump(salesforce, 'Account')).map((account) => account.Id));
  for (const entitlement of await salesforceDump(salesforce, 'Marketplace_Entitlement__c')) {
    expect(accountIds.has(entitlement.Account__c), `entitlement ${entitlement.Commerce_Entitlement_Id__c} has its Account`).toBe(true);
  }
}

/** Write-back: every offer carries the Id of its Opportunity. */
export async function expectOfferWriteBack(commerce: CommerceSandbox, salesforce: SalesforceSandbox) {
  const opportunityIds = new Map((await salesforceDump(salesforce, 'Opportunity')).map((o) => [o.Commerce_Offer_Id__c, o.Id]));
  for (const offer of await commerceDump(commerce, 'offers')) {
    const crmId = opportunityIds.get(offer.id);
    if (crmId) expect(offer.metaInfo?.crmAOpportunityId, `offer ${offer.id} carries its Opportunity id`).toBe(crmId);
  }
}
