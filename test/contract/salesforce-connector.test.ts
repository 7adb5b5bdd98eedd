// The Salesforce connector — jsforce itself, unmodified — against the Salesforce sandbox.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrmBudgetExhaustedError, type UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { validateMapping } from '../../mappings/overrides.ts';
import { checkMappings, MappingConfigError } from '../../mappings/check.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';

async function control(sandbox: SalesforceSandbox, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${sandbox.instanceUrl}/_sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox ${path}: HTTP ${response.status}`);
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

const calls = async (sandbox: SalesforceSandbox): Promise<Record<string, number>> => {
  const body = await control(sandbox, 'GET', '/calls');
  return body.byEndpoint ?? body.counts ?? body;
};

const accounts = (count: number, prefix = 'b'): UpsertItem[] =>
  Array.from({ length: count }, (_, index) => ({
    sourceId: `${prefix}-${index}`,
    externalIdField: 'Commerce_Buyer_Id__c',
    externalId: `${prefix}-${index}`,
    fields: { Name: `Buyer ${index}`, Marketplace__c: 'Marketplace A' },
  }));

describe('Salesforce connector against the sandbox (jsforce unmodified)', () => {
  let sandbox: SalesforceSandbox;
  const connector = () =>
    createSalesforceConnector(
      { loginUrl: sandbox.loginUrl, bulkThreshold: 2000, bulkPollIntervalMs: 50, lookbackSeconds: 0 },
      { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    );

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  it('verifies client credentials and names refused ones', async () => {
    const verified = await connector().verify();
    expect(verified.organizationId).toMatch(/^00D/);
    const refused = createSalesforceConnector({ loginUrl: sandbox.loginUrl }, { clientId: sandbox.clientId, clientSecret: 'nope' });
    await expect(refused.verify()).rejects.toThrow(/Salesforce refused the connection's credentials \(client id sf-sandbox-client\)/);
  });

  it('also connects with the refresh-token flow', async () => {
    const viaRefresh = createSalesforceConnector({ loginUrl: sandbox.loginUrl }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, refreshToken: sandbox.refreshToken });
    expect((await viaRefresh.verify()).organizationId).toMatch(/^00D/);
  });

  it('upserts 450 new records in exactly 3 collection calls, one result per record', async () => {
    const sf = connector();
    await sf.verify();
    await control(sandbox, 'POST', '/calls/reset');
    const results = await sf.upsert('Account', accounts(450));
    expect(results).toHaveLength(450);
    expect(results.every((result) => result.ok && result.created)).toBe(true);
    const counted = await calls(sandbox);
    expect(counted['composite-upsert']).toBe(3);
    const again = await sf.upsert('Account', accounts(450));
    expect(again.every((result) => result.ok && !result.created)).toBe(true);
  });

  it("returns a rejected record with Salesforce's own message while the others are written", async () => {
    const sf = connector();
    const items = accounts(3);
    items[1]!.fields.Name = 'x'.repeat(300);
    const results = await sf.upsert('Account', items);
    expect(results[0]!.ok && results[2]!.ok).toBe(true);
    expect(results[1]).toMatchObject({ ok: false, sourceId: 'b-1', error: { code: 'STRING_TOO_LONG' } });
    expect(!results[1]!.ok && results[1]!.error.message).toMatch(/Name: data value too large/);
    const stored = await control(sandbox, 'GET', '/records/Account');
    expect((stored.records ?? stored).length).toBe(2);
  });

  it('sends 5,000 records through one Bulk API 2.0 job, failures kept per record', async () => {
    const sf = connector();
    const items = accounts(5000, 'bulk');
    items[4321]!.fields.Name = null;
    const results = await sf.upsert('Account', items);
    expect(sf.stats.bulkJobs).toBe(1);
    expect(results.filter((result) => result.ok)).toHaveLength(4999);
    expect(results[4321]).toMatchObject({ ok: false, sourceId: 'bulk-4321', error: { code: 'REQUIRED_FIELD_MISSING' } });
  });

  it('keeps every field in a Bulk job whose records do not all carry the same fields', async () => {
    const sf = connector();
    const items = accounts(2500, 'mixed');
    // The first record has no Description; later ones do (jsforce takes the CSV header from the first row).
    items.forEach((item, index) => {
      if (index % 2 === 1) item.fields.Description = `described ${index}`;
    });
    const results = await sf.upsert('Account', items);
    expect(sf.stats.bulkJobs).toBe(1);
    expect(results.every((result) => result.ok)).toBe(true);
    const stored = await sf.getById('Account', (results[1] as { crmId: string }).crmId, ['Description']);
    expect(stored?.Description).toBe('described 1');
  });

  it('updates a linked record by its Id and resolves parents by external id', async () => {
    const sf = connector();
    const [account] = await sf.upsert('Account', accounts(1));
    const opportunity: UpsertItem = {
      sourceId: 'o-1', externalIdField: 'Commerce_Offer_Id__c', externalId: 'o-1',
      fields: { Name: 'Deal', StageName: 'Prospecting', CloseDate: '2026-06-30', Account: { Commerce_Buyer_Id__c: 'b-0' } },
    };
    const [created] = await sf.upsert('Opportunity', [opportunity]);
    expect(created!.ok).toBe(true);
    const stored = await sf.getById('Opportunity', (created as { crmId: string }).crmId, ['AccountId', 'StageName']);
    expect(stored?.AccountId).toBe((account as { crmId: string }).crmId);
    const [updated] = await sf.upsert('Opportunity', [{ ...opportunity, crmId: (created as { crmId: string }).crmId, fields: { StageName: 'Closed Won' } }]);
    expect(updated).toMatchObject({ ok: true, created: false });
    const orphan = await sf.upsert('Opportunity', [{ ...opportunity, sourceId: 'o-2', externalId: 'o-2', fields: { ...opportunity.fields, Account: { Commerce_Buyer_Id__c: 'missing' } } }]);
    expect(!orphan[0]!.ok && orphan[0]!.error.message).toMatch(/Foreign key external ID: missing not found/);
  });

  it('reads records changed since a time, inclusive, page by page', async () => {
    const sf = connector();
    const before = new Date(Date.now() - 1000);
    await sf.upsert('Account', accounts(450, 'r'));
    const pages: number[] = [];
    const ids = new Set<string>();
    for await (const page of sf.changedSince('Account', { since: before, fields: ['Name', 'Commerce_Buyer_Id__c'], pageSize: 200 })) {
      pages.push(page.length);
      for (const record of page) ids.add(String(record.Commerce_Buyer_Id__c));
    }
    expect(pages).toEqual([200, 200, 50]);
    expect(ids.size).toBe(450);
    const later = [];
    for await (const page of sf.changedSince('Account', { since: new Date(Date.now() + 60_000), fields: ['Name'] })) later.push(...page);
    expect(later).toEqual([]);
  });

  it('escapes hostile external id values in SOQL', async () => {
    const sf = connector();
    const hostile = ["O'Brien \\' OR Name != '", 'quote " and \\ backslash', "x' LIMIT 1"];
    await sf.upsert('Account', hostile.map((value, index) => ({ sourceId: `h${index}`, externalIdField: 'Commerce_Buyer_Id__c', externalId: value, fields: { Name: `H${index}` } })));
    await sf.upsert('Account', accounts(5, 'plain'));
    const found = await sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', hostile, ['Name']);
    expect([...found.keys()].sort()).toEqual([...hostile].sort());
    const none = await sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ["' OR Name != '"]);
    expect(none.size).toBe(0);
  });

  it('re-authenticates when the session expires', async () => {
    const sf = connector();
    await sf.verify();
    await control(sandbox, 'POST', '/sessions/expire');
    const results = await sf.upsert('Account', accounts(2));
    expect(results.every((result) => result.ok)).toBe(true);
  });

  it('tracks the API budget and parks the connection when the limit runs out', async () => {
    const sf = connector();
    await sf.verify();
    expect(sf.budget()).toMatchObject({ reserved: 0.2 });
    expect(sf.budget().limit).toBeGreaterThan(0);
    await control(sandbox, 'POST', '/limits', { dailyApiLimit: 100, used: 100 });
    const failure = await sf.upsert('Account', accounts(1)).catch((error) => error);
    expect(failure).toBeInstanceOf(CrmBudgetExhaustedError);
    expect(sf.budget().parkedUntil).toBeInstanceOf(Date);
    // Parked: no further call reaches Salesforce.
    await control(sandbox, 'POST', '/calls/reset');
    await expect(sf.upsert('Account', accounts(1))).rejects.toThrow(/parked until/);
    const counted = await calls(sandbox);
    expect(counted.total ?? 0).toBe(0);
  });

  it('rejects overrides naming fields or picklist values the describe lacks, before any write', async () => {
    const sf = connector();
    const schema = await sf.describe('Opportunity');
    expect(schema.fields.get('StageName')?.picklistValues).toContain('Closed Won');
    expect(validateMapping(SALESFORCE_MAPPINGS.offer, undefined, schema)).toEqual([]);
    const problems = validateMapping(SALESFORCE_MAPPINGS.offer, { rename: { Marketplace__c: 'Cloud__c' }, picklists: { StageName: { ACCEPTED: 'Won Big' } } }, schema);
    expect(problems).toEqual(["rename of Marketplace__c: Opportunity has no field 'Cloud__c'", '"Won Big" (for ACCEPTED) is not a value of the picklist Opportunity.StageName']);
    await checkMappings(sf, SALESFORCE_MAPPINGS); // the defaults fit the sandbox org
    await control(sandbox, 'POST', '/calls/reset');
    const failure = await checkMappings(sf, SALESFORCE_MAPPINGS, { entitlement: { disable: ['Nope__c'] }, offer: { constants: { Region__c: 'EMEA' } } }).catch((error) => error);
    expect(failure).toBeInstanceOf(MappingConfigError);
    expect(failure.problems).toEqual([
      'constant for Opportunity.Region__c: no such field',
      'disable names Marketplace_Entitlement__c.Nope__c, which the default entitlement mapping does not write',
    ]);
    const counted = await calls(sandbox);
    expect(Object.entries(counted).filter(([name, count]) => /upsert|create|update|bulk/.test(name) && count > 0)).toEqual([]);
  });
});
