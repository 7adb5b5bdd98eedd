// A private offer's draft update across a crash (issue #28 section 2): a Salesforce Opportunity's held
// draft, its quantity changed, and the worker process SIGKILLed while the draft update is in flight (the
// commerce side answers it slowly); a new worker takes the run over. The offer is updated, and there is
// still exactly one offer for the Opportunity: an update never creates, and the step is read-then-act.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection as TemporalConnection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, salesforceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

const idOf = (result: unknown) => (result as { id: string }).id;
const DRAFT_OPERATION = 'POST /org/{orgId}/draftOffer';

describe('a private offer draft update across a worker crash', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let temporal: TemporalConnection;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('salesforce', { entitlements: 8, seed: 71 });
    temporal = await TemporalConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await temporal?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('SIGKILL during the update: the draft is updated, and there is one offer', async () => {
    const made = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer'] });
    // Held until approved, so the draft stays a draft that takes updates.
    const rule = { field: 'Offer_Approval_Status__c', approvedValue: 'Approved' };
    const settings = made.settings as ConnectionSettings;
    await createConnectionStore(database.pool, TEST_SECRET_BOX).update(made.id, { settings: { ...settings, cosell: { ...settings.cosell, offerApproval: rule } } });
    const taskQueue = `offer-kill-${Date.now()}`;
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    const client = new Client({ connection: temporal });
    const start = (type: string, args: Record<string, unknown> = {}) => client.workflow.start(type, { taskQueue, workflowId: `offer-kill-${type}-${Date.now()}`, args: [{ connectionId: made.id, ...args }] });
    await (await start(WORKFLOW_TYPES.incrementalSync)).result();

    // One catalogue product (a COMMIT dimension) priced in the standard price book, and an Opportunity with it.
    const [product] = (await commerceDump(sandboxes.commerce, 'products')).filter((row) => row.status === 'PUBLIC' && row.info?.dimensions?.some((d: any) => d.type === 'COMMIT' && d.prices.some((p: any) => p.currency === 'USD')));
    const commitKey = product.info.dimensions.find((d: any) => d.type === 'COMMIT').key;
    const { conn } = await clientCredentialsConnection(sandboxes.crm.salesforce!);
    const standard = (await conn.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true')).records[0]!.Id;
    const product2 = idOf(await conn.sobject('Product2').create({ Name: 'Seats', IsActive: true, Commerce_Product_Id__c: product.id, Commerce_Dimension_Key__c: commitKey, Commerce_Price_Key__c: `${product.id}|${commitKey}` }));
    const entry = idOf(await conn.sobject('PricebookEntry').create({ Pricebook2Id: standard, Product2Id: product2, UnitPrice: 40, IsActive: true }));
    const account = (await salesforceDump(sandboxes.crm.salesforce!, 'Account')).find((row) => row.Commerce_Buyer_Id__c)!;
    const opportunityId = idOf(await conn.sobject('Opportunity').create({ Name: 'Crash-proof deal', AccountId: account.Id, StageName: 'Prospecting', CloseDate: '2027-03-31', Private_Offer_Requested__c: true }));
    const line = idOf(await conn.sobject('OpportunityLineItem').create({ OpportunityId: opportunityId, PricebookEntryId: entry, Quantity: 10, UnitPrice: 38 }));
    await (await start(WORKFLOW_TYPES.cosell)).result();
    const offersOf = async () => (await commerceDump(sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.crmAOpportunityId === opportunityId);
    const [draft] = await offersOf();
    expect(draft).toMatchObject({ subStatus: 'DRAFT', info: { commits: [{ key: commitKey, quantity: 10, price: 38 }] } });

    // The update answers after three seconds: the kill lands while it is in flight.
    const calls = async () => ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> }).operations[DRAFT_OPERATION] ?? 0;
    const before = await calls();
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: DRAFT_OPERATION, latencyMs: 3000 }) });
    await conn.sobject('OpportunityLineItem').update({ Id: line, Quantity: 60 });
    const handle = await start(WORKFLOW_TYPES.cosell, { activityTimeouts: { heartbeat: '3 seconds' } });
    for (let tries = 0; (await calls()) === before; tries += 1) {
      expect(tries).toBeLessThan(400);
      await sleep(50);
    }
    const victim = workers.at(-1)!;
    victim.kill('SIGKILL');
    await waitForExit(victim);
    workers.push(await startWorkerProcess('w1', env));

    await handle.result();
    const offers = await offersOf();
    expect(offers.map((offer) => offer.id)).toEqual([draft.id]);
    expect(offers[0]).toMatchObject({ subStatus: 'DRAFT', info: { commits: [{ key: commitKey, quantity: 60, price: 38 }] } });
    expect((await conn.sobject('Opportunity').retrieve(opportunityId)) as Record<string, unknown>).toMatchObject({ Commerce_Offer_Id__c: draft.id });
  }, 90_000);
});
