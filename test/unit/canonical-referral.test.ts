// The canonical co-sell referral for marketplaces A to F (mappings/canonical/referral.ts), and the inbound
// referral a new opportunity is made from, expected values written by hand from the fixtures
// (test/fixtures/commerce/marketplaces.ts); then each CRM's table taking them.
import { describe, expect, it } from 'vitest';
import { inboundReferral, REFERRAL } from '../../mappings/canonical/referral.ts';
import { inboundReferralToOpportunity as inboundToDynamics, referralToCosellReferral as referralToDynamics } from '../../mappings/dynamics/referral.ts';
import { inboundReferralToDeal, referralToDeal } from '../../mappings/hubspot/referral.ts';
import { inboundReferralToOpportunity as inboundToSalesforce } from '../../mappings/salesforce/inbound-referral.ts';
import { referralToCosellReferral as referralToSalesforce } from '../../mappings/salesforce/referral.ts';
import type { EntityMapping, MappedRecord } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const outbound = { direction: 'OUTBOUND', status: 'SUBMITTED', stage: 'Qualified', dealValue: 50000, currency: 'USD', valueCurrency: 'USD', expectedCloseDate: '2026-06-30', description: 'Joint pursuit' };

const EXPECTED = {
  // Made from a Salesforce Opportunity: carries its id.
  A: { id: 'ref-cloudA', name: 'Co-sell with cloudA', dealName: 'Co-sell with cloudA', partner: 'Marketplace A', ...outbound, buyerId: 'buyer-cloudA', offerId: 'offer-cloudA', crmIds: { salesforce: '006000000000001AAA' } },
  // Sent by the partner, accepted.
  B: { id: 'ref-cloudB', name: 'Co-sell with cloudB', dealName: 'Co-sell with cloudB', partner: 'Marketplace B', ...outbound, direction: 'INBOUND', status: 'ACCEPTED', stage: 'Technical Validation', buyerId: 'buyer-cloudB', offerId: 'offer-cloudB', crmIds: {} },
  // No name (the record is named by its id, a deal made for it "Referral <id>"), no offer, value or close date.
  C: { id: 'ref-cloudC', name: 'ref-cloudC', dealName: 'Referral ref-cloudC', partner: 'Marketplace C', direction: 'OUTBOUND', status: 'SUBMITTED', stage: 'Qualified', currency: 'USD', valueCurrency: 'USD', description: 'Joint pursuit', buyerId: 'buyer-cloudC', crmIds: {} },
  D: { id: 'ref-cloudD', name: 'Co-sell with cloudD', dealName: 'Co-sell with cloudD', partner: 'Marketplace D', ...outbound, stage: 'Launched', status: 'CLOSED', dealValue: 3600.5, buyerId: 'buyer-cloudD', offerId: 'offer-cloudD', crmIds: {} },
  // In euros; made from a HubSpot deal.
  E: { id: 'ref-cloudE', name: 'Co-sell with cloudE', dealName: 'Co-sell with cloudE', partner: 'Marketplace E', ...outbound, currency: 'EUR', valueCurrency: 'EUR', buyerId: 'buyer-cloudE', offerId: 'offer-cloudE', crmIds: { hubspot: '5551234' } },
  F: { id: 'ref-cloudF', name: 'Co-sell with cloudF', dealName: 'Co-sell with cloudF', partner: 'Marketplace F', ...outbound, stage: 'Closed Lost', status: 'REJECTED', buyerId: 'buyer-cloudF', offerId: 'offer-cloudF', crmIds: {} },
};

/** The value without its undefined entries, at any depth: what "not known" leaves. */
const known = (value: unknown): unknown =>
  value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined).map(([key, inner]) => [key, known(inner)])) : value;

const B = MARKETPLACE_FIXTURES.B.referral;
// 2026-02-03T22:00:00Z in epoch milliseconds, the form marketplace D sends times in.
const FEB_3_22H_EPOCH_MS = 1770156000000;

describe('the canonical referral, marketplaces A to F', () => {
  for (const [marketplace, expected] of Object.entries(EXPECTED)) {
    it(`marketplace ${marketplace}`, () => {
      const computed = REFERRAL.compute(MARKETPLACE_FIXTURES[marketplace as keyof typeof MARKETPLACE_FIXTURES].referral, undefined);
      expect(computed.ok && known(computed.value)).toStrictEqual(expected);
    });
  }

  it('no currency: none as it came, USD for the deal value', () => {
    const computed = REFERRAL.compute({ ...B, currency: undefined }, undefined);
    expect(computed.ok && [computed.value.currency, computed.value.valueCurrency]).toEqual([undefined, 'USD']);
  });

  it('an unreadable close date refuses the record, naming it; no id refuses it too; its creation time is never read', () => {
    expect(REFERRAL.compute({ ...MARKETPLACE_FIXTURES.A.referral, expectedCloseDate: '31/06/2026' }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudA: expectedCloseDate "31/06/2026" is not a date-time' });
    expect(REFERRAL.compute({ ...B, id: '' }, undefined)).toEqual({ ok: false, reason: 'the referral has no id' });
    expect(REFERRAL.compute({ ...MARKETPLACE_FIXTURES.C.referral, creationTime: 'yesterday' }, undefined).ok).toBe(true);
  });
});

describe('the canonical inbound referral', () => {
  const INBOUND = inboundReferral({ account: 'company', opportunity: 'deal' });

  it("marketplace B's: the referral's values, its buyer, and its expected close date as the close date", () => {
    const computed = INBOUND.compute(B, undefined);
    expect(computed.ok && known(computed.value)).toStrictEqual({ ...EXPECTED.B, closeDate: '2026-06-30' });
  });

  it('without an expected close date, the day it was made (an epoch-millisecond creation time read as a date)', () => {
    const computed = INBOUND.compute({ ...B, expectedCloseDate: undefined, creationTime: FEB_3_22H_EPOCH_MS }, undefined);
    expect(computed.ok && [computed.value.expectedCloseDate, computed.value.closeDate]).toEqual([undefined, '2026-02-03']);
    const iso = INBOUND.compute({ ...B, expectedCloseDate: null as unknown as string, creationTime: '2026-02-03T22:00:00.000Z' }, undefined);
    expect(iso.ok && iso.value.closeDate).toBe('2026-02-03');
  });

  it('its creation time is read only when there is no expected close date; unreadable then, it refuses the record', () => {
    const computed = INBOUND.compute({ ...B, creationTime: 'yesterday' }, undefined);
    expect(computed.ok && computed.value.closeDate).toBe('2026-06-30');
    expect(INBOUND.compute({ ...B, expectedCloseDate: undefined, creationTime: 'yesterday' }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudB: creationTime "yesterday" is not a date-time' });
  });

  it("one naming no buyer is refused in the CRM's words", () => {
    expect(INBOUND.compute({ ...B, buyerID: undefined }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudB names no buyer, so there is no company to put its deal on' });
    expect(inboundReferral({ account: 'Account', opportunity: 'Opportunity' }).compute({ ...B, buyerID: '' }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudB names no buyer, so there is no Account to put its Opportunity on' });
    expect(INBOUND.compute({ ...B, id: '' }, undefined)).toEqual({ ok: false, reason: 'the referral has no id' });
  });
});

describe('each CRM takes the canonical referral under its own names', () => {
  const mapped = (mapping: EntityMapping<any, any>, source: unknown): MappedRecord => {
    const result = mapping.map(source, undefined);
    if (!result.ok) throw new Error(result.reason);
    return result.record;
  };
  const stageOf = (referral: unknown) => [mapped(inboundToSalesforce, referral).fields.StageName, mapped(inboundReferralToDeal, referral).fields.dealstage, mapped(inboundToDynamics, referral).fields.stepname];

  it("a new opportunity's stage through each CRM's table; none or one the tables lack starts at Prospect's", () => {
    expect(stageOf(B)).toEqual(['Needs Analysis', 'Presentation Scheduled', '2-Develop']);
    expect(stageOf({ ...B, stage: undefined })).toEqual(['Prospecting', 'Appointment Scheduled', '0-Prospect']);
    expect(stageOf({ ...B, stage: 'Evaluating' })).toEqual(['Prospecting', 'Appointment Scheduled', '0-Prospect']);
  });

  it("an inbound referral without an expected close date: Salesforce (which requires one) and Dynamics take the day it was made, HubSpot none", () => {
    const undated = { ...B, expectedCloseDate: undefined, creationTime: FEB_3_22H_EPOCH_MS };
    expect(mapped(inboundToSalesforce, undated).fields.CloseDate).toBe('2026-02-03');
    expect(mapped(inboundToDynamics, undated).fields.estimatedclosedate).toBe('2026-02-03');
    expect(mapped(inboundReferralToDeal, undated).fields).not.toHaveProperty('closedate');
  });

  it('the same deal value and partner on all three, for the referral and for the inbound opportunity', () => {
    const D = MARKETPLACE_FIXTURES.D.referral;
    expect([mapped(referralToSalesforce, D).fields.Deal_Value__c, mapped(referralToDeal, D).fields.amount, mapped(referralToDynamics, D).fields.ccs_dealvalue]).toEqual([3600.5, 3600.5, 3600.5]);
    expect([mapped(inboundToSalesforce, B).fields.Cosell_Partner__c, mapped(inboundReferralToDeal, B).fields.cosell_partner, mapped(inboundToDynamics, B).fields.ccs_cosellpartner]).toEqual(['Marketplace B', 'Marketplace B', 'Marketplace B']);
  });

  it("the referral's opportunity: the one it carries for that CRM, else its offer's", () => {
    const A = MARKETPLACE_FIXTURES.A.referral;
    expect(mapped(referralToSalesforce, A).fields).toMatchObject({ Opportunity__c: '006000000000001AAA' });
    expect(mapped(referralToSalesforce, A).fields).not.toHaveProperty('Opportunity__r');
    expect(mapped(referralToSalesforce, B).fields).toMatchObject({ Opportunity__r: { Commerce_Offer_Id__c: 'offer-cloudB' } });
    expect(mapped(referralToDynamics, A).fields.ccs_opportunityid).toEqual({ ccs_commerceofferid: 'offer-cloudA' });
    expect(mapped(referralToDynamics, { ...A, crmCOpportunityId: '{0B9C6A5E-1111-4A1A-9C1A-000000000001}' }).fields.ccs_opportunityid).toBe('0b9c6a5e-1111-4a1a-9c1a-000000000001');
    expect(mapped(referralToDeal, MARKETPLACE_FIXTURES.E.referral).carriedCrmId).toBe('5551234');
    expect(mapped(referralToDeal, A)).not.toHaveProperty('carriedCrmId');
  });
});
