// The canonical live-agreement mark (mappings/canonical/live-agreement.ts) and each CRM's field, by hand.
import { describe, expect, it } from 'vitest';
import { LIVE_AGREEMENT, type BuyerAgreements } from '../../mappings/canonical/live-agreement.ts';
import { liveAgreementToDynamicsAccount } from '../../mappings/dynamics/live-agreement.ts';
import { liveAgreementToHubSpotCompany } from '../../mappings/hubspot/live-agreement.ts';
import { liveAgreementToAccount } from '../../mappings/salesforce/live-agreement.ts';
import { applyMapping } from '../../mappings/overrides.ts';

const AS_OF = '2026-12-01T00:00:00Z';
const buyer = (entitlements: BuyerAgreements['entitlements']): BuyerAgreements => ({ id: 'buyer-000002', lastUpdateTime: '2026-11-30T00:00:00Z', entitlements, asOf: AS_OF });

describe('the live-agreement mark', () => {
  it('is set by one ACTIVE entitlement not past its end (open-ended included)', () => {
    const computed = LIVE_AGREEMENT.compute(buyer([
      { id: 'ent-2', status: 'EXPIRED', endTime: '2027-01-01T00:00:00Z' },
      { id: 'ent-1', status: 'ACTIVE', endTime: null },
      { id: 'ent-3', status: 'ACTIVE', endTime: '2027-06-01T00:00:00Z' },
    ]), undefined);
    expect(computed).toEqual({ ok: true, value: { buyerId: 'buyer-000002', live: true, liveEntitlementIds: ['ent-1', 'ent-3'] } });
  });

  it('is not set by entitlements past their end, suspended, cancelled, or whose marketplace A agreement ended', () => {
    const computed = LIVE_AGREEMENT.compute(buyer([
      { id: 'ent-1', status: 'ACTIVE', endTime: '2026-11-30T23:59:59Z' },
      { id: 'ent-2', status: 'SUSPENDED', endTime: null },
      { id: 'ent-3', status: 'CANCELLED', endTime: '2027-06-01T00:00:00Z' },
      { id: 'ent-4', status: 'ACTIVE', endTime: '2027-06-01T00:00:00Z', info: { cloudAAgreement: { status: 'TERMINATED' } } },
    ]), undefined);
    expect(computed).toEqual({ ok: true, value: { buyerId: 'buyer-000002', live: false, liveEntitlementIds: [] } });
  });

  it('a renewed agreement runs to its end', () => {
    const computed = LIVE_AGREEMENT.compute(buyer([{ id: 'ent-1', status: 'ACTIVE', endTime: '2027-01-31T00:00:00Z', info: { cloudAAgreement: { status: 'RENEWED' } } }]), undefined);
    expect(computed.ok && computed.value.live).toBe(true);
  });

  it('goes on the account (company) keyed by the buyer id, in each CRM', () => {
    const source = buyer([{ id: 'ent-1', status: 'ACTIVE', endTime: null }]);
    for (const [mapping, record] of [
      [liveAgreementToAccount, { object: 'Account', externalIdField: 'Commerce_Buyer_Id__c', externalId: 'buyer-000002', fields: { Has_Live_Marketplace_Agreement__c: true } }],
      [liveAgreementToHubSpotCompany, { object: 'companies', externalIdField: 'commerce_buyer_id', externalId: 'buyer-000002', fields: { has_live_marketplace_agreement: true } }],
      [liveAgreementToDynamicsAccount, { object: 'account', externalIdField: 'ccs_commercebuyerid', externalId: 'buyer-000002', fields: { ccs_haslivemarketplaceagreement: true } }],
    ] as const) {
      const mapped = applyMapping(mapping, undefined, source, undefined);
      expect(mapped.ok && mapped.record).toEqual(record);
    }
  });
});
