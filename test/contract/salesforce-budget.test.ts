// The Salesforce connector's API budget: a park ends on the org's real usage, read from the limits
// resource, never on the stale Sforce-Limit-Info figures of the last response before the park.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrmBudgetExhaustedError, type UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';

const accounts = (count: number, prefix: string): UpsertItem[] =>
  Array.from({ length: count }, (_, index) => ({
    sourceId: `${prefix}-${index}`,
    externalIdField: 'Commerce_Buyer_Id__c',
    externalId: `${prefix}-${index}`,
    fields: { Name: `Buyer ${index}` },
  }));

const HOUR = 3600_000;

describe('Salesforce connector: parking on the API budget', () => {
  let sandbox: SalesforceSandbox;
  let nowMs: number;
  const connector = () =>
    createSalesforceConnector({ loginUrl: sandbox.loginUrl, lookbackSeconds: 0, parkSeconds: 3600, reservedShare: 0.2 }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret }, () => new Date(nowMs));
  const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Error);

  beforeAll(async () => {
    sandbox = await startSalesforceSandbox();
  });
  afterAll(() => sandbox?.stop());
  beforeEach(async () => {
    nowMs = Date.parse('2026-05-04T10:00:00Z');
    await control(sandbox, 'POST', '/reset');
  });

  /** Usage of 85 of 100 lets one call through on the old figures; the next finds the reserve (80%) reached and parks. */
  async function parkOnHighUsage(sf: ReturnType<typeof connector>, used: number) {
    await sf.verify();
    await control(sandbox, 'POST', '/limits', { dailyApiLimit: 100, used });
    await sf.upsert('Account', accounts(1, 'before'));
    await control(sandbox, 'POST', '/calls/reset');
    const failure = await errorOf(sf.upsert('Account', accounts(1, 'parked')));
    expect(failure).toBeInstanceOf(CrmBudgetExhaustedError);
    return failure as CrmBudgetExhaustedError;
  }

  it('reads the real usage before parking and, once the park is over and the usage was reset, calls again', async () => {
    const sf = connector();
    const failure = await parkOnHighUsage(sf, 85);
    // The decision was made on the limits resource (one call), not on the figures of the last write.
    expect(failure.message).toMatch(/Salesforce API usage is 87 of 100 today \(read from the org's limits\); the last 20% is reserved/);
    expect(failure.resetsAt).toEqual(new Date(nowMs + HOUR));
    expect(await callCounts(sandbox)).toEqual({ limits: 1, total: 1 });
    expect(sf.budget().parkedUntil).toEqual(new Date(nowMs + HOUR));

    await control(sandbox, 'POST', '/limits', { used: 0 }); // the org's day rolled over
    await control(sandbox, 'POST', '/calls/reset');
    nowMs += HOUR - 1000;
    await expect(sf.upsert('Account', accounts(1, 'still-parked'))).rejects.toThrow(/parked until 2026-05-04T11:00:00.000Z/);
    expect(await callCounts(sandbox)).toEqual({ total: 0 });

    nowMs += 2000; // past the park
    const results = await sf.upsert('Account', accounts(2, 'after'));
    expect(results.map((result) => result.ok)).toEqual([true, true]);
    expect(await callCounts(sandbox)).toEqual({ limits: 1, 'composite-upsert': 1, total: 2 });
    expect(sf.budget()).toMatchObject({ used: 2, limit: 100, parkedUntil: undefined });
    const stored = await control(sandbox, 'GET', '/records/Account');
    expect(stored.map((record: { Commerce_Buyer_Id__c: string }) => record.Commerce_Buyer_Id__c).sort()).toEqual(['after-0', 'after-1', 'before-0']);
  });

  it('stays parked, one limits call per park, while the real usage is still high', async () => {
    const sf = connector();
    await parkOnHighUsage(sf, 90);
    await control(sandbox, 'POST', '/calls/reset');

    nowMs += HOUR + 1000;
    const again = await errorOf(sf.upsert('Account', accounts(1, 'again')));
    expect(again).toBeInstanceOf(CrmBudgetExhaustedError);
    expect(again!.message).toMatch(/usage is 93 of 100 today/);
    expect(sf.budget().parkedUntil).toEqual(new Date(nowMs + HOUR));
    // Parked again: further calls in this hour reach nothing.
    for (const prefix of ['x', 'y', 'z']) await expect(sf.upsert('Account', accounts(1, prefix))).rejects.toBeInstanceOf(CrmBudgetExhaustedError);
    await expect(sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ['before-0'])).rejects.toBeInstanceOf(CrmBudgetExhaustedError);
    expect(await callCounts(sandbox)).toEqual({ limits: 1, total: 1 });

    // The allowance is now spent altogether: the limits call itself is refused, and that parks too.
    await control(sandbox, 'POST', '/limits', { used: 100 });
    nowMs += HOUR + 1000;
    await expect(sf.upsert('Account', accounts(1, 'spent'))).rejects.toBeInstanceOf(CrmBudgetExhaustedError);
    expect(await callCounts(sandbox)).toEqual({ limits: 2, total: 2 });
    expect(sf.budget().parkedUntil).toEqual(new Date(nowMs + HOUR));
    expect((await control(sandbox, 'GET', '/records/Account')).length).toBe(1);
  });
});
