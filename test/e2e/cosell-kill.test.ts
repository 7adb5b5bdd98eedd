// Co-sell exactly once across a crash: the worker process is SIGKILLed while referral creates are in
// flight (each batchCreate answered slowly), a new worker takes the run over, finds the referrals the
// killed one had created and creates only the rest: 300 Opportunities, 300 referrals, none twice.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump, createSandboxConnection, startSandboxes } from '../support/sync-harness.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

let database: TestDatabase;
let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
let connection: Connection;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  sandboxes = await startSandboxes({ entitlements: 40, seed: 61 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await connection?.close();
  await sandboxes?.stop();
  await database?.drop();
});

it('300 shared Opportunities become exactly 300 referrals although the worker is killed while creating them', async () => {
  const { id: connectionId } = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { entities: ['buyer'] });
  const taskQueue = `cosell-kill-${Date.now()}`;
  const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
  workers.push(await startWorkerProcess('w0', env));
  const client = new Client({ connection });
  await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `cosell-kill-accounts-${Date.now()}`, args: [{ connectionId }] });
  const accounts = (await salesforceDump(sandboxes.salesforce, 'Account')).filter((account) => account.Commerce_Buyer_Id__c);
  const { conn } = await clientCredentialsConnection(sandboxes.salesforce);
  const made = (await conn.sobject('Opportunity').create(
    Array.from({ length: 300 }, (_, index) => ({ Name: `kill deal ${index}`, AccountId: accounts[index % accounts.length]!.Id, StageName: 'Prospecting', CloseDate: '2027-06-30', Cosell_Share__c: true, Cosell_Partner__c: 'Marketplace C' })),
    { allOrNone: true, allowRecursive: true },
  )) as { id: string }[];
  const ids = new Set(made.map((result) => result.id));

  // Each create answers after a second and a half: the kill lands while one is in flight.
  await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: 'POST /org/{orgId}/cosell/referral/batchCreate', latencyMs: 1500 }) });
  const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue, workflowId: `cosell-kill-${Date.now()}`, args: [{ connectionId, activityTimeouts: { heartbeat: '3 seconds' } }] });
  for (let tries = 0; ; tries += 1) {
    const { rows } = await database.pool.query(`SELECT count(*)::int AS n FROM outbound_intents WHERE connection_id = $1 AND state = 'pending'`, [connectionId]);
    if (rows[0].n > 0) break;
    expect(tries).toBeLessThan(600);
    await sleep(50);
  }
  await sleep(2000);
  const victim = workers.at(-1)!;
  victim.kill('SIGKILL');
  await waitForExit(victim);
  const createdBeforeTheKill = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.has(referral.crmAOpportunityId)).length;
  expect(createdBeforeTheKill).toBeGreaterThan(0);
  expect(createdBeforeTheKill).toBeLessThan(300);
  workers.push(await startWorkerProcess('w1', env));

  const totals = await handle.result();
  expect(totals.created + totals.adopted).toBeGreaterThanOrEqual(300 - createdBeforeTheKill);
  const referrals = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.has(referral.crmAOpportunityId));
  expect(referrals).toHaveLength(300);
  expect(new Set(referrals.map((referral) => referral.crmAOpportunityId)).size).toBe(300);
  const referralOf = new Map(referrals.map((referral) => [referral.crmAOpportunityId, referral.id]));
  for (const opportunity of (await salesforceDump(sandboxes.salesforce, 'Opportunity')).filter((row) => ids.has(row.Id))) {
    expect(opportunity.Commerce_Referral_Id__c, opportunity.Id).toBe(referralOf.get(opportunity.Id));
  }
}, 240_000);
