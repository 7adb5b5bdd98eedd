// Co-sell from Salesforce with 10,000 changed Opportunities, through the real workflow (real Temporal,
// real PostgreSQL, the production worker): each window is queried once and its later pages follow the
// query locator from activity to activity (before: a fresh sorted query per page of 200, 153 queries
// for the three windows of this run), the referral and draft flows read only the Opportunities that can
// ask, and no query times out. Since issue #24 item 9 the run reads its window once for every pass (the
// referral flow, the draft flow, the stage sync's CRM side), narrowed by the union of their filters: the
// 10,000 unshared, unpaired Opportunities are not read at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCounts, control } from '../../sandbox/salesforce/testing.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { startCosellStack, type CosellStack } from '../support/cosell-stack.ts';

const UNSHARED = 10_000;

describe('co-sell from Salesforce at scale', () => {
  let stack: CosellStack;

  beforeAll(async () => {
    stack = await startCosellStack({ name: 'cosell-scale', entitlements: 10, seed: 71, crm: 'salesforce' });
  }, 240_000);
  afterAll(() => stack?.stop());

  it('10,003 changed Opportunities: one narrowed query for every pass; 3 shared become 3 referrals', async () => {
    const { crm, salesforce } = stack.sandboxes;
    const accounts = await crm.accounts();
    const opportunity = (name: string, share: boolean, index: number) => ({ name, accountId: accounts[index % accounts.length]!.id, stage: crm.openStage, closeDate: '2027-03-31', amount: 1000, share, ...(share && { partner: 'Marketplace B' }) });
    for (let start = 0; start < UNSHARED; start += 2000) await crm.createOpportunities(Array.from({ length: 2000 }, (_, index) => opportunity(`quiet ${start + index}`, false, index)));
    const shared = await crm.createOpportunities([0, 1, 2].map((index) => opportunity(`shared ${index}`, true, index)));
    // Queries are priced (1 ms a 1,000 rows scanned: nothing times out) so the sandbox counts what each scans.
    await control(salesforce, 'POST', '/query-cost', { msPerThousandRows: 1, timeoutMs: 120_000 });
    await control(salesforce, 'POST', '/calls/reset');

    const totals = await stack.run(WORKFLOW_TYPES.cosell);
    expect(totals).toMatchObject({ created: 3, refused: 0 });
    // One read for every pass: the 3 shared ones only (none asks for a private offer, none held a referral id).
    expect(totals.flows['opportunity-referral']).toMatchObject({ records: 3, created: 3 });
    expect(totals.flows['opportunity-draft-offer']).toMatchObject({ records: 3, asking: 0 });
    // Every Opportunity changed since the horizon (those the stack's setup made too).
    const all = await crm.opportunities();
    expect(all.length).toBeGreaterThanOrEqual(UNSHARED + shared.length);
    expect(all.length).toBeLessThanOrEqual(10_200);
    // Changes on both sides: the 3 read once, and the referrals the commerce side changed before the run
    // began (a few of the data's own; the 3 made in this run are decided on the CRM side's page, and read next run).
    expect(totals.stages.changes).toBeGreaterThanOrEqual(3);
    expect(totals.stages.changes).toBeLessThanOrEqual(3 + 10);
    const referralIds = new Set(all.filter((row) => shared.includes(row.id)).map((row) => row.referralId));
    expect(referralIds.size).toBe(3);

    const calls = await callCounts(salesforce);
    // 3 records are one page: nothing to follow.
    expect(calls['query-more'] ?? 0).toBe(0);
    // One query: the window, read once for every pass. The pairs made in this run are decided on that page,
    // so no Opportunity is looked up by Id (the commerce side's window ended before they were made).
    // Before issue #24 item 9: one per window (referrals, drafts, stages; the stage window unnarrowed,
    // 51 pages of 200, 50 of them by queryMore) and the look-up of the new pairs' Opportunities: 4 queries
    // and 50 queryMore. Before issue #23 item 3: a fresh query per page of each window, 3 x 51 + 1 = 154 queries.
    expect(calls.query).toBe(1);
    expect(await control(salesforce, 'GET', '/query-cost')).toMatchObject({ timeouts: 0 });
  }, 600_000);
});
