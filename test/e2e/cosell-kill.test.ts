// Co-sell exactly once across a crash, for each CRM: the worker process is SIGKILLed while referral
// creates are in flight (each batchCreate answered slowly), a new worker takes the run over, finds the
// referrals the killed one had created and creates only the rest: 300 opportunities (deals), 300
// referrals, none twice. `npm run chaos` kills the worker five times, at random moments of the run
// (CRM_SYNC_CHAOS_SEED replays them).
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRandom } from '../../sandbox/commerce/prng.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { CHAOS_FULL, CHAOS_SEED } from '../support/chaos.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump } from '../support/sync-harness.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

/** After the first kill (while a create is in flight), the full run kills each new worker again after a random 0.5-4 s. */
const random = createRandom(CHAOS_SEED);
const LATER_KILLS_AFTER_MS = CHAOS_FULL ? Array.from({ length: 4 }, () => random.int(500, 4000)) : [];
if (CHAOS_FULL) console.info(`cosell-kill: later kills after ${LATER_KILLS_AFTER_MS.join(', ')} ms (CRM_SYNC_CHAOS_SEED=${CHAOS_SEED} replays them)`);

describe.each(CRMS_UNDER_TEST)('co-sell from %s across a crash', (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connection: Connection;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 40, seed: 61 });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('300 shared opportunities become exactly 300 referrals although the worker is killed while creating them', async () => {
    const { crm } = sandboxes;
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, crm, { entities: ['buyer'] });
    const taskQueue = `cosell-kill-${kind}-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    const client = new Client({ connection });
    await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `cosell-kill-accounts-${kind}-${Date.now()}`, args: [{ connectionId }] });
    const accounts = await crm.accounts();
    const made = await crm.createOpportunities(
      Array.from({ length: 300 }, (_, index) => ({ name: `kill deal ${index}`, accountId: accounts[index % accounts.length]!.id, stage: crm.openStage, closeDate: '2027-06-30', share: true, partner: 'Marketplace C' })),
    );
    const ids = new Set(made);
    const ours = async () => (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.has(referral[crm.opportunityIdField]));

    // Each create answers after a second and a half: the kill lands while one is in flight.
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: 'POST /org/{orgId}/cosell/referral/batchCreate', latencyMs: 1500 }) });
    const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue, workflowId: `cosell-kill-${kind}-${Date.now()}`, args: [{ connectionId, activityTimeouts: { heartbeat: '3 seconds' } }] });
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
    const createdBeforeTheKill = (await ours()).length;
    expect(createdBeforeTheKill).toBeGreaterThan(0);
    expect(createdBeforeTheKill).toBeLessThan(300);
    workers.push(await startWorkerProcess('w1', env));
    for (const [index, afterMs] of LATER_KILLS_AFTER_MS.entries()) {
      await sleep(afterMs);
      const again = workers.at(-1)!;
      again.kill('SIGKILL');
      await waitForExit(again);
      workers.push(await startWorkerProcess(`w${index + 2}`, env));
    }

    const totals = await handle.result();
    if (!CHAOS_FULL) expect(totals.created + totals.adopted).toBeGreaterThanOrEqual(300 - createdBeforeTheKill);
    const referrals = await ours();
    expect(referrals).toHaveLength(300);
    expect(new Set(referrals.map((referral) => referral[crm.opportunityIdField])).size).toBe(300);
    const referralOf = new Map(referrals.map((referral) => [referral[crm.opportunityIdField], referral.id]));
    for (const opportunity of (await crm.opportunities()).filter((row) => ids.has(row.id))) {
      expect(opportunity.referralId, opportunity.id).toBe(referralOf.get(opportunity.id));
    }
  }, CHAOS_FULL ? 600_000 : 240_000);
});
