// The generated data of the commerce sandbox: deterministic per seed, sized from the entitlement count,
// and carrying the marketplace-specific fields of §2 that a sync must cope with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../sandbox/commerce/generator.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox } from '../../sandbox/commerce/testing.ts';

const KINDS = ['organizations', 'products', 'buyers', 'contacts', 'offers', 'entitlements', 'entitlementTerms', 'referrals', 'notificationEvents'];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let sandbox: CommerceSandbox;
const data: Record<string, any[]> = {};

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 4, entitlements: 400 });
  const probe = probeSandbox(sandbox);
  for (const kind of KINDS) data[kind] = await probe.records(kind);
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: determinism', () => {
  it('dumps byte-identical records for the same seed and different ones for another seed', async () => {
    const twin = await startCommerceSandbox({ seed: 4, entitlements: 400 });
    const other = await startCommerceSandbox({ seed: 5, entitlements: 400 });
    try {
      for (const kind of KINDS) {
        const [a, b, c] = await Promise.all([sandbox, twin, other].map((s) => fetch(`${s.apiUrl}/_sandbox/records/${kind}`).then((r) => r.text())));
        expect(b, kind).toBe(a);
        if (kind !== 'organizations') expect(c, kind).not.toBe(a);
      }
    } finally {
      await Promise.all([twin.stop(), other.stop()]);
    }
  });

  it('does not depend on the clock or on Math.random', () => {
    const random = Math.random;
    Math.random = () => 0.5;
    try {
      const once = JSON.stringify(generateDataset({ seed: 77, entitlements: 60, organizationId: 'org-x' }));
      Math.random = () => 0.123;
      expect(JSON.stringify(generateDataset({ seed: 77, entitlements: 60, organizationId: 'org-x' }))).toBe(once);
    } finally {
      Math.random = random;
    }
  });

  it('regenerates the same data on POST /_sandbox/reset after changes', async () => {
    const probe = probeSandbox(sandbox);
    const before = await fetch(`${sandbox.apiUrl}/_sandbox/records/entitlements`).then((r) => r.text());
    await probe.control('POST', '/changes', { count: 30 });
    expect(await fetch(`${sandbox.apiUrl}/_sandbox/records/entitlements`).then((r) => r.text())).not.toBe(before);
    expect((await probe.control('POST', '/reset')).status).toBe(200);
    expect(await fetch(`${sandbox.apiUrl}/_sandbox/records/entitlements`).then((r) => r.text())).toBe(before);
  });
});

describe('commerce sandbox: generated data', () => {
  it('derives its sizes from the entitlement count', () => {
    expect(data.organizations).toEqual([{ id: 'org-1', name: expect.any(String) }]);
    expect(data.entitlements).toHaveLength(400);
    expect(data.offers).toHaveLength(400);
    expect(data.buyers).toHaveLength(100);
    expect(data.contacts!.length).toBeGreaterThan(150);
    expect(data.contacts!.length).toBeLessThan(250);
    expect(data.referrals).toHaveLength(40);
    expect(data.products!.length).toBeGreaterThanOrEqual(6);
    expect(data.entitlements![0].id).toBe('ent-000001');
  });

  it('uses ISO times with milliseconds, with many records sharing one lastUpdateTime', () => {
    for (const kind of ['entitlements', 'offers', 'buyers', 'contacts', 'referrals']) {
      for (const row of data[kind]!) {
        expect(row.lastUpdateTime, kind).toMatch(ISO_MS);
        expect(row.creationTime, kind).toMatch(ISO_MS);
        expect(Date.parse(row.creationTime) <= Date.parse(row.lastUpdateTime), kind).toBe(true);
      }
    }
    const distinct = new Set(data.entitlements!.map((e) => e.lastUpdateTime));
    expect(distinct.size).toBeLessThan(data.entitlements!.length / 2);
  });

  it('covers marketplaces A to F, every offer type and the named offer statuses', () => {
    const partners = ['cloudA', 'cloudB', 'cloudC', 'cloudD', 'cloudE', 'cloudF'];
    expect(new Set(data.entitlements!.map((e) => e.partner))).toEqual(new Set(partners));
    expect(new Set(data.referrals!.map((r) => r.partner)).size).toBeGreaterThan(3);
    expect(new Set(data.offers!.map((o) => o.offerType))).toEqual(new Set(['PRIVATE', 'PUBLIC', 'CPPO', 'CPPO_IN', 'CPPO_OUT', 'FREE_TRIAL', 'OFFER_SET']));
    expect(new Set(data.offers!.map((o) => o.status)).size).toBe(9);
    const external = data.offers!.filter((o) => o.externalID).map((o) => o.externalID);
    expect(new Set(external).size).toBe(external.length);
  });

  it('gives marketplace D records epoch-millisecond integer times', () => {
    const d = data.entitlements!.filter((e) => e.partner === 'cloudD');
    expect(d.length).toBeGreaterThan(0);
    for (const e of d) {
      const [instance] = e.info.cloudDEntitlements;
      const [order] = e.info.cloudDOrders;
      for (const value of [instance.BeganOn, instance.CreatedOn, order.CreatedOn, order.PaidOn]) expect(Number.isInteger(value)).toBe(true);
      expect(instance.EndOn === null || Number.isInteger(instance.EndOn)).toBe(true);
      expect(instance.BeganOn).toBe(Date.parse(e.startTime));
    }
    expect(data.entitlements!.filter((e) => e.partner !== 'cloudD').every((e) => e.info.cloudDEntitlements === undefined)).toBe(true);
  });

  it('marks entitlements of offers with more than 50 dimensions as dimensionsOversized, without dimensions', () => {
    const oversized = data.entitlements!.filter((e) => e.info.dimensionsOversized === true);
    expect(oversized.length).toBeGreaterThan(0);
    const offers = new Map(data.offers!.map((o) => [o.id, o]));
    for (const e of oversized) {
      expect(e.info.dimensions).toBeUndefined();
      expect(offers.get(e.offerID).info.dimensions.length).toBeGreaterThan(50);
    }
    const normal = data.entitlements!.filter((e) => e.info.dimensionsOversized === false);
    expect(normal.every((e) => Array.isArray(e.info.dimensions) && e.info.dimensions.length <= 50)).toBe(true);
  });

  it('carries the marketplace A agreement, license and decimal parts, and marketplace B subscriptions', () => {
    const a = data.entitlements!.filter((e) => e.partner === 'cloudA');
    expect(a.every((e) => e.info.cloudAAgreement.agreementId === e.externalID && e.info.cloudALicenseArn)).toBe(true);
    const aTerms = data.entitlementTerms!.filter((t) => t.partner === 'cloudA' && t.info.dimensionQuantityDecimalParts);
    expect(aTerms.length).toBeGreaterThan(0);
    for (const t of aTerms) for (const part of Object.values(t.info.dimensionQuantityDecimalParts)) expect((part as number) > 0 && (part as number) < 1).toBe(true);
    expect(data.entitlementTerms!.some((t) => t.partner !== 'cloudA' && t.info.dimensionQuantityDecimalParts)).toBe(false);
    const b = data.entitlements!.filter((e) => e.partner === 'cloudB');
    expect(b.some((e) => e.info.cloudBSubscriptions === null)).toBe(true);
    expect(b.filter((e) => e.info.cloudBSubscriptions).every((e) => typeof e.info.cloudBSubscriptions[0].id === 'string')).toBe(true);
    expect(data.entitlements!.some((e) => e.endTime === null)).toBe(true);
    expect(data.entitlements!.some((e) => e.partner === 'cloudE' && e.info.cloudEAcceptedOffer)).toBe(true);
    expect(data.entitlements!.some((e) => e.partner === 'cloudF' && e.info.cloudFOffer)).toBe(true);
  });

  it('divides some commits into sub terms that point back to their parent and add up to it', () => {
    const terms = new Map(data.entitlementTerms!.map((t) => [t.id, t]));
    const parents = data.entitlementTerms!.filter((t) => t.info.isCommitDivided === true);
    expect(parents.length).toBeGreaterThan(0);
    for (const parent of parents) {
      const subs = parent.info.subEntitlementTermIds.map((id: string) => terms.get(id));
      expect(subs.length).toBeGreaterThanOrEqual(2);
      for (const sub of subs) expect(sub).toMatchObject({ entitlementID: parent.entitlementID, info: { parentEntitlementTermId: parent.id } });
      expect(subs.reduce((sum: number, sub: any) => sum + sub.commitAmount, 0)).toBeCloseTo(parent.commitAmount, 2);
    }
    for (const e of data.entitlements!) expect(terms.get(e.entitlementTermID)?.entitlementID).toBe(e.id);
  });

});
