// The co-sell workflow continues as new when Temporal suggests it in its stage loop too (issue #24 defect
// 9), carrying the stage pass's window, side and cursor and the totals so far, so a run over many stage
// pages never grows one history without end. A Temporal dev server of its own suggests continuing after 12
// events (`limit.historyCount.suggestContinueAsNew`); 210 referrals moved make a stage pass of two pages.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../infra/temporal-dev-server.ts';
import { createSyncWorker } from '../../worker.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, quietLogger, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { commerceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';

/** More than one stage page (the co-sell pass reads 200 records to a page). */
const SHARED = 210;

describe('co-sell continues as new inside its stage loop (Salesforce, a Temporal server suggesting it early)', () => {
  let server: TemporalDevServer;
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: { stop(): Promise<void> };
  let client: Client;
  let connectionId: string;
  const taskQueue = `cosell-can-${Date.now()}`;

  beforeAll(async () => {
    server = await startTemporalDevServer({ port: await freePort(), logger: quietLogger, cliPath: process.env.TEMPORAL_CLI_PATH, dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 12 } });
    database = await createTestDatabase();
    // No partner review: the test moves referrals' stages on the commerce side right after they are submitted.
    sandboxes = await startSandboxesFor('salesforce', { entitlements: 30, seed: 29, partnerReviewSeconds: 0 });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer'] })).id;
    const connection = await NativeConnection.connect({ address: server.address });
    const created = await createSyncWorker({ connection, namespace: 'default', taskQueue, pool: database.pool, secretBox: TEST_SECRET_BOX });
    const running = created.run();
    worker = {
      async stop() {
        created.shutdown();
        await running;
        await connection.close();
      },
    };
    client = new Client({ connection: await Connection.connect({ address: server.address }) });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
    await server?.stop();
  });

  const run = (type: string) => client.workflow.execute(type, { taskQueue, workflowId: `cosell-can-${type}-${Date.now()}`, args: [{ connectionId }], workflowExecutionTimeout: '3 minutes' }) as Promise<any>;
  /** Every run of one workflow, first to last (following each run's continued-as-new event), with the input each started with. */
  async function runsOf(workflowId: string, firstRunId: string) {
    const runs: { input: any; events: number }[] = [];
    for (let runId: string | undefined = firstRunId; runId; ) {
      const events: any[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events!;
      const payload = events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      runs.push({ input: JSON.parse(Buffer.from(payload.data!).toString('utf8')), events: events.length });
      runId = events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    return runs;
  }

  it('carries the stage pass across runs: every stage move lands once, and the last run returns the totals of all', async () => {
    await run(WORKFLOW_TYPES.incrementalSync);
    const [account] = (await sandboxes.crm.accounts());
    const ids = await sandboxes.crm.createOpportunities(Array.from({ length: SHARED }, (_, index) => ({ name: `Continued ${index}`, accountId: account!.id, stage: 'Prospecting', closeDate: '2027-05-31', share: true, partner: 'Marketplace C' })));
    await run(WORKFLOW_TYPES.cosell);
    const referrals = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => ids.includes(referral.crmAOpportunityId));
    expect(referrals).toHaveLength(SHARED);

    // The partner moves every referral: the stage pass reads them in two pages and writes each Opportunity.
    const commerce = createCommerceClient({ baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, clientSecret: sandboxes.commerce.clientSecret });
    for (let start = 0; start < referrals.length; start += 10) {
      await Promise.all(referrals.slice(start, start + 10).map((referral) => commerce.referrals.update(sandboxes.commerce.organizationId, referral.id, { stage: 'Qualified' })));
    }
    const workflowId = `cosell-can-stages-${Date.now()}`;
    const handle = await client.workflow.start(WORKFLOW_TYPES.cosell, { taskQueue, workflowId, args: [{ connectionId }], workflowExecutionTimeout: '3 minutes' });
    const totals = await handle.result();

    const runs = await runsOf(workflowId, handle.firstExecutionRunId);
    expect(runs.length, `runs of ${runs.map((one) => one.events).join(', ')} events`).toBeGreaterThan(1);
    // A run began inside the stage pass, where the one before it stood.
    expect(runs.some((one) => one.input.resume?.plan?.stagesAt?.side)).toBe(true);
    expect((totals as any).stages.toCrm).toBe(SHARED);
    const opportunities = (await sandboxes.crm.opportunities()).filter((row) => ids.includes(row.id));
    expect(opportunities.map((row) => row.stage)).toEqual(Array(SHARED).fill('Qualification'));
    // One row for the whole chain, written at its end: it starts when the first run did, as Temporal says.
    const { rows } = await database.pool.query(`SELECT started_at, finished_at FROM sync_runs WHERE id LIKE $1`, [`${workflowId}/%`]);
    expect(rows).toHaveLength(1);
    const first = await client.workflow.getHandle(workflowId, handle.firstExecutionRunId).describe();
    expect((rows[0].started_at as Date).getTime()).toBe(first.startTime.getTime());
    expect((rows[0].finished_at as Date).getTime()).toBeGreaterThan(first.startTime.getTime());
  }, 300_000);
});
