// The canonical entitlement for marketplaces A to F (mappings/canonical/entitlement.ts), expected values
// written by hand from the fixtures (test/fixtures/commerce/marketplaces.ts), and one field table per CRM
// taking them as they are.
import { describe, expect, it } from 'vitest';
import { ENTITLEMENT } from '../../mappings/canonical/entitlement.ts';
import { entitlementToDynamicsEntitlement } from '../../mappings/dynamics/entitlement.ts';
import { entitlementToHubSpotEntitlement } from '../../mappings/hubspot/entitlement.ts';
import { entitlementToMarketplaceEntitlement } from '../../mappings/salesforce/entitlement.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const common = { status: 'ACTIVE', startTime: '2026-01-01T00:00:00Z', endTime: '2027-01-01T00:00:00Z' };

const EXPECTED = {
  A: { id: 'ent-cloudA-1', name: 'Analytics Suite (cloudA)', ...common, commitAmount: 120000, usedCommitAmount: 30500.5, creditAmount: 1000, usedCreditAmount: 250, annualizedAmount: 120000, currency: 'USD', marketplace: 'Marketplace A', agreementId: 'agmt-7f3a', subscriptionId: 'arn:marketplace-a:license:lic-1', productId: 'prod-cloudA', offerId: 'offer-cloudA', buyerId: 'buyer-cloudA',
    // Revenue and agreement: net terms from "P30D"; the presigned PDF link is not kept, a note says the PDF exists;
    // a renewal names its chain's root; the installments by date.
    invoicedAmount: 60000.5, grossAmount: 125000.75, collectableAmount: 116400.49, disbursedAmount: 45000.25, reportedAmount: 4321.75, netTermsInDays: 30, autoRenew: true, agreementStatus: 'ACTIVE',
    agreementPdfUrl: null, agreementPdfNote: 'The agreement PDF exists; its link is signed and expires, so it is not stored here. Open it from the marketplace, or ask the commerce service for a fresh link (entitlement PDF).',
    initialAgreementId: 'agmt-root-1', paymentInstallments: '2026-01-01: 60,000.50 USD\n2026-07-01: 60,000.00 USD' },
  B: { id: 'ent-cloudB-1', name: 'Analytics Suite (cloudB)', ...common, commitAmount: 80000, usedCommitAmount: 10000, creditAmount: 0, usedCreditAmount: 0, currency: 'EUR', marketplace: 'Marketplace B', agreementId: 'asset-b-9', subscriptionId: 'sub-b-42', productId: 'prod-cloudB', offerId: 'offer-cloudB', buyerId: 'buyer-cloudB',
    invoicedAmount: 20000, reportedAmount: 0, netTermsInDays: 45, autoRenew: false, agreementStatus: 'Subscribed' },
  // No terms: the commit comes from info; an endless entitlement clears its end date (null).
  C: { id: 'ent-cloudC-1', name: 'Analytics Suite (cloudC)', status: 'ACTIVE', startTime: '2026-01-01T00:00:00Z', endTime: null, commitAmount: 64000, currency: 'USD', marketplace: 'Marketplace C', agreementId: 'providers/p/entitlements/e-c-5', productId: 'prod-cloudC', offerId: 'offer-cloudC', buyerId: 'buyer-cloudC', netTermsInDays: 0 },
  // Epoch milliseconds read as dates; the divided commit's parent counts, its sub terms do not.
  D: { id: 'ent-cloudD-1', name: 'Analytics Suite (cloudD)', ...common, commitAmount: 3600, usedCommitAmount: 1200, currency: 'USD', marketplace: 'Marketplace D', agreementId: 'order-d-88', subscriptionId: 'inst-d-77', productId: 'prod-cloudD', offerId: 'offer-cloudD', buyerId: 'buyer-cloudD',
    autoRenew: true, agreementStatus: 'NORMAL', paymentInstallments: '2026-01-01: 1,800.00 USD\n2026-07-01: 1,800.00 USD' },
  E: { id: 'ent-cloudE-1', name: 'Analytics Suite (cloudE)', ...common, commitAmount: 24000, usedCommitAmount: 2000, annualizedAmount: 24000, currency: 'USD', marketplace: 'Marketplace E', agreementId: 'e-offer-3', productId: 'prod-cloudE', offerId: 'offer-cloudE', buyerId: 'buyer-cloudE', invoicedAmount: 12000, collectableAmount: 11640 },
  F: { id: 'ent-cloudF-1', name: 'Analytics Suite (cloudF)', ...common, status: 'CANCELLED', commitAmount: 9999.99, usedCommitAmount: 9999.99, currency: 'USD', marketplace: 'Marketplace F', agreementId: 'f-offer-6', productId: 'prod-cloudF', offerId: 'offer-cloudF', buyerId: 'buyer-cloudF', disbursedAmount: 0, autoRenew: false },
} as const;

describe('the canonical entitlement, marketplaces A to F', () => {
  for (const [marketplace, expected] of Object.entries(EXPECTED)) {
    it(`marketplace ${marketplace}`, () => {
      const fixture = MARKETPLACE_FIXTURES[marketplace as keyof typeof MARKETPLACE_FIXTURES];
      const computed = ENTITLEMENT.compute(fixture.entitlement, { terms: fixture.terms });
      expect(computed.ok && Object.fromEntries(Object.entries(computed.value).filter(([, value]) => value !== undefined))).toEqual(expected);
    });
  }

  it('an unreadable time refuses the record, naming it; no id refuses it too', () => {
    expect(ENTITLEMENT.compute({ ...MARKETPLACE_FIXTURES.A.entitlement, startTime: 'soon' }, { terms: [] })).toEqual({ ok: false, reason: 'entitlement ent-cloudA-1: startTime "soon" is not a date-time' });
    expect(ENTITLEMENT.compute({ ...MARKETPLACE_FIXTURES.A.entitlement, id: '' }, { terms: [] })).toEqual({ ok: false, reason: 'the entitlement has no id' });
  });
});

describe('each CRM takes the canonical values under its own names', () => {
  const fixture = MARKETPLACE_FIXTURES.B;
  const mapped = (mapping: { map(source: never, related: never): unknown }) => (mapping.map(fixture.entitlement as never, { terms: fixture.terms } as never) as { record: { fields: Record<string, unknown> } }).record.fields;
  it('Salesforce, HubSpot and Dynamics hold the same commit, currency and marketplace ids', () => {
    expect(mapped(entitlementToMarketplaceEntitlement)).toMatchObject({ Commit_Amount__c: 80000, Currency__c: 'EUR', CurrencyIsoCode: 'EUR', Marketplace_Agreement_Id__c: 'asset-b-9', Account__r: { Commerce_Buyer_Id__c: 'buyer-cloudB' } });
    expect(mapped(entitlementToHubSpotEntitlement)).toMatchObject({ commit_amount: 80000, currency: 'EUR', marketplace_agreement_id: 'asset-b-9', companies: { commerce_buyer_id: 'buyer-cloudB' } });
    expect(mapped(entitlementToDynamicsEntitlement)).toMatchObject({ ccs_commitamount: 80000, ccs_currency: 'EUR', ccs_marketplaceagreementid: 'asset-b-9', ccs_accountid: { ccs_commercebuyerid: 'buyer-cloudB' } });
  });
});
