// Entitlements and terms in the commerce sandbox: list, get, terms, metaInfo and addon (§3.3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-04-01T08:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;
let entitlements: any[];
let terms: any[];

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 3, entitlements: 120, now: clock.now });
  probe = probeSandbox(sandbox);
  entitlements = await probe.records('entitlements');
  terms = await probe.records('entitlementTerms');
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: entitlements', () => {
  it('lists with limit/offset and equality filters, and gets one by id', async () => {
    const page = await probe.api('/org/org-1/entitlement', { query: { limit: 10, offset: 5 } });
    expect(page.json.map((e: any) => e.id)).toEqual(entitlements.slice(5, 15).map((e) => e.id));
    const suspended = await probe.api('/org/org-1/entitlement', { query: { status: 'CANCELLED', partner: 'cloudA' } });
    expect(suspended.json.map((e: any) => e.id)).toEqual(entitlements.filter((e) => e.status === 'CANCELLED' && e.partner === 'cloudA').map((e) => e.id));
    expect((await probe.api(`/org/org-1/entitlement/${entitlements[3].id}`)).json).toEqual(entitlements[3]);
    const missing = await probe.api('/org/org-1/entitlement/ent-999999');
    expect(missing.status).toBe(404);
    expect(typeof missing.json).toBe('string');
  });

  it('lists the terms of an entitlement and gets one, but not through another entitlement', async () => {
    const divided = terms.find((t) => t.info.isCommitDivided)!;
    const own = terms.filter((t) => t.entitlementID === divided.entitlementID);
    const listed = await probe.api(`/org/org-1/entitlement/${divided.entitlementID}/entitlementTerm`);
    expect(listed.json).toEqual(own);
    expect((await probe.api(`/org/org-1/entitlement/${divided.entitlementID}/entitlementTerm/${divided.id}`)).json).toEqual(divided);
    const other = entitlements.find((e) => e.id !== divided.entitlementID)!;
    expect((await probe.api(`/org/org-1/entitlement/${other.id}/entitlementTerm/${divided.id}`)).status).toBe(404);
    expect((await probe.api(`/org/org-1/entitlement/${divided.entitlementID}/entitlementTerm`, { query: { limit: 1 } })).json).toHaveLength(1);
  });

  it('merges a metaInfo patch, bumps lastUpdateTime and emits an UPDATED event', async () => {
    const target = entitlements[10];
    clock.advance(30);
    const response = await probe.api(`/org/org-1/entitlement/${target.id}/metaInfo`, { method: 'PATCH', body: { crmAOpportunityId: '006ABCDEFGHIJKLMNO', customMetaInfo: { synced: true } } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ id: target.id, lastUpdateTime: clock.iso(), metaInfo: { crmAOpportunityId: '006ABCDEFGHIJKLMNO', customMetaInfo: { synced: true } } });
    const events = (await probe.api(`/org/org-1/notificationEvent/ENTITLEMENT/${target.id}`)).json.notificationEvents;
    expect(events.at(-1)).toMatchObject({ action: 'UPDATED', entityType: 'ENTITLEMENT', entityID: target.id, timestamp: clock.iso(), version: 1 });
  });
});

describe('commerce sandbox: addon', () => {
  it('applies an addon to an ACTIVE entitlement and returns the entitlement', async () => {
    const active = entitlements.find((e) => e.status === 'ACTIVE')!;
    clock.advance(1);
    const response = await probe.api(`/org/org-1/entitlement/${active.id}/addon`, { method: 'POST', body: { name: 'Extra seats', amount: 250.5, description: '10 seats' } });
    expect(response.status).toBe(200);
    expect(response.json.id).toBe(active.id);
    expect(response.json.lastUpdateTime).toBe(clock.iso());
    expect(response.json.info.addons.at(-1)).toMatchObject({ name: 'Extra seats', amount: 250.5, description: '10 seats', chargeOn: clock.iso(), id: expect.any(String) });
    expect(response.json.info.addons).toHaveLength(active.info.addons.length + 1);
  });

  it.each(['PENDING', 'SUSPENDED', 'CANCELLED', 'EXPIRED'])('refuses an addon on a %s entitlement with 409 FAILED_PRECONDITION', async (status) => {
    const entitlement = entitlements.find((e) => e.status === status);
    expect(entitlement, `seeded data has a ${status} entitlement`).toBeDefined();
    const response = await probe.api(`/org/org-1/entitlement/${entitlement.id}/addon`, { method: 'POST', body: { name: 'x', amount: 1 } });
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ code: 'FAILED_PRECONDITION', status });
    expect(response.json.message).toContain(status);
    expect((await probe.api(`/org/org-1/entitlement/${entitlement.id}`)).json.info.addons).toEqual(entitlement.info.addons);
  });

  it('rejects an addon without a name or with a non-numeric amount', async () => {
    const active = entitlements.find((e) => e.status === 'ACTIVE')!;
    expect((await probe.api(`/org/org-1/entitlement/${active.id}/addon`, { method: 'POST', body: { amount: 5 } })).json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'name' });
    expect((await probe.api(`/org/org-1/entitlement/${active.id}/addon`, { method: 'POST', body: { name: 'x', amount: '5' } })).json).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'amount' });
  });
});
