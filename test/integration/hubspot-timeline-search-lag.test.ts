// The timeline on HubSpot exactly once although HubSpot's search trails writes (issue #27 section 1;
// docs/crm-wire-behaviour.md, "Search lags writes"): with the sandbox's search lag on, a task is found by
// a search of its commerce_event_id only seconds after it is made, which is the window where a retried
// attempt would make a second one. Each case ends with exactly one task per event, associated once to its
// deal: a create whose answer is lost (the sandbox carries it out and cuts the answer off), the same
// connector writing the events again at once (an attempt that failed after the create, retried on this
// worker), and a fresh connector in a retried Temporal attempt (the worker that made them was SIGKILLed).
// A first attempt never waits for the index. The creates' own path keeps what the writer did for them: a
// batch refused for one task is split until it names it, and a 429 (not carried out) is simply sent again.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpsertItem, UpsertResult } from '../../crm/connector.ts';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import type { TimelineEvent } from '../../mappings/canonical/timeline.ts';
import { timelineToHubSpotTask } from '../../mappings/hubspot/timeline.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

/** The sandbox's index lag, and the connector's bound on it (the production bound is 20 s). */
const LAG_MS = 1_500;
const BOUND_MS = 2_500;
const EVENTS = 6;

let sandbox: HubSpotSandbox;
let dealId: string;
const connector = (transport: { wait?: (ms: number) => Promise<void> } = {}) =>
  createHubSpotConnector({ baseUrl: sandbox.baseUrl, auth: 'private-app', entitlementObject: 'marketplace_entitlement' }, { crmAccessToken: sandbox.accessToken }, {}, { ...transport, createOnce: { lagBoundMs: BOUND_MS } });

/** Six notification events on the deal, with event ids no query may take apart. */
function items(prefix: string): UpsertItem[] {
  return Array.from({ length: EVENTS }, (_, n) => {
    const eventID = `${prefix} "évt" \\ 'n°${n}' 🚀`;
    const event = {
      eventID,
      id: eventID,
      entityType: 'OFFER',
      entityID: 'o1',
      title: `Event ${n}`,
      message: `What happened (${n})`,
      isActionItem: false,
      timestamp: `2026-01-0${n + 1}T10:00:00.000Z`,
      lastUpdateTime: `2026-01-0${n + 1}T10:00:00.000Z`,
      timeline: { parentEntity: 'offer', parentId: 'o1', open: false, parentCrmId: dealId },
    } as unknown as TimelineEvent;
    const mapped = timelineToHubSpotTask.map(event, undefined);
    if (!mapped.ok) throw new Error(mapped.reason);
    return { sourceId: eventID, externalIdField: mapped.record.externalIdField, externalId: mapped.record.externalId, fields: mapped.record.fields };
  });
}

/** Every task the account holds for these events, by event id, as the sandbox stores them. */
async function tasksByEvent(batch: UpsertItem[]): Promise<Map<string, string[]>> {
  const wanted = new Set(batch.map((item) => item.externalId));
  const tasks = (await control(sandbox, 'GET', '/records/tasks')) as { id: string; properties: Record<string, string> }[];
  const byEvent = new Map<string, string[]>();
  for (const task of tasks) {
    const key = task.properties.commerce_event_id!;
    if (wanted.has(key)) byEvent.set(key, [...(byEvent.get(key) ?? []), task.id]);
  }
  return byEvent;
}

/** Exactly one task per event, each the one the write answered, each associated once, to the deal. */
async function expectOneTaskEach(batch: UpsertItem[], results: UpsertResult[]): Promise<void> {
  expect(results.filter((result) => !result.ok)).toEqual([]);
  const byEvent = await tasksByEvent(batch);
  expect(batch.map((item) => byEvent.get(item.externalId)?.length ?? 0)).toEqual(Array(batch.length).fill(1));
  expect(batch.map((item) => byEvent.get(item.externalId)![0])).toEqual(results.map((result) => result.ok && result.crmId));
  const links = (await control(sandbox, 'GET', '/associations')) as { fromType: string; fromId: string; toType: string; toId: string }[];
  for (const [, [taskId]] of byEvent) expect(links.filter((link) => link.fromType === 'tasks' && link.fromId === taskId).map((link) => `${link.toType}/${link.toId}`)).toEqual([`deals/${dealId}`]);
}

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ searchPerSecond: 1000, tenSecondlyLimit: 1_000_000 });
  const report = await setUpHubSpot({ baseUrl: sandbox.baseUrl, accessToken: sandbox.accessToken });
  expect(report.problems).toEqual([]);
  const [deal] = await connector().upsert('deals', [{ sourceId: 'o1', externalIdField: 'commerce_offer_id', externalId: 'o1', fields: { dealname: 'Offer 1', hubspot_owner_id: '71000001' } }]);
  dealId = (deal as { crmId: string }).crmId;
  await control(sandbox, 'POST', '/limits', { searchLagMs: LAG_MS });
}, 60_000);
afterAll(() => sandbox?.stop());

describe('HubSpot tasks exactly once while search trails writes', () => {
  it('a batch create whose answer is lost is not sent again blind: its tasks are found once the index shows them', async () => {
    const batch = items('lost');
    await control(sandbox, 'POST', '/faults', { endpoint: 'tasks.batch.create', truncatedRate: 1 });
    const results = await connector().upsert('tasks', batch).finally(() => control(sandbox, 'DELETE', '/faults'));
    await expectOneTaskEach(batch, results);
  });

  it('the same connector writing the events again at once (its attempt failed after the create) updates the tasks it made, without waiting', async () => {
    const crm = connector();
    const batch = items('again');
    const started = Date.now();
    const first = await crm.upsert('tasks', batch);
    expect(first.every((result) => result.ok && result.created)).toBe(true);
    const again = await crm.upsert('tasks', batch);
    // Neither a first write nor a write of what it made waits for the index.
    expect(Date.now() - started).toBeLessThan(LAG_MS);
    expect(again.map((result) => result.ok && !result.created && result.crmId)).toEqual(first.map((result) => result.ok && result.crmId));
    await expectOneTaskEach(batch, again);
  });

  it('a retried Temporal attempt on a fresh worker finds the tasks the killed attempt made, once the index shows them', async () => {
    const batch = items('retried');
    const inAttempt = (info: ConstructorParameters<typeof MockActivityEnvironment>[0]) => new MockActivityEnvironment(info).run(async (): Promise<UpsertResult[]> => connector().upsert('tasks', batch));
    const first = await inAttempt({ attempt: 1 });
    expect(first.every((result) => result.ok && result.created)).toBe(true);
    const retried = await inAttempt({ attempt: 2, currentAttemptScheduledTimestampMs: Date.now() });
    expect(retried.map((result) => result.ok && !result.created && result.crmId)).toEqual(first.map((result) => result.ok && result.crmId));
    await expectOneTaskEach(batch, retried);
  });

  it("a retried attempt on a worker whose clock runs a minute ahead of Temporal's still waits for the index before it makes anything", async () => {
    const batch = items('skewed');
    const inAttempt = (info: ConstructorParameters<typeof MockActivityEnvironment>[0]) => new MockActivityEnvironment(info).run(async (): Promise<UpsertResult[]> => connector().upsert('tasks', batch));
    const first = await inAttempt({ attempt: 1 });
    expect(first.every((result) => result.ok && result.created)).toBe(true);
    // Scheduled "a minute ago" by this worker's clock: the wait is measured from when this worker saw the attempt.
    const retried = await inAttempt({ attempt: 2, currentAttemptScheduledTimestampMs: Date.now() - 60_000 });
    expect(retried.map((result) => result.ok && !result.created && result.crmId)).toEqual(first.map((result) => result.ok && result.crmId));
    await expectOneTaskEach(batch, retried);
  });

  it('a batch HubSpot refuses for one task is split until it names that task; the others are made once', async () => {
    const batch = items('refused');
    const bad = { ...batch[2]!, fields: { ...batch[2]!.fields, hubspot_owner_id: 'not-an-owner' } };
    const results = await connector().upsert('tasks', [...batch.slice(0, 2), bad, ...batch.slice(3)]);
    expect(results.map((result) => result.ok)).toEqual([true, true, false, true, true, true]);
    expect(results[2]!.ok === false && results[2]!.error.message).toMatch(/hubspot_owner_id/);
    const good = [...batch.slice(0, 2), ...batch.slice(3)];
    await expectOneTaskEach(good, [...results.slice(0, 2), ...results.slice(3)]);
    expect((await tasksByEvent([bad])).size).toBe(0);
  });

  it('a create answered 429 (not carried out) is sent again by the transport, not looked for after the lag', async () => {
    const batch = items('throttled');
    await control(sandbox, 'POST', '/faults', { endpoint: 'tasks.batch.create', rate429: 0.5, seed: 27 });
    await control(sandbox, 'DELETE', '/calls');
    // The transport's waits after a 429 are skipped: this is about what is sent, not when.
    const results = await connector({ wait: async () => {} }).upsert('tasks', batch).finally(async () => {
      expect((await control(sandbox, 'GET', '/faults')).injected['429']).toBeGreaterThan(0);
      await control(sandbox, 'DELETE', '/faults');
    });
    await expectOneTaskEach(batch, results);
    // One search of the keys before the create, none after it: nothing was waited for or looked for.
    expect((await control(sandbox, 'GET', '/calls'))['tasks.search']).toBe(1);
  });
});
