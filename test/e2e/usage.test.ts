// Usage end to end, for each CRM (issue #25 section 4; describe.each over the CRMs whose usage object
// `crm-sync setup` makes): real Temporal, real PostgreSQL, the commerce sandbox's metered entitlements
// (30 days of 3 dimensions each, A16) and the production worker. The first run writes every day once,
// with the quantities and amounts of the commerce aggregates; a second run writes nothing; after one day
// changes (one more usage record group, not yet reported) only that day is written.
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor, type CrmUnderTest } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { startProductionWorker } from '../support/sync-harness.ts';

/** A usage record as the test compares it, whatever the CRM: the key and the four values. */
type UsageView = { key: string; entitlementId?: string; dimension: string; date: string; quantity: number; amount: number | null; failedReports: number };

const asNumber = (value: unknown) => (value === null || value === undefined || value === '' ? null : Number(value));

/** Each CRM's usage records, read from its sandbox's own dump (not through the connector). */
async function usageIn(crm: CrmUnderTest): Promise<Map<string, UsageView>> {
  if (crm.kind === 'salesforce') {
    const entitlements = new Map((await salesforceDump(crm.salesforce!, 'Marketplace_Entitlement__c')).map((row) => [row.Id, row.Commerce_Entitlement_Id__c]));
    return new Map((await salesforceDump(crm.salesforce!, 'Marketplace_Usage__c')).map((row) => [row.Commerce_Usage_Key__c, {
      key: row.Commerce_Usage_Key__c, entitlementId: entitlements.get(row.Entitlement__c), dimension: row.Dimension__c, date: row.Usage_Date__c,
      quantity: Number(row.Quantity__c), amount: asNumber(row.Amount__c), failedReports: Number(row.Failed_Reports__c),
    }]));
  }
  if (crm.kind === 'dynamics') {
    const body = await dynamicsControl(crm.dynamics!, 'GET', '/records/ccs_marketplaceusage');
    const entitlementRows = await dynamicsControl(crm.dynamics!, 'GET', '/records/ccs_marketplaceentitlement');
    const list = (value: any): any[] => (Array.isArray(value) ? value : (value.records ?? value.value));
    const entitlements = new Map(list(entitlementRows).map((row) => [row.ccs_marketplaceentitlementid, row.ccs_entitlementid]));
    return new Map(list(body).map((row) => [row.ccs_usagekey, {
      key: row.ccs_usagekey, entitlementId: entitlements.get(row._ccs_marketplaceentitlementid_value ?? row.ccs_marketplaceentitlementid), dimension: row.ccs_dimension, date: String(row.ccs_usagedate).slice(0, 10),
      quantity: Number(row.ccs_quantity), amount: asNumber(row.ccs_amount), failedReports: Number(row.ccs_failedreports),
    }]));
  }
  const body = await hubspotControl(crm.hubspot!, 'GET', '/records/marketplace_usage');
  const list: any[] = Array.isArray(body) ? body : (body.records ?? body.results);
  return new Map(list.map((record) => record.properties ?? record).map((p) => [p.usage_key, {
    key: p.usage_key, dimension: p.dimension, date: String(p.usage_date).slice(0, 10), quantity: Number(p.quantity), amount: asNumber(p.amount), failedReports: Number(p.failed_reports),
  }]));
}

/** An entitlement's usage summary as each CRM holds it on the entitlement record, by commerce entitlement id. */
type SummaryView = { usageAmount: number | null; burnDown: number | null; lastUsageDate: string | null; failedReports: number | null };
async function summariesIn(crm: CrmUnderTest): Promise<Map<string, SummaryView>> {
  const day = (value: unknown) => (value ? String(value).slice(0, 10) : null);
  if (crm.kind === 'salesforce') {
    return new Map((await salesforceDump(crm.salesforce!, 'Marketplace_Entitlement__c')).map((row) => [row.Commerce_Entitlement_Id__c, {
      usageAmount: asNumber(row.Usage_Amount__c), burnDown: asNumber(row.Commit_Burn_Down__c), lastUsageDate: day(row.Last_Usage_Date__c), failedReports: asNumber(row.Failed_Usage_Reports__c),
    }]));
  }
  if (crm.kind === 'dynamics') {
    const body = await dynamicsControl(crm.dynamics!, 'GET', '/records/ccs_marketplaceentitlement');
    return new Map((Array.isArray(body) ? body : (body.records ?? body.value)).map((row: any) => [row.ccs_entitlementid, {
      usageAmount: asNumber(row.ccs_usageamount), burnDown: asNumber(row.ccs_commitburndown), lastUsageDate: day(row.ccs_lastusagedate), failedReports: asNumber(row.ccs_failedusagereports),
    }]));
  }
  const body = await hubspotControl(crm.hubspot!, 'GET', '/records/marketplace_entitlement');
  return new Map((Array.isArray(body) ? body : (body.records ?? body.results)).map((record: any) => record.properties ?? record).map((p: any) => [p.entitlement_id, {
    usageAmount: asNumber(p.usage_amount), burnDown: asNumber(p.commit_burn_down_percent), lastUsageDate: day(p.last_usage_date), failedReports: asNumber(p.failed_usage_reports),
  }]));
}

describe.each(CRMS_UNDER_TEST)('usage by day, commerce sandbox -> %s sandbox (real Temporal, real PostgreSQL)', (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  let connectionId: string;
  const taskQueue = `usage-${kind}-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 60, seed: 17 });
    connectionId = (await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'offer', 'entitlement', 'usage', 'usage-summary'] })).id;
    worker = await startProductionWorker(database, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  const runSync = async (): Promise<SyncProgress> =>
    new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `usage-${connectionId}-${Date.now()}`, args: [{ connectionId }] });

  /** The commerce side's day aggregates, read with plain fetch (not the client under test). */
  const commerceRecords = async (kind: string): Promise<any[]> => (await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/records/${kind}`)).json() as Promise<any[]>;

  async function commerceDays(path: string): Promise<any[]> {
    const token = await (await fetch(`${sandboxes.commerce.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sandboxes.commerce.clientId, client_secret: sandboxes.commerce.clientSecret, resource: sandboxes.commerce.apiUrl }),
    })).json() as { access_token: string };
    const response = await fetch(`${sandboxes.commerce.apiUrl}/org/${sandboxes.commerce.organizationId}/${path}?page_size=1000`, { headers: { authorization: `Bearer ${token.access_token}` } });
    return ((await response.json()) as { data: any[] }).data;
  }

  it('writes 30 days of 3 dimensions once per metered entitlement, each with its reported quantity and amount; a second run writes nothing', async () => {
    const first = await runSync();
    expect(first.finished).toBe(true);
    const groups = await commerceDays('usageRecordGroup/aggregate');
    const reports = new Map((await commerceDays('usageRecordReport/aggregate')).map((day) => [day.id, day]));
    const metered = new Set(groups.map((day) => day.entitlementID));
    expect(metered.size).toBe(6); // one entitlement per marketplace A-F
    expect(groups).toHaveLength(6 * 30 * 3);
    expect(first.entities.usage).toMatchObject({ created: 540, updated: 0, failed: 0 });

    const usage = await usageIn(sandboxes.crm);
    expect(usage.size).toBe(540);
    for (const day of groups) {
      // Every day in the history is reported: its quantity is the reports', one storage_gb group on the 11th day failed.
      const report = reports.get(day.id);
      expect(usage.get(day.id), day.id).toEqual({
        key: day.id,
        ...(kind !== 'hubspot' && { entitlementId: day.entitlementID }),
        dimension: day.dimensionKey,
        date: day.date,
        quantity: report.quantity,
        amount: report.amount,
        failedReports: day.failedCount,
      });
    }
    expect([...usage.values()].filter((day) => day.failedReports === 1)).toHaveLength(6);

    // On each metered entitlement: the billed usage, the commit burnt by it, the last day, the failed report.
    const summaries = await summariesIn(sandboxes.crm);
    const entitlements = new Map((await commerceRecords('entitlements')).map((entitlement) => [entitlement.id, entitlement]));
    const terms = new Map((await commerceRecords('entitlementTerms')).map((term) => [term.id, term]));
    const yesterday = [...new Set(groups.map((day) => day.date))].sort().at(-1);
    for (const entitlementId of metered) {
      const billed = Math.round([...reports.values()].filter((day) => day.entitlementID === entitlementId).reduce((sum, day) => sum + day.amount, 0) * 100) / 100;
      const entitlement = entitlements.get(entitlementId);
      const commit = terms.get(entitlement.entitlementTermID)?.commitAmount ?? entitlement.info?.commitAmount;
      expect(summaries.get(entitlementId), entitlementId).toEqual({
        usageAmount: billed,
        burnDown: commit > 0 ? Math.round((billed / commit) * 10_000) / 100 : null,
        lastUsageDate: yesterday,
        failedReports: 1,
      });
    }
    // Written onto records the entitlement flow made (a CRM that cannot tell an upsert's update from a create, Dataverse, counts it made).
    expect(first.entities['usage-summary']!.created + first.entities['usage-summary']!.updated).toBe(6);
    expect(first.entities['usage-summary']!.failed).toBe(0);

    await sandboxes.crm.resetCalls();
    const second = await runSync();
    expect(second.entities.usage).toMatchObject({ created: 0, updated: 0 });
    expect(second.entities['usage-summary']).toMatchObject({ created: 0, updated: 0 });
    expect(sandboxes.crm.writeCalls(await sandboxes.crm.calls())).toBe(0);
  });

  it('after one day changes, only that day is written', async () => {
    const before = await usageIn(sandboxes.crm);
    const response = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: ['usage'] }) });
    const [change] = ((await response.json()) as { changes: { id: string; summary: string }[] }).changes;
    const added = Number(/^(\d+) more/.exec(change!.summary)![1]);

    await sandboxes.crm.resetCalls();
    const progress = await runSync();
    expect(progress.entities.usage).toMatchObject({ created: 0, updated: 1, failed: 0 });
    // A group not reported yet bills nothing and the day was already a day of usage: the summaries stay.
    expect(progress.entities['usage-summary']).toMatchObject({ created: 0, updated: 0, failed: 0 });
    // One write request carried it; HubSpot's write is the batch upsert and its association to the entitlement (v4, made again with every write).
    expect(sandboxes.crm.writeCalls(await sandboxes.crm.calls())).toBe(kind === 'hubspot' ? 2 : 1);

    const after = await usageIn(sandboxes.crm);
    const changed = [...after].filter(([key, day]) => JSON.stringify(day) !== JSON.stringify(before.get(key))).map(([key]) => key);
    expect(changed).toEqual([change!.id]);
    // The day so far: what was reported plus the group not reported yet; the billed amount is the reported part's.
    expect(after.get(change!.id)).toEqual({ ...before.get(change!.id)!, quantity: before.get(change!.id)!.quantity + added });
  });
});

// HubSpot without custom objects (entitlements as line items on the offer's deal): no usage object, the
// entitlement's usage summary on its line item (the documented fallback).
describe('usage summary on HubSpot line items, an account without custom objects (real Temporal, real PostgreSQL)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let worker: Awaited<ReturnType<typeof startProductionWorker>>;
  const taskQueue = `usage-line-items-${Date.now()}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor('hubspot', { entitlements: 60, seed: 17 }, { sandbox: { customObjects: false } });
    worker = await startProductionWorker(database, { taskQueue });
  });
  afterAll(async () => {
    await worker?.stop();
    await sandboxes?.stop();
    await database?.drop();
  });

  it("writes each metered entitlement's summary onto its line item, once", async () => {
    const { id } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer', 'offer', 'entitlement', 'usage-summary'], crmSettings: { entitlementObject: 'line_items' } });
    const run = () => new Client({ connection: worker.connection }).workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `usage-li-${id}-${Date.now()}`, args: [{ connectionId: id }] }) as Promise<SyncProgress>;
    const first = await run();
    expect(first.entities['usage-summary']).toMatchObject({ failed: 0 });
    const body = await hubspotControl(sandboxes.crm.hubspot!, 'GET', '/records/line_items');
    const items: Record<string, string>[] = (Array.isArray(body) ? body : (body.records ?? body.results)).map((record: any) => record.properties ?? record);
    const summarised = items.filter((item) => item.failed_usage_reports !== undefined && item.failed_usage_reports !== null && item.failed_usage_reports !== '');
    // Six metered entitlements (one per marketplace), each with one report failed and usage until yesterday.
    expect(summarised).toHaveLength(6);
    for (const item of summarised) {
      expect(Number(item.failed_usage_reports), item.commerce_entitlement_id).toBe(1);
      expect(Number(item.usage_amount)).toBeGreaterThan(0);
      expect(item.last_usage_date).toBeTruthy();
    }
    await sandboxes.crm.resetCalls();
    const second = await run();
    expect(second.entities['usage-summary']).toMatchObject({ created: 0, updated: 0 });
    expect(sandboxes.crm.writeCalls(await sandboxes.crm.calls())).toBe(0);
  });
});
