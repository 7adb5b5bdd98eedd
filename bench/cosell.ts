// Benchmark: co-sell from Salesforce. The sandboxes and the production worker each in a process of their
// own (bench/processes, as initial-sync.ts runs them), an embedded PostgreSQL and a local Temporal dev
// server; the buyers synced to Accounts first, and one co-sell run over what the data already holds. Two phases:
// 1. Cost: BENCH_COSELL_OPPORTUNITIES (default 100) Opportunities marked for co-sell, created with jsforce
//    as a seller's tool would, then one cosell workflow run: its seconds and the calls it made on each
//    side per 100 Opportunities (commerce by operation, Salesforce by kind; counts reset just before).
// 2. Delay: the connection's real schedules (co-sell every minute, its default) while the Salesforce
//    sandbox's change driver makes `newShared` Opportunities at a steady rate for BENCH_COSELL_DELAY_SECONDS
//    (default 180); per referral made from one, its creationTime on the commerce side minus the
//    Opportunity's CreatedDate (Salesforce keeps whole seconds, so a delay is over by less than one).
// Prints one JSON line. About 4 minutes by default.
import type { SalesforceSandbox } from '../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../sandbox/salesforce/testing.ts';
import { ensureConnectionSchedules } from '../temporal/sync-schedules.ts';
import type { CosellTotals } from '../workflows/cosell.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import { startBenchStack, type BenchStack } from './processes/stack.ts';

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

const opportunities = Math.round(positiveNumber('BENCH_COSELL_OPPORTUNITIES', 100));
const delayPhaseSeconds = positiveNumber('BENCH_COSELL_DELAY_SECONDS', 180);
/** One new shared Opportunity every this many seconds during the delay phase. */
const newSharedEverySeconds = positiveNumber('BENCH_COSELL_NEW_SHARED_EVERY_SECONDS', 3);
const entitlements = 400; // about 100 buyers, so the Opportunities spread over many Accounts
const PARTNERS = ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function control(url: string, method = 'GET', body?: unknown): Promise<any> {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** Counts scaled to 100 Opportunities, one decimal. */
function per100(counts: Record<string, number>, of: number): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([key, count]) => [key, Math.round((count * 1000) / of) / 10]));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

let stack: BenchStack | undefined;
try {
  const benchStarted = performance.now();
  // Only the buyers' Accounts are needed for co-sell: the Opportunities hang on them.
  stack = await startBenchStack({ name: 'bench-cosell', entitlements, secretKey: Buffer.alloc(32, 2), settings: { entities: ['buyer'] } });
  const { commerce, salesforce, connectionId, taskQueue, client, alive } = stack;

  // The buyers' Accounts, from the commerce side as the sync makes them.
  await alive(client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `bench-cosell-buyers-${Date.now()}`, args: [{ connectionId }] }));
  const accounts = ((await control(`${salesforce.controlUrl}/records/Account`)) as any[]).filter((account) => account.Commerce_Buyer_Id__c);
  if (accounts.length === 0) throw new Error('the buyers sync made no Account with Commerce_Buyer_Id__c; nothing to hang Opportunities on');

  // A first co-sell run takes up what the data already holds (the generated inbound referrals), so the
  // measured run's calls are those of the N Opportunities alone.
  await alive(client.workflow.execute(WORKFLOW_TYPES.cosell, { taskQueue, workflowId: `bench-cosell-warm-up-${Date.now()}`, args: [{ connectionId }] }));

  // Phase 1: N Opportunities marked for co-sell, as a seller's tool makes them (sObject Collections).
  const { conn } = await clientCredentialsConnection(salesforce as unknown as SalesforceSandbox);
  const records = Array.from({ length: opportunities }, (_, index) => {
    const account = accounts[index % accounts.length]!;
    return {
      Name: `Bench co-sell deal ${index + 1}`,
      AccountId: account.Id,
      StageName: 'Prospecting',
      CloseDate: '2027-06-30',
      Amount: 10_000 + index,
      Cosell_Share__c: true,
      Cosell_Partner__c: PARTNERS.includes(account.Marketplace__c) ? account.Marketplace__c : PARTNERS[index % PARTNERS.length],
    };
  });
  const created = (await conn.sobject('Opportunity').create(records, { allOrNone: true, allowRecursive: true })) as { id: string; success: boolean }[];
  if (!created.every((result) => result.success)) throw new Error('Salesforce refused some of the benchmark Opportunities');

  await control(`${commerce.controlUrl}/calls/reset`, 'POST');
  await control(`${salesforce.controlUrl}/calls/reset`, 'POST');
  const runStarted = performance.now();
  const totals: CosellTotals = await alive(client.workflow.execute(WORKFLOW_TYPES.cosell, { taskQueue, workflowId: `bench-cosell-run-${Date.now()}`, args: [{ connectionId }] }));
  const seconds = (performance.now() - runStarted) / 1000;
  const commerceCalls = (await control(`${commerce.controlUrl}/calls`)) as { total: number; operations: Record<string, number> };
  const { total: salesforceTotal, ...salesforceCalls } = (await control(`${salesforce.controlUrl}/calls`)) as Record<string, number>;
  const marked = new Set(created.map((result) => result.id));
  const referralsMade = ((await control(`${commerce.controlUrl}/records/referrals`)) as any[]).filter((referral) => marked.has(referral.crmAOpportunityId)).length;

  // Phase 2: the real schedules, co-sell at its default interval, and sellers sharing new deals steadily.
  await ensureConnectionSchedules(client, { connectionId, every: '5m', realtimeEvery: '30s', reconcileEvery: '24h', cosellEvery: '1m', taskQueue });
  const shared: string[] = [];
  const phaseEnds = Date.now() + delayPhaseSeconds * 1000;
  while (Date.now() < phaseEnds) {
    const { changes } = (await control(`${salesforce.controlUrl}/changes`, 'POST', { count: 1, kinds: ['newShared'] })) as { changes: { id: string; kind: string }[] };
    shared.push(...changes.filter((change) => change.kind === 'newShared').map((change) => change.id));
    await alive(sleep(newSharedEverySeconds * 1000));
  }
  // The last ones wait for the next tick of the schedule and its run.
  const referralOf = async () => new Map(((await control(`${commerce.controlUrl}/records/referrals`)) as any[]).filter((referral) => referral.crmAOpportunityId).map((referral) => [referral.crmAOpportunityId as string, referral]));
  const settleBy = Date.now() + 120_000;
  let referrals = await referralOf();
  while (shared.some((id) => !referrals.has(id)) && Date.now() < settleBy) {
    await alive(sleep(2000));
    referrals = await referralOf();
  }
  const createdDate = new Map(((await control(`${salesforce.controlUrl}/records/Opportunity`)) as any[]).map((opportunity) => [opportunity.Id as string, Date.parse(opportunity.CreatedDate)]));
  const delays = shared.filter((id) => referrals.has(id)).map((id) => (Date.parse(referrals.get(id)!.creationTime) - createdDate.get(id)!) / 1000);

  await stack.worker.stop();
  await stack.sandboxes.stop();
  console.log(
    JSON.stringify({
      bench: 'cosell',
      opportunities,
      referralsMade,
      seconds: Number(seconds.toFixed(2)),
      runTotals: totals,
      commerceCallsPer100: per100(commerceCalls.operations, opportunities),
      salesforceCallsPer100: per100(salesforceCalls, opportunities),
      // Phase 2: marking (the Opportunity's CreatedDate) to the referral's creationTime, co-sell every minute.
      delaySecondsMedian: delays.length ? Number(median(delays).toFixed(1)) : null,
      delaySecondsMax: delays.length ? Number(Math.max(...delays).toFixed(1)) : null,
      delaySamples: delays.length,
      sharedDuringDelayPhase: shared.length,
      withoutReferral: shared.length - delays.length,
      benchSeconds: Math.round((performance.now() - benchStarted) / 1000),
    }),
  );
} finally {
  await stack?.stop();
}
