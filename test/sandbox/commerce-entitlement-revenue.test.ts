// The commerce sandbox serves the revenue and agreement fields of an entitlement (issue #25 section 2)
// for marketplaces A to F: amounts, net terms, auto-renew, A's agreement (status, renewal chain, PDF link
// lasting or presigned), installments on flexible schedules, D's epoch-millisecond records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-04-01T08:00:00.000Z');
let sandbox: CommerceSandbox;
let entitlements: any[];

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 3, entitlements: 300, now: clock.now });
  entitlements = await probeSandbox(sandbox).records('entitlements');
});
afterAll(() => sandbox.stop());

const of = (partner: string) => entitlements.filter((e) => e.partner === partner);

describe('commerce sandbox: revenue and agreement on the entitlement', () => {
  it('every marketplace gives invoiced, gross, collectable and disbursed amounts, net terms and auto-renew', () => {
    for (const partner of ['cloudA', 'cloudB', 'cloudC', 'cloudD', 'cloudE', 'cloudF']) {
      expect(of(partner).length, partner).toBeGreaterThan(0);
      for (const e of of(partner)) {
        for (const field of ['invoicedAmount', 'grossAmount', 'collectableAmount', 'disbursedAmount']) expect(typeof e.info[field], `${e.id} ${field}`).toBe('number');
        expect([0, 30, 45]).toContain(e.info.netTermsInDays);
        expect(typeof e.info.autoRenew).toBe('boolean');
      }
    }
  });

  it("marketplace A: an agreement status, a renewal chain for some, a PDF link lasting for some and presigned for others, decimals in amounts", () => {
    const a = of('cloudA');
    expect(a.every((e) => typeof e.info.cloudAAgreement.status === 'string' && /^P\d+D$/.test(e.info.cloudANetPaymentTerm))).toBe(true);
    expect(a.some((e) => e.info.cloudAAgreement.initialAgreementId !== e.info.cloudAAgreement.agreementId)).toBe(true);
    expect(a.some((e) => e.info.cloudAAgreement.initialAgreementId === e.info.cloudAAgreement.agreementId)).toBe(true);
    expect(a.some((e) => e.info.cloudAAgreementPdfURL.includes('X-Amz-Signature='))).toBe(true);
    expect(a.some((e) => !e.info.cloudAAgreementPdfURL.includes('?'))).toBe(true);
    expect(a.some((e) => !Number.isInteger(e.info.invoicedAmount))).toBe(true);
  });

  it('flexible schedules carry yearly installments summing to the commit; others carry none', () => {
    const flexible = entitlements.filter((e) => e.info.paymentSchedule === 'FLEXIBLE' && e.info.commitAmount > 0);
    expect(flexible.length).toBeGreaterThan(0);
    for (const e of flexible) {
      const items = e.info.paymentInstallments;
      expect(items[0].chargeDate).toBe(e.startTime);
      const total = items.reduce((sum: number, item: any) => sum + item.chargeAmount, 0);
      expect(Math.abs(total - e.info.commitAmount)).toBeLessThan(0.005);
      expect(items.every((item: any) => item.currency === e.info.currency)).toBe(true);
    }
    expect(entitlements.filter((e) => e.info.paymentSchedule !== 'FLEXIBLE').every((e) => e.info.paymentInstallments === undefined)).toBe(true);
  });

  it('marketplace D keeps its own auto-renewal flag and status, with epoch-millisecond times', () => {
    for (const e of of('cloudD')) {
      const record = e.info.cloudDEntitlements[0];
      expect(typeof record.AutoRenewal).toBe('boolean');
      expect(['NORMAL', 'RELEASED']).toContain(record.Status);
      expect(Number.isInteger(record.BeganOn)).toBe(true);
    }
  });
});
