// A poison product in the catalogue (issue #28 section 1; the standard: no single record stops a
// connection, a rejected record is kept with its reason and retried): one product whose price is no
// number. Real Temporal, real PostgreSQL, the production worker, the Salesforce sandbox (the catalogue's
// read is the same for every CRM). The run finishes and writes every other product; the bad one waits as
// a dead letter under its product id naming the field; retried alone it keeps that reason; once the
// service serves it readable, the retry closes its letter and the next run writes its dimension.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { setUpSalesforceCatalogue } from '../../crm/salesforce/catalogue-setup.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { startProductionWorker, TEST_SECRET_BOX } from '../support/sync-harness.ts';

const POISON_ID = 'prod-poison';
/** Each of the catalogue's flows on Salesforce reads the products, so each keeps the bad one. */
const FLOWS = ['catalogue', 'catalogue-standard-price', 'catalogue-price'] as const;
const productRow = (pricePerUnit: unknown) => ({
  id: POISON_ID,
  organizationID: 'org-1',
  name: 'Ledger "Pro"',
  partner: 'cloudA',
  status: 'PUBLIC',
  lastUpdateTime: '2026-01-15T00:00:00.000Z',
  info: { currencies: ['USD'], dimensions: [{ key: 'seats', name: 'Seats', unit: 'Users', type: 'COMMIT', prices: [{ currency: 'USD', pricePerUnit }] }] },
});

describe('a poison product in the catalogue (real Temporal, real PostgreSQL, Salesforce sandbox)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  const taskQueue = `catalogue-poison-${Date.now()}`;

  const inject = async (row: unknown) => {
    const response = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/products`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: [row] }) });
    expect(response.status, await response.text()).toBe(200);
  };
  const runSync = async (): Promise<SyncProgress> =>
    new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `catalogue-poison-${Date.now()}`, args: [{ connectionId }] });
  const letters = () => createDeadLetterStore(database.pool);
  const productKeys = async () => new Set((await salesforceDump(sandboxes.crm.salesforce!, 'Product2')).map((row) => row.Commerce_Price_Key__c));
  const retryAlone = async () => {
    const open = (await letters().listOpen(connectionId)).filter((letter) => letter.sourceId === POISON_ID);
    await letters().makeDue(connectionId, open.map((letter) => letter.id));
    const activities = createActivities({ pool: database.pool, secretBox: TEST_SECRET_BOX, workerIdentity: 'catalogue-poison' });
    for (const entity of FLOWS) await activities.retryDeadLetters({ connectionId, entity });
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('salesforce', { entitlements: 20, seed: 5 });
    const { conn } = await clientCredentialsConnection(sandboxes.crm.salesforce!);
    const made = await setUpSalesforceCatalogue(conn, (await conn.identity()).user_id, 'Commerce Marketplace Products');
    expect(made.problems).toEqual([]);
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['catalogue'] })).id;
    const connections = createConnectionStore(database.pool, TEST_SECRET_BOX);
    const saved = connectionSettingsSchema.parse((await connections.getWithSecrets(connectionId))!.settings);
    await connections.update(connectionId, { settings: connectionSettingsSchema.parse({ ...saved, crm: { ...saved.crm, catalogueIds: { priceBookId: made.priceBookId!, standardPriceBookId: made.standardPriceBookId! } } }) });
    worker = await startProductionWorker(database, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it('writes every other product, keeps the bad one with its reason through a retry, and writes it once it reads', async () => {
    await inject(productRow('ten'));
    const products = ((await (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/products`)).json()) as any[]).filter((product) => product.id !== POISON_ID);
    const goodKeys = products.flatMap((product) => product.info.dimensions.map((dimension: any) => `${product.id}|${dimension.key}`));

    const run = await runSync();
    expect(run.finished).toBe(true);
    expect([...(await productKeys())].sort()).toEqual([...goodKeys].sort());
    const open = await letters().listOpen(connectionId);
    expect(open.map((letter) => [letter.entity, letter.sourceId]).sort()).toEqual(FLOWS.map((flow) => [flow, POISON_ID]).sort());
    for (const letter of open) expect(letter.reason, letter.entity).toMatch(/pricePerUnit/);

    // Retried alone while still bad: refused again with the same field named, not "no longer there".
    await retryAlone();
    const still = (await letters().listOpen(connectionId)).filter((open) => open.sourceId === POISON_ID);
    expect(still).toHaveLength(FLOWS.length);
    for (const letter of still) {
      expect(letter.reason, letter.entity).toMatch(/pricePerUnit/);
      expect(letter.reason, letter.entity).not.toMatch(/no longer has/);
    }

    // The service serves it readable: the retry closes its letter, the next run writes its dimension.
    await inject(productRow(10));
    await retryAlone();
    expect((await letters().listOpen(connectionId)).filter((open) => open.sourceId === POISON_ID)).toEqual([]);
    const next = await runSync();
    expect(next.finished).toBe(true);
    expect((await productKeys()).has(`${POISON_ID}|seats`)).toBe(true);
  });
});
