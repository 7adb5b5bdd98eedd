// The sync end to end: real Temporal, real PostgreSQL, both sandboxes, the production worker.
import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../mappings/types.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { expectOfferWriteBack, expectSalesforceMatchesCommerce, salesforceDump } from '../support/salesforce-state.ts';
import { commerceDump, createSandboxConnection, expectedCrmState, salesforceCalls, startProductionWorker, startSandboxes, writeCalls } from '../support/sync-harness.ts';

const ENTITIES: Entity[] = ['buyer', 'contact', 'offer', 'entitlement', 'referral'];

describe('incremental sync, commerce sandbox -> Salesforce sandbox (real Temporal, real PostgreSQL)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: NativeConnection;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  const taskQueue = `sync-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 400, seed: 11 });
    connectionId = (await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { pageSize: 150 })).id;
    worker = await startProductionWorker(database, { taskQueue });
    connection = worker.connection;
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  const runSync = async (): Promise<SyncProgress> =>
    new Client({ connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `sync-${connectionId}-${Date.now()}`, args: [{ connectionId }] });

  const assertCrmMatchesCommerce = () => expectSalesforceMatchesCommerce(sandboxes.commerce, sandboxes.salesforce);

  it('an initial sync produces exactly the expected CRM records; a second run writes nothing', async () => {
    const first = await runSync();
    expect(first.finished).toBe(true);
    // The only rejections: referrals that name an Opportunity id of another org (the sandbox data
    // carries random ones). Salesforce refuses the reference, and they wait as dead letters.
    const foreign = (await commerceDump(sandboxes.commerce, 'referrals')).filter((referral) => referral.crmAOpportunityId);
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId);
    expect(first.totals.failed).toBe(foreign.length);
    expect(letters.map((letter) => letter.sourceId).sort()).toEqual(foreign.map((referral) => referral.id).sort());
    expect(letters.every((letter) => letter.entity === 'referral' && /INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY|MALFORMED_ID/.test(letter.reason))).toBe(true);
    await assertCrmMatchesCommerce();
    await expectOfferWriteBack(sandboxes.commerce, sandboxes.salesforce);

    await fetch(`${sandboxes.salesforce.instanceUrl}/_sandbox/calls/reset`, { method: 'POST' });
    const second = await runSync();
    expect(second.totals.created + second.totals.updated).toBe(0);
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce))).toBe(0);
  });

  it('after the change driver runs, the next sync writes exactly the changed records', async () => {
    const before = new Map<Entity, Map<string, string>>();
    for (const entity of ENTITIES) {
      before.set(entity, new Map([...(await expectedCrmState(sandboxes.commerce, entity))].map(([id, fields]) => [id, JSON.stringify(fields)])));
    }
    await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 40 }) });
    let changed = 0;
    const changedIds: string[] = [];
    for (const entity of ENTITIES) {
      for (const [id, fields] of await expectedCrmState(sandboxes.commerce, entity)) {
        if (before.get(entity)!.get(id) !== JSON.stringify(fields)) { changed += 1; changedIds.push(`${entity}:${id}`); }
      }
    }
    // Referrals naming another org's Opportunity cannot be written (see the first test): they fail instead.
    const foreign = new Set((await commerceDump(sandboxes.commerce, 'referrals')).filter((r) => r.crmAOpportunityId).map((r) => `referral:${r.id}`));
    const writable = changedIds.filter((id) => !foreign.has(id)).length;
    expect(changed).toBeGreaterThan(0);
    const progress = await runSync();
    expect(progress.totals.created + progress.totals.updated).toBe(writable);
    await assertCrmMatchesCommerce();
  });

  it('a record the CRM rejects becomes a dead letter with its reason while the rest sync', async () => {
    const response = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/buyers`);
    const [buyer] = (await response.json()) as any[];
    // A 200-character offer name does not fit Opportunity.Name (120).
    const token = await fetch(`${sandboxes.commerce.authUrl}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandboxes.commerce.clientId, client_secret: sandboxes.commerce.clientSecret, resource: sandboxes.commerce.apiUrl }),
    }).then((r) => r.json() as Promise<any>);
    const created = await fetch(`${sandboxes.commerce.apiUrl}/org/${sandboxes.commerce.organizationId}/offer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'N'.repeat(200), buyerID: buyer.id, productID: 'prod-000001', offerType: 'PRIVATE', partner: 'cloudA' }),
    }).then((r) => r.json() as Promise<any>);
    const good = await fetch(`${sandboxes.commerce.apiUrl}/org/${sandboxes.commerce.organizationId}/offer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'A fine offer', buyerID: buyer.id, productID: 'prod-000001', offerType: 'PRIVATE', partner: 'cloudB' }),
    }).then((r) => r.json() as Promise<any>);
    await runSync();
    const offerLetters = await createDeadLetterStore(database.pool).listOpen(connectionId, 'offer');
    expect(offerLetters).toHaveLength(1);
    const [letter] = offerLetters;
    expect(letter).toMatchObject({ entity: 'offer', sourceId: created.id });
    expect(letter!.reason).toMatch(/STRING_TOO_LONG/);
    const opportunities = await salesforceDump(sandboxes.salesforce, 'Opportunity');
    expect(opportunities.some((o) => o.Commerce_Offer_Id__c === good.id)).toBe(true);
    expect(opportunities.some((o) => o.Commerce_Offer_Id__c === created.id)).toBe(false);
  });
});
