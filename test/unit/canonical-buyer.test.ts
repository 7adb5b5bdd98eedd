// The canonical buyer for marketplaces A to F (mappings/canonical/buyer.ts), expected values written by
// hand from the fixtures (test/fixtures/commerce/marketplaces.ts), and each CRM's table taking them.
import { describe, expect, it } from 'vitest';
import { BUYER } from '../../mappings/canonical/buyer.ts';
import { buyerToAccount as buyerToDynamicsAccount } from '../../mappings/dynamics/account.ts';
import { buyerToCompany } from '../../mappings/hubspot/company.ts';
import { buyerToAccount } from '../../mappings/salesforce/account.ts';
import type { EntityMapping, MappedRecord } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const EXPECTED = {
  // Carries its Salesforce Account and HubSpot company ids.
  A: { id: 'buyer-cloudA', name: 'Buyer on cloudA', domain: 'cloudA.buyer.example', website: 'https://cloudA.buyer.example', country: 'DE', marketplace: 'Marketplace A', marketplaceAccountId: 'acct-cloudA', marketplaceStatus: 'Active', crmIds: { salesforce: '001000000000001AAA', hubspot: '9911' } },
  // No name: the id stands in; no email domain: no domain and no website.
  B: { id: 'buyer-cloudB', name: 'buyer-cloudB', country: 'DE', marketplace: 'Marketplace B', marketplaceAccountId: 'acct-cloudB', marketplaceStatus: 'Active', crmIds: {} },
  // Deleted on the commerce side: kept, and said so.
  C: { id: 'buyer-cloudC', name: 'Buyer on cloudC', domain: 'cloudC.buyer.example', website: 'https://cloudC.buyer.example', country: 'DE', marketplace: 'Marketplace C', marketplaceAccountId: 'acct-cloudC', marketplaceStatus: 'Deleted', crmIds: {} },
  // No status and no country: none written.
  D: { id: 'buyer-cloudD', name: 'Buyer on cloudD', domain: 'cloudD.buyer.example', website: 'https://cloudD.buyer.example', marketplace: 'Marketplace D', marketplaceAccountId: 'acct-cloudD', crmIds: {} },
  E: { id: 'buyer-cloudE', name: 'Buyer on cloudE', domain: 'cloudE.buyer.example', website: 'https://cloudE.buyer.example', country: 'DE', marketplace: 'Marketplace E', marketplaceAccountId: 'acct-cloudE', marketplaceStatus: 'Active', crmIds: {} },
  // A status the contract does not list yet is kept as it came (§9.5).
  F: { id: 'buyer-cloudF', name: 'Buyer on cloudF', domain: 'cloudF.buyer.example', website: 'https://cloudF.buyer.example', country: 'DE', marketplace: 'Marketplace F', marketplaceAccountId: 'acct-cloudF', marketplaceStatus: 'ARCHIVED', crmIds: {} },
};

/** The value without its undefined entries, at any depth: what "not known" leaves. */
const known = (value: unknown): unknown =>
  value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined).map(([key, inner]) => [key, known(inner)])) : value;

describe('the canonical buyer, marketplaces A to F', () => {
  for (const [marketplace, expected] of Object.entries(EXPECTED)) {
    it(`marketplace ${marketplace}`, () => {
      const computed = BUYER.compute(MARKETPLACE_FIXTURES[marketplace as keyof typeof MARKETPLACE_FIXTURES].buyer, undefined);
      expect(computed.ok && known(computed.value)).toStrictEqual(expected);
    });
  }

  it('a buyer without an id is refused', () => {
    expect(BUYER.compute({ ...MARKETPLACE_FIXTURES.A.buyer, id: '' }, undefined)).toEqual({ ok: false, reason: 'the buyer has no id' });
  });

  it('an empty carried CRM id is no id', () => {
    const computed = BUYER.compute({ ...MARKETPLACE_FIXTURES.A.buyer, metaInfo: { crmAAccountId: '', crmCAccountId: '{0B9C6A5E-1111-4A1A-9C1A-000000000001}' } }, undefined);
    expect(computed.ok && known(computed.value.crmIds)).toStrictEqual({ dynamics: '{0B9C6A5E-1111-4A1A-9C1A-000000000001}' });
  });
});

describe('each CRM takes the canonical buyer under its own names', () => {
  const mapped = (mapping: EntityMapping<any, any>, source: unknown): MappedRecord => {
    const result = mapping.map(source, undefined);
    if (!result.ok) throw new Error(result.reason);
    return result.record;
  };

  it('the domain: a web address on Salesforce and Dynamics, a bare domain on HubSpot', () => {
    expect(mapped(buyerToAccount, MARKETPLACE_FIXTURES.E.buyer).fields.Website).toBe('https://cloudE.buyer.example');
    expect(mapped(buyerToDynamicsAccount, MARKETPLACE_FIXTURES.E.buyer).fields.websiteurl).toBe('https://cloudE.buyer.example');
    expect(mapped(buyerToCompany, MARKETPLACE_FIXTURES.E.buyer).fields.domain).toBe('cloudE.buyer.example');
  });

  it("each CRM updates the record the buyer carries for it, and only its own; Dataverse's GUID lowercased without braces", () => {
    const buyer = { ...MARKETPLACE_FIXTURES.A.buyer, metaInfo: { crmAAccountId: '001000000000001AAA', crmBCompanyId: '9911', crmCAccountId: '{0B9C6A5E-1111-4A1A-9C1A-000000000001}' } };
    expect(mapped(buyerToAccount, buyer).carriedCrmId).toBe('001000000000001AAA');
    expect(mapped(buyerToCompany, buyer).carriedCrmId).toBe('9911');
    expect(mapped(buyerToDynamicsAccount, buyer).carriedCrmId).toBe('0b9c6a5e-1111-4a1a-9c1a-000000000001');
    // None carried: no carriedCrmId at all (the hand-written expected records have none).
    expect(mapped(buyerToDynamicsAccount, MARKETPLACE_FIXTURES.A.buyer)).not.toHaveProperty('carriedCrmId');
  });

  it('all three show the same marketplace status', () => {
    const buyer = MARKETPLACE_FIXTURES.C.buyer;
    expect([mapped(buyerToAccount, buyer).fields.Marketplace_Status__c, mapped(buyerToCompany, buyer).fields.marketplace_status, mapped(buyerToDynamicsAccount, buyer).fields.ccs_marketplacestatus]).toEqual(['Deleted', 'Deleted', 'Deleted']);
  });
});
