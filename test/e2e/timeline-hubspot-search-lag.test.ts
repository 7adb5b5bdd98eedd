// The timeline on HubSpot exactly once through the production worker, real Temporal and real PostgreSQL,
// while HubSpot's search trails writes (the sandbox's search lag on, as the real index lags by seconds):
// the timeline's backfill makes its tasks, then HubSpot refuses their associations (500s until the
// transport gives up), so the attempt fails after the creates and before any record link is kept;
// Temporal retries it within the lag, when a search of commerce_event_id would not find the tasks yet.
// Every event of the feed that the backfill writes is one task, associated once.
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { backfillWorkflowId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

const DAY_MS = 86_400_000;
/**
 * Longer than the failing attempt lasts (the transport's four waits after 500s, 7.5 s): the retry comes
 * while search does not show the tasks yet. Within the connector's bound on the lag (20 s).
 */
const LAG_MS = 15_000;

let database: TestDatabase;
let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
let connection: Connection;
let worker: Awaited<ReturnType<typeof startProductionWorker>> | undefined;
const taskQueue = `timeline-search-lag-${Date.now()}`;

beforeAll(async () => {
  database = await createTestDatabase();
  sandboxes = await startSandboxesFor('hubspot', { entitlements: 12, seed: 2727, baseTime: new Date(Math.floor((Date.now() - 15 * DAY_MS) / 1000) * 1000).toISOString() });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  worker = await startProductionWorker(database, { taskQueue });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await connection?.close();
  await sandboxes?.stop();
  await database?.drop();
});

/** Polls `probe` until it holds; fails after `withinMs`. */
async function until(what: string, probe: () => Promise<boolean>, withinMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > withinMs) throw new Error(`${what}: not so after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('timeline on HubSpot while search trails writes (real Temporal, real PostgreSQL)', () => {
  it('an attempt retried after its creates leaves one task per event', { timeout: 120_000 }, async () => {
    const hubspot = sandboxes.crm.hubspot!;
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'offer', 'entitlement', 'referral', 'timeline'] });
    const client = new Client({ connection });
    const backfill = (only: string[], suffix: string) => {
      const request = { connectionId, entities: only };
      return client.workflow.start(WORKFLOW_TYPES.backfill, { taskQueue, workflowId: `${backfillWorkflowId(request as never)}-${suffix}`, args: [{ ...request, activityTimeouts: { heartbeat: '10 seconds' } }] });
    };
    expect((await (await backfill(['buyer', 'offer', 'entitlement', 'referral'], 'records')).result()).finished).toBe(true);

    await hubspotControl(hubspot, 'POST', '/limits', { searchLagMs: LAG_MS });
    await hubspotControl(hubspot, 'POST', '/faults', { endpoint: 'associations.batch.default', rate500: 1 });
    const handle = await backfill(['timeline'], 'timeline');
    const tasks = async () => ((await hubspotControl(hubspot, 'GET', '/records/tasks')) as { id: string; properties: Record<string, string> }[]).filter((task) => task.properties.commerce_event_id);
    // The first attempt made its tasks, then failed on their associations: HubSpot is well again.
    await until('an attempt failed after making tasks', async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending.some((activity) => Number(activity.attempt ?? 1) > 1) && (await tasks()).length > 0;
    });
    await hubspotControl(hubspot, 'DELETE', '/faults');
    const result = await handle.result();
    expect(result.finished).toBe(true);
    expect(result.totals.failed).toBe(0);

    const made = await tasks();
    const byEvent = new Map<string, string[]>();
    for (const task of made) byEvent.set(task.properties.commerce_event_id!, [...(byEvent.get(task.properties.commerce_event_id!) ?? []), task.id]);
    expect(made.length, 'the backfill wrote events').toBeGreaterThan(0);
    expect([...byEvent].filter(([, ids]) => ids.length > 1), 'events with more than one task').toEqual([]);
    const links = ((await hubspotControl(hubspot, 'GET', '/associations')) as { fromType: string; fromId: string }[]).filter((link) => link.fromType === 'tasks');
    for (const task of made) expect(links.filter((link) => link.fromId === task.id).length, task.properties.commerce_event_id).toBe(1);
    // Every task is linked to its event in PostgreSQL, once.
    const { rows } = await database.pool.query("SELECT source_id, crm_id FROM record_links WHERE connection_id = $1 AND entity = 'timeline'", [connectionId]);
    expect(new Map(rows.map((row) => [row.source_id, row.crm_id]))).toEqual(new Map([...byEvent].map(([event, [id]]) => [event, id])));
  });
});
