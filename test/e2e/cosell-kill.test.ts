// Co-sell exactly once across a crash, for each CRM: the worker process is SIGKILLed while referral
// creates are in flight (each batchCreate answered late, and the kill lands as soon as the commerce
// side has received one, so its referrals are made after the worker died and no one hears the answer).
// A new worker takes the run over: it waits out the killed attempt's claim, finds the referrals the
// killed worker's creates made and adopts them, and creates only the rest: one referral per opportunity
// (deal), none twice, each id written back.
//
// `npm test` runs the reduced form: 250 opportunities (two pages of the run: the kill lands among the
// first page's creates, the second page is the new worker's), one kill. `npm run chaos`
// (CRM_SYNC_CHAOS=full) runs 300 and kills each new worker again after a random 0.5-4 s, four more
// times (CRM_SYNC_CHAOS_SEED replays them). Both forms give the connection a 3 s commerce request
// timeout: the claim a killed worker held is waited out 11 s (2 timeouts + 5 s margin,
// activities/claimed-creates.ts) instead of the default 65 s; the waiting is the same code either way.
// The three CRMs run at the same time (each its own sandboxes, database, worker processes and task queue).
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
/** Opportunities shared: more than the run's page of 200, so the new worker has a page of its own to create. */
const OPPORTUNITIES = CHAOS_FULL ? 300 : 250;
const CREATE = 'POST /org/{orgId}/cosell/referral/batchCreate';
/** How late each create is answered: long enough for the kill to land first, well within the request timeout. */
const CREATE_LATENCY_MS = 1500;
const REQUEST_TIMEOUT_MS = 3000;

describe.each(CRMS_UNDER_TEST)('co-sell from %s across a crash', { concurrent: true }, (kind) => {
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

  it(`${OPPORTUNITIES} shared opportunities become exactly ${OPPORTUNITIES} referrals although the worker is killed while creating them`, async () => {
    const { crm } = sandboxes;
    const { id: connectionId } = await createCrmConnection(database, sandboxes.commerce, crm, { entities: ['buyer'], commerceSettings: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
    const taskQueue = `cosell-kill-${kind}-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    const client = new Client({ connection });
    await client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `cosell-kill-accounts-${kind}-${Date.now()}`, args: [{ connectionId }] });
    const accounts = await crm.accounts();
    const made = await crm.createOpportunities(
      Array.from({ length: OPPORTUNITIES }, (_, index) => ({ name: `kill deal ${index}`, accountId: accounts[index % accounts.length]!.id, stage: crm.openStage, closeDate: '2027-06-30', share: true, partner: 'Marketplace C' })),
    );
    const ids = new Set(made);
    const ours = async () => (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.has(referral[crm.opportunityIdField]));
    const createCalls = async () => ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> }).operations[CREATE] ?? 0;

    // Each create is answered 1.5 s late (the commerce side makes the referrals after that, whoever still listens).
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: CREATE, latencyMs: CREATE_LATENCY_MS }) });
    const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue, workflowId: `cosell-kill-${kind}-${Date.now()}`, args: [{ connectionId, activityTimeouts: { heartbeat: '5 seconds' } }] });
    // The kill lands once the commerce side has received a create: that create is in flight.
    for (let tries = 0; (await createCalls()) === 0; tries += 1) {
      expect(tries, 'no create reached the commerce side').toBeLessThan(2400);
      await sleep(25);
    }
    const victim = workers.at(-1)!;
    victim.kill('SIGKILL');
    await waitForExit(victim);
    // What the killed worker recorded as made before it died (its answered creates): never counted again.
    const { rows: recorded } = await database.pool.query(`SELECT count(*)::int AS n FROM outbound_intents WHERE connection_id = $1 AND state = 'created'`, [connectionId]);
    expect(recorded[0].n).toBeLessThan(OPPORTUNITIES);
    // The new worker starts while the killed attempt's heartbeat times out and its claim is waited out.
    workers.push(await startWorkerProcess('w1', env));
    for (const [index, afterMs] of LATER_KILLS_AFTER_MS.entries()) {
      await sleep(afterMs);
      const again = workers.at(-1)!;
      again.kill('SIGKILL');
      await waitForExit(again);
      workers.push(await startWorkerProcess(`w${index + 2}`, env));
    }

    const totals = await handle.result();
    if (!CHAOS_FULL) {
      // The creates in flight at the kill were made by the commerce side and found by the new worker, not made
      // again; what the killed worker never sent (at least the second page) the new worker created.
      expect(totals.adopted, 'no referral of the killed worker was found and adopted').toBeGreaterThan(0);
      expect(totals.created, 'the new worker created nothing').toBeGreaterThan(0);
      expect(totals.created + totals.adopted).toBeLessThanOrEqual(OPPORTUNITIES - recorded[0].n);
    }
    const referrals = await ours();
    expect(referrals).toHaveLength(OPPORTUNITIES);
    expect(new Set(referrals.map((referral) => referral[crm.opportunityIdField])).size).toBe(OPPORTUNITIES);
    const referralOf = new Map(referrals.map((referral) => [referral[crm.opportunityIdField], referral.id]));
    const opportunities = (await crm.opportunities()).filter((row) => ids.has(row.id));
    expect(opportunities).toHaveLength(OPPORTUNITIES);
    for (const opportunity of opportunities) expect(opportunity.referralId, opportunity.id).toBe(referralOf.get(opportunity.id));
  }, CHAOS_FULL ? 600_000 : 240_000);
});
