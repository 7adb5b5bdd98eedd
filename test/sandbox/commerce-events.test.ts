// Notification events (§2.9, A5, A8), auditing events, and the change driver of the commerce sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-06-01T00:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 21, entitlements: 150, now: clock.now });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());

const inOrder = (events: any[]) =>
  events.every((event, i) => i === 0 || events[i - 1].timestamp < event.timestamp || (events[i - 1].timestamp === event.timestamp && events[i - 1].eventID < event.eventID));

describe('commerce sandbox: notification events', () => {
  it('pages with limit/offset: totalCount only at offset 0, nextOffset absent at the end', async () => {
    const all = await probe.records('notificationEvents');
    expect(all.length).toBeGreaterThan(300);
    expect(inOrder(all)).toBe(true);
    const seen: any[] = [];
    let offset = 0;
    for (let page = 0; ; page++) {
      const response = await probe.api('/org/org-1/notificationEvent', { query: { limit: 100, offset } });
      expect(response.status).toBe(200);
      if (page === 0) expect(response.json.totalCount).toBe(all.length);
      else expect('totalCount' in response.json).toBe(false);
      seen.push(...response.json.notificationEvents);
      if (response.json.nextOffset === undefined) break;
      expect(response.json.nextOffset).toBe(offset + 100);
      offset = response.json.nextOffset;
    }
    expect(seen).toEqual(all);
    const exactEnd = await probe.api('/org/org-1/notificationEvent', { query: { limit: all.length } });
    expect(exactEnd.json.notificationEvents).toHaveLength(all.length);
    expect('nextOffset' in exactEnd.json).toBe(false);
    expect((await probe.api('/org/org-1/notificationEvent', { query: { limit: 1001 } })).status).toBe(400);
    expect((await probe.api('/org/org-1/notificationEvent', { query: { offset: -1 } })).status).toBe(400);
  });

  it('filters by entityType and since, and lists the events of one entity', async () => {
    const all = await probe.records('notificationEvents');
    const offers = await probe.api('/org/org-1/notificationEvent', { query: { entityType: 'OFFER' } });
    expect(offers.json.notificationEvents).toEqual(all.filter((e) => e.entityType === 'OFFER'));
    const since = all[Math.floor(all.length / 2)].lastUpdateTime;
    const recent = await probe.api('/org/org-1/notificationEvent', { query: { since } });
    expect(recent.json.notificationEvents).toEqual(all.filter((e) => e.lastUpdateTime >= since));
    expect((await probe.api('/org/org-1/notificationEvent', { query: { since: 'yesterday' } })).status).toBe(400);
    const entity = all.find((e) => e.entityType === 'ENTITLEMENT')!;
    const own = await probe.api(`/org/org-1/notificationEvent/ENTITLEMENT/${entity.entityID}`, { query: { limit: 1 } });
    const expected = all.filter((e) => e.entityType === 'ENTITLEMENT' && e.entityID === entity.entityID);
    expect(own.json.notificationEvents).toEqual(expected.slice(0, 1));
    expect(own.json.totalCount).toBe(expected.length);
  });

  it('holds events of every marketplace, audit-only events, and versions 1, 0 or missing (all v1)', async () => {
    const all = await probe.records('notificationEvents');
    expect(new Set(all.map((e) => e.partner).filter(Boolean))).toEqual(new Set(['cloudA', 'cloudB', 'cloudC', 'cloudD', 'cloudE', 'cloudF']));
    expect(all.some((e) => e.channels.length === 0 && e.requireAudit === true)).toBe(true);
    expect(new Set(all.map((e) => e.version))).toEqual(new Set([1, 0, undefined]));
  });

  it('serves audited events through the auditingEvent query', async () => {
    const all = await probe.records('notificationEvents');
    const response = await probe.api('/org/org-1/auditingEvent/query', { query: { q: '(eq entityType "BUYER")', page_size: 1000 } });
    expect(response.status).toBe(200);
    expect(response.json.data.map((row: any) => row.id)).toEqual(all.filter((e) => e.requireAudit && e.entityType === 'BUYER').map((e) => e.eventID).sort());
  });
});

describe('commerce sandbox: change driver', () => {
  it('applies changes on demand: records move, lastUpdateTime becomes now, one event per change', async () => {
    clock.advance(600); // less than the token lifetime: the probe keeps its token
    const before = await probe.records('notificationEvents');
    const response = await probe.control('POST', '/changes', { count: 40 });
    expect(response.status).toBe(200);
    const changes = response.json.changes as any[];
    expect(changes).toHaveLength(40);
    expect(new Set(changes.map((c) => c.entityType)).size).toBeGreaterThan(1);
    const after = await probe.records('notificationEvents');
    expect(after).toHaveLength(before.length + 40);
    expect(after.slice(-40).map((e) => e.eventID)).toEqual(changes.map((c) => c.eventID));
    for (const change of changes) {
      expect(change.lastUpdateTime).toBe(clock.iso());
      const path = { ENTITLEMENT: 'entitlement', OFFER: 'offer', REFERRAL: 'cosell/referral' }[change.entityType as string];
      const record = await probe.api(`/org/org-1/${path}/${change.id}`);
      expect(record.json.lastUpdateTime).toBe(clock.iso());
    }
    const recent = await probe.api('/org/org-1/entitlement/query', { query: { q: `(ge lastUpdateTime "${clock.iso()}")`, page_size: 1000 } });
    expect(recent.json.data.map((e: any) => e.id).sort()).toEqual([...new Set(changes.filter((c) => c.entityType === 'ENTITLEMENT').map((c) => c.id))].sort());
  });

  it('gives a PENDING_CREATE offer its external id when it moves on', async () => {
    const created = await probe.api('/org/org-1/offer', { method: 'POST', body: { name: 'Driver offer', productID: 'prod-000001' } });
    expect(created.json.externalID).toBeUndefined();
    for (let i = 0; i < 60; i++) {
      const offer = (await probe.api(`/org/org-1/offer/${created.json.id}`)).json;
      if (offer.status !== 'PENDING_CREATE') {
        expect(offer.externalID).toEqual(expect.any(String));
        expect((await probe.api(`/org/org-1/offerExternalId/${encodeURIComponent(offer.externalID)}`)).json.id).toBe(offer.id);
        return;
      }
      await probe.control('POST', '/changes', { count: 25 });
    }
    throw new Error('the driver never moved the new offer');
  });

  it('runs on a timer at changesPerSecond and can emit events of an unknown version', async () => {
    const live = await startCommerceSandbox({ seed: 2, entitlements: 40, changesPerSecond: 50, unknownEventVersionRate: 1 });
    try {
      const live$ = probeSandbox(live);
      const before = (await live$.records('notificationEvents')).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      const events = await live$.records('notificationEvents');
      expect(events.length).toBeGreaterThan(before + 5);
      expect(events.slice(before).every((e) => e.version === 2)).toBe(true);
    } finally {
      await live.stop();
    }
  });

  it('rejects a bad change count', async () => {
    expect((await probe.control('POST', '/changes', { count: -1 })).status).toBe(400);
    expect((await probe.control('POST', '/changes', { count: 'many' })).status).toBe(400);
  });
});
