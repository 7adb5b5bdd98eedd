// A no-op costs nothing on either side (issue #29), end to end for each CRM: real Temporal, real
// PostgreSQL, the production worker and look-back, the commerce sandbox and the CRM's. After a backfill
// the CRM ids written back moved the records' lastUpdateTime (Salesforce takes them on offers and on
// entitlements, HubSpot and Dynamics on offers); the next run pages the windows and nothing else: no
// entitlement terms, no CRM call. When another party then changes one entitlement, that one alone has
// its terms read and is written. (HubSpot and Dynamics take no ids back onto entitlements, so their
// terms were never re-read; for them the case guards that the known records stay known and a change
// still goes through.)
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../mappings/types.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement'];
const TERMS = 'GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm';

describe.each(CRMS_UNDER_TEST)('a no-op run after the write-backs, commerce sandbox -> %s sandbox (real Temporal, real PostgreSQL)', (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  const taskQueue = `noop-${kind}-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 300, seed: 29 });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: 100, entities: ENTITIES })).id;
    worker = await startProductionWorker(database, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  const runSync = (): Promise<SyncProgress> =>
    new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `noop-${connectionId}-${Date.now()}`, args: [{ connectionId }] });
  const commerceCalls = async () => ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> }).operations;
  const resetCalls = async () => {
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });
    await sandboxes.crm.resetCalls();
  };

  it('pages the windows and nothing else, on either side; then one entitlement changed by another party is read and written alone', async () => {
    const backfill = await runSync();
    expect(backfill.finished).toBe(true);
    expect(backfill.entities.entitlement?.created).toBeGreaterThan(0);
    expect(backfill.totals.writeBacks).toBeGreaterThan(0);

    await resetCalls();
    const noop = await runSync();
    expect(noop.totals.created + noop.totals.updated + noop.totals.writeBacks).toBe(0);
    // The records written back are in the windows again (their lastUpdateTime moved) and known.
    expect(noop.totals.records).toBeGreaterThan(0);
    const quiet = await commerceCalls();
    expect(quiet[TERMS] ?? 0).toBe(0);
    const others = Object.keys(quiet).filter((operation) => operation !== 'POST /oauth2/token' && !operation.endsWith('/query'));
    expect(others).toEqual([]);
    expect((await sandboxes.crm.calls()).total).toBe(0);

    const before = await sandboxes.crm.keyed('entitlement');
    const response = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: ['entitlementStatus'] }) });
    const changed = ((await response.json()) as { changes: { id: string }[] }).changes[0]!.id;
    expect(before.get(changed), changed).toBeDefined();

    await resetCalls();
    const after = await runSync();
    expect(after.entities.entitlement?.updated).toBe(1);
    expect(after.totals.created + after.totals.updated).toBe(1);
    expect((await commerceCalls())[TERMS]).toBe(1);
    const now = await sandboxes.crm.keyed('entitlement');
    expect(JSON.stringify(now.get(changed)!.fields)).not.toBe(JSON.stringify(before.get(changed)!.fields));
    expect(sandboxes.crm.writeCalls(await sandboxes.crm.calls())).toBeGreaterThan(0);
  }, 300_000); // three runs of a sync on a shared machine
});
