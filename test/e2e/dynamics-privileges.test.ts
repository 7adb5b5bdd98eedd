// Issue #22 item 11 end to end: a Dataverse environment whose application user's security role lacks
// prvWriteccs_marketplaceentitlement. `crm-sync setup` and `crm-sync doctor`, as processes, name the
// missing privilege and the role to give; the production worker's sync (real Temporal, real PostgreSQL)
// creates entitlements (Create is granted) and, when they change, keeps each refused update as a dead
// letter with Dataverse's own 0x80040220 message while everything else syncs.
import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

const MISSING =
  "the application user lacks prvWriteccs_marketplaceentitlement on the ccs_marketplaceentitlement table, so Dataverse refuses the sync's ccs_marketplaceentitlement writes: give it a security role with Create, Read, Write, Append and Append To on ccs_marketplaceentitlement at Organization level (Power Platform admin center > Environments > this environment > Settings > Users + permissions > Application users > the app > Edit security roles), then run crm-sync doctor again";

describe('a Dataverse application user whose role lacks a privilege (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connection: NativeConnection;
  let connectionId: string;
  let env: NodeJS.ProcessEnv;
  const taskQueue = `dynamics-privileges-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('dynamics', { entitlements: 30, seed: 23 }, { sandbox: { missingPrivileges: ['prvWriteccs_marketplaceentitlement'] } });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { name: 'acme-dataverse', pageSize: 100 })).id;
    worker = await startProductionWorker(database, { taskQueue });
    connection = worker.connection;
    // The secret box the harness saved the connection with (test/support/sync-harness.ts).
    env = cliEnv({ databaseUrl: database.url, secretKey: Buffer.alloc(32, 5).toString('base64'), taskQueue, commerceClientSecret: sandboxes.commerce.clientSecret, salesforceClientSecret: '' });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  const failed = (promise: Promise<{ stdout: string }>) => promise.then(() => undefined, (error: { code: number; stdout: string }) => error);

  it('setup and doctor name the missing privilege and the role to give', async () => {
    const setup = await failed(runCli(env, ['setup', 'acme-dataverse', '--json']));
    expect(setup?.code).toBe(4);
    expect(JSON.parse(setup!.stdout).problems).toEqual([MISSING]);

    const doctor = await failed(runCli(env, ['doctor', '--json']));
    expect(doctor?.code).toBe(4);
    const checks = JSON.parse(doctor!.stdout).checks as { check: string; ok: boolean; message: string }[];
    expect(checks.filter((check) => check.check === 'acme-dataverse: Dynamics 365 privileges')).toEqual([expect.objectContaining({ ok: false, message: MISSING })]);
    expect(checks.find((check) => check.check === 'acme-dataverse: credentials and mapping')?.ok).toBe(true);
  }, 120_000);

  it("a write the role refuses becomes a dead letter with Dataverse's message; the rest sync", async () => {
    const runSync = () => new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `sync-${connectionId}-${Date.now()}`, args: [{ connectionId }] });
    await runSync();
    const letters = createDeadLetterStore(database.pool);
    expect(await letters.listOpen(connectionId, 'entitlement')).toEqual([]);
    const created = await sandboxes.crm.keyed('entitlement');
    expect(created.size).toBeGreaterThan(0);

    // Entitlements change in commerce: their rows exist, so the sync updates them, which needs Write.
    const changed = (await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 3, kinds: ['entitlementStatus'] }) })).json()) as { changes?: unknown[] };
    expect(changed).toBeTruthy();
    await runSync();
    const refused = await letters.listOpen(connectionId, 'entitlement');
    expect(refused.length).toBeGreaterThan(0);
    for (const letter of refused) {
      expect(letter.reason).toMatch(/^0x80040220: Principal user \(Id=[0-9a-f-]{36}, type=8, roleCount=1, privilegeCount=\d+, accessMode=0\), is missing prvWriteccs_marketplaceentitlement privilege \(Id=[0-9a-f-]{36}\) on OTC=\d+ for entity 'ccs_marketplaceentitlement'/);
    }
    // Nothing else was refused.
    for (const entity of ['buyer', 'contact', 'offer']) expect(await letters.listOpen(connectionId, entity)).toEqual([]);
  }, 180_000);
});
