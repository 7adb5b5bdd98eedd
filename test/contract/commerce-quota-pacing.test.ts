// Contract test: the commerce client paces each organization's calls inside the quotas its snapshot
// reports (A20), against sandboxes that enforce them, over real HTTP and the real clock. Three
// organizations at once: one with a low quota (more reads than the quota's minute allows: they finish in
// the next window, none refused), one whose quota another worker also draws on (the pacer cannot see
// those calls until it reads the snapshot again: refusals are waited out, no record lost), and one with
// the default quota (never held).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient, quotaView, type CommerceClient } from '../../commerce/index.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox } from '../../sandbox/commerce/testing.ts';

const QUOTA = 12;
const READS = 20;

let low: CommerceSandbox;
let shared: CommerceSandbox;
let roomy: CommerceSandbox;

beforeAll(async () => {
  [low, shared, roomy] = await Promise.all([
    startCommerceSandbox({ organizationId: 'org-low', entitlements: 30 }),
    startCommerceSandbox({ organizationId: 'org-shared', entitlements: 30 }),
    startCommerceSandbox({ organizationId: 'org-roomy', entitlements: 30 }),
  ]);
  for (const sandbox of [low, shared]) {
    const set = await probeSandbox(sandbox).control('POST', '/quotas', { quotas: [{ name: 'apiRequests', limit: QUOTA, period: 'MINUTE' }] });
    expect(set.status).toBe(200);
  }
});
afterAll(async () => {
  await Promise.all([low, shared, roomy].map((sandbox) => sandbox?.stop()));
});

const clientFor = (sandbox: CommerceSandbox): CommerceClient =>
  createCommerceClient({ baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, minRetryDelayMs: 5, maxRetryDelayMs: 50 });

const ids = Array.from({ length: READS }, (_, index) => `ent-${String(index + 1).padStart(6, '0')}`);

/** Reads the first `count` entitlements four at a time, as a page's lookups would. */
async function readAll(client: CommerceClient, orgId: string, count = READS): Promise<string[]> {
  const read: string[] = [];
  for (let start = 0; start < count; start += 4) {
    const batch = await Promise.all(ids.slice(start, Math.min(count, start + 4)).map((id) => client.entitlements.get(orgId, id)));
    read.push(...batch.map((entitlement) => entitlement.id));
  }
  return read;
}

/**
 * The quotas' windows are the sandbox's real minutes. A run that began in a minute's last seconds could
 * see the window turn before it reached the quota, so it waits, if need be, for a minute with 20 s left.
 */
async function startEarlyInAMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

const quotasOf = async (sandbox: CommerceSandbox) => (await probeSandbox(sandbox).control('GET', '/quotas')).json[sandbox.organizationId] as { refused: number; quotas: { used: number; limit: number }[] };

describe('commerce client: pacing inside the organization quotas', () => {
  it('finishes every read of an organization over its quota later, refused never; a refusal caused by another worker is waited out; a roomy organization is never held', { timeout: 180_000 }, async () => {
    await startEarlyInAMinute();
    const otherWorker = probeSandbox(shared);
    const sharedClient = clientFor(shared);
    const [lowRead, sharedRead, roomyRead] = await Promise.all([
      readAll(clientFor(low), low.organizationId),
      (async () => {
        // The first read makes the pacer read the snapshot; then another worker takes half the minute's quota.
        const first = await sharedClient.entitlements.get(shared.organizationId, ids[0]!);
        for (let call = 0; call < QUOTA / 2; call++) expect((await otherWorker.api(`/org/${shared.organizationId}/buyer`)).status).toBe(200);
        // 1 + 11 reads: 5 fit this minute after the other worker's 6, the rest the next minute.
        const rest = await readAll(sharedClient, shared.organizationId, QUOTA - 1);
        return [first.id, ...rest];
      })(),
      readAll(clientFor(roomy), roomy.organizationId),
    ]);

    expect(lowRead).toEqual(ids);
    expect(roomyRead).toEqual(ids);
    expect(sharedRead).toEqual([ids[0], ...ids.slice(0, QUOTA - 1)]);

    // Low quota: held until the next minute, and not one call refused.
    expect((await quotasOf(low)).refused).toBe(0);
    expect(quotaView(low.apiUrl, low.organizationId)!.waits).toBeGreaterThan(0);
    // Shared quota: what the other worker took surfaced as refusals, each waited out, and every record read.
    const sharedView = quotaView(shared.apiUrl, shared.organizationId)!;
    expect((await quotasOf(shared)).refused).toBe(sharedView.refused);
    expect(sharedView.refused).toBeGreaterThan(0);
    // Roomy: its own pacer, never held by the others.
    expect(quotaView(roomy.apiUrl, roomy.organizationId)).toMatchObject({ waits: 0, refused: 0, quotas: [{ name: 'apiRequests', limit: 10_000_000, period: 'HOUR' }] });
  });
});
