// The commerce sandbox's events in a seller's words (issue #27): the change driver's events, as the feed
// serves them (GET {O}/notificationEvent, §2.8), name their record (entityType, entityID) and say what
// happened in their title and message; the changes someone must act on are action items, never audit-only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock('2026-06-01T00:00:00.000Z');
let sandbox: CommerceSandbox;
let probe: SandboxProbe;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 23, entitlements: 60, now: clock.now });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());

/** The feed's events with these ids, read through the API. */
async function served(ids: string[]): Promise<any[]> {
  const all: any[] = [];
  for (let offset: number | undefined = 0; offset !== undefined; ) {
    const page: { notificationEvents: any[]; nextOffset?: number } = (await probe.api('/org/org-1/notificationEvent', { query: { limit: 1000, offset } })).json;
    all.push(...page.notificationEvents);
    offset = page.nextOffset;
  }
  return ids.map((id) => all.find((event) => event.eventID === id));
}

describe('commerce sandbox: events a seller can read', () => {
  it('a cancelled entitlement: an action item naming it, delivered (not audit-only)', async () => {
    clock.advance(60);
    const [change] = (await probe.control('POST', '/changes', { count: 1, kinds: ['cancellation'] })).json.changes;
    const entitlement = (await probe.records('entitlements')).find((row) => row.id === change.id);
    const [event] = await served([change.eventID]);
    expect(event).toMatchObject({
      entityType: 'ENTITLEMENT',
      entityID: change.id,
      action: 'STATUS_CHANGED',
      entityStatus: 'CANCELLED',
      title: `Entitlement cancelled: ${entitlement.name}`,
      message: `The buyer cancelled entitlement ${entitlement.name} (${change.id}) (${entitlement.partner}). Reach out before the access ends.`,
      isActionItem: true,
      priority: 'HIGH',
    });
    expect(event.channels.length).toBeGreaterThan(0);
  });

  it('a usage report the marketplace refused: an action item on its entitlement, with the dimension and day', async () => {
    clock.advance(60);
    // Only groups not reported yet can fail: one more usage first.
    const changes = (await probe.control('POST', '/changes', { count: 1, kinds: ['usage'] })).json.changes;
    expect(changes).toHaveLength(1);
    const [failed] = (await probe.control('POST', '/changes', { count: 1, kinds: ['usageReportFailed'] })).json.changes;
    const [event] = await served([failed.eventID]);
    const { dimensionKey, usageDate } = event.info.usageReportFailed;
    expect(event).toMatchObject({ entityType: 'ENTITLEMENT', entityID: failed.id, isActionItem: true });
    expect(event.title).toMatch(/^Usage report failed: /);
    expect(event.message).toContain(`The marketplace refused the usage of ${dimensionKey} on ${usageDate} for`);
  });

  it("a metaInfo update (an integration's CRM ids written back) is audit-only", async () => {
    const offer = (await probe.records('offers'))[0];
    expect((await probe.api(`/org/org-1/offer/${offer.id}/metaInfo`, { method: 'PATCH', body: { crmAOpportunityId: '006000000000001AAA' } })).status).toBe(200);
    const events = (await probe.api(`/org/org-1/notificationEvent/OFFER/${offer.id}`, { query: { limit: 1000 } })).json.notificationEvents;
    expect(events.at(-1)).toMatchObject({ action: 'UPDATED', info: { changed: 'metaInfo' }, channels: [], requireAudit: true, isActionItem: false });
  });

  it('news is not an action item: a new private offer', async () => {
    clock.advance(60);
    const [change] = (await probe.control('POST', '/changes', { count: 1, kinds: ['newOffer'] })).json.changes;
    const offer = (await probe.records('offers')).find((row) => row.id === change.id);
    const [event] = await served([change.eventID]);
    expect(event).toMatchObject({ entityType: 'OFFER', entityID: change.id, action: 'CREATED', title: `Private offer created: ${offer.name}`, isActionItem: false });
  });
});
