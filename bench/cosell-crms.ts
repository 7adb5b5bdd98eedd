// Benchmark: co-sell at volume for every CRM (issue #14). For each CRM in BENCH_CRMS (default all
// three): 400 entitlements synced (about 100 buyers' accounts), then BENCH_COSELL_OPPORTUNITIES (1,000)
// opportunities shared for co-sell, made through the CRM's API as a seller's tool would (200 at a time),
// and one co-sell run: its seconds, referrals made, the calls it made on each side (commerce by
// operation, the CRM by kind, counts reset just before) and per opportunity, and the delay from each
// opportunity's creation to its referral's creationTime on the commerce side (p50 / max; it includes
// the time to make the 1,000, as a seller sharing them in one go would see); then what one more run costs
// with nothing new (each schedule tick on a quiet day). The sandboxes and the worker run in this process.
// One JSON line per CRM, then a summary.
import { OPPORTUNITY_ID_FIELD } from '../commerce/crm-ids.ts';
import { commerceDump } from '../test/support/sync-harness.ts';
import type { CosellTotals } from '../workflows/cosell.ts';
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { CrmKind } from './crm-calls.ts';
import { startInProcessStack, startServices } from './processes/in-process-stack.ts';

const opportunities = Number(process.env.BENCH_COSELL_OPPORTUNITIES ?? 1000);
if (!Number.isInteger(opportunities) || opportunities < 1) throw new Error(`BENCH_COSELL_OPPORTUNITIES must be a whole number of at least 1, got ${process.env.BENCH_COSELL_OPPORTUNITIES}`);
const crms = (process.env.BENCH_CRMS ?? 'salesforce,hubspot,dynamics').split(',').map((kind) => kind.trim()) as CrmKind[];
const PARTNERS = ['Marketplace A', 'Marketplace B', 'Marketplace C', 'Marketplace D', 'Marketplace E', 'Marketplace F'];
const round = (value: number) => Number(value.toFixed(1));
const sum = (counts: Record<string, number>) => Object.entries(counts).filter(([name]) => name !== 'total').reduce((total, [, count]) => total + count, 0);

async function cosell(kind: CrmKind, services: { postgresUrl: string; temporalAddress: string }) {
  const stack = await startInProcessStack(kind, services, { name: 'cosell', entitlements: 400, seed: 23 });
  const { commerce, crm } = stack;
  try {
    await stack.run(WORKFLOW_TYPES.incrementalSync);
    await stack.run(WORKFLOW_TYPES.cosell); // what the data already holds (inbound referrals), out of the way
    const accounts = await crm.accounts();
    const createdAt = new Map<string, number>();
    for (let start = 0; start < opportunities; start += 200) {
      const inputs = Array.from({ length: Math.min(200, opportunities - start) }, (_, i) => ({
        name: `Co-sell ${start + i}`,
        accountId: accounts[(start + i) % accounts.length]!.id,
        stage: crm.openStage,
        closeDate: '2027-06-30',
        amount: 1000 + start + i,
        share: true,
        partner: PARTNERS[(start + i) % PARTNERS.length],
      }));
      const ids = await crm.createOpportunities(inputs);
      const at = Date.now();
      for (const id of ids) createdAt.set(id, at);
    }
    await fetch(`${commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });
    await crm.resetCalls();
    const started = performance.now();
    const totals: CosellTotals = await stack.run(WORKFLOW_TYPES.cosell);
    const seconds = (performance.now() - started) / 1000;
    const commerceCalls = (await (await fetch(`${commerce.apiUrl}/_sandbox/calls`)).json()) as { total?: number; operations?: Record<string, number> };
    const crmCalls = await crm.calls();
    const field = OPPORTUNITY_ID_FIELD[kind];
    const delays = (await commerceDump(commerce, 'referrals'))
      .filter((referral) => createdAt.has(referral[field]))
      .map((referral) => (Date.parse(referral.creationTime) - createdAt.get(referral[field])!) / 1000)
      .sort((a, b) => a - b);
    const commerceTotal = commerceCalls.total ?? sum(commerceCalls.operations ?? {});
    const crmTotal = typeof crmCalls.total === 'number' ? crmCalls.total : sum(crmCalls);
    // What a co-sell run costs when nothing changed: what every schedule tick spends on a quiet day.
    await fetch(`${commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });
    await crm.resetCalls();
    await stack.run(WORKFLOW_TYPES.cosell);
    const quietCommerce = (await (await fetch(`${commerce.apiUrl}/_sandbox/calls`)).json()) as { total?: number; operations?: Record<string, number> };
    const quietCrm = await crm.calls();
    return {
      bench: 'cosell',
      crm: kind,
      opportunities,
      seconds: round(seconds),
      referralsMade: delays.length,
      referralsMissing: opportunities - delays.length,
      refused: totals.refused,
      created: totals.created,
      commerceCalls: commerceTotal,
      commerceCallsPerOpportunity: round(commerceTotal / opportunities),
      commerceCallsByOperation: commerceCalls.operations,
      crmCalls: crmTotal,
      crmCallsPerOpportunity: round(crmTotal / opportunities),
      crmWriteCalls: crm.writeCalls(crmCalls),
      crmCallsByKind: crmCalls,
      delayToReferralP50Seconds: delays.length ? round(delays[Math.floor(delays.length / 2)]!) : null,
      delayToReferralMaxSeconds: delays.length ? round(delays.at(-1)!) : null,
      quietRunCrmCalls: typeof quietCrm.total === 'number' ? quietCrm.total : sum(quietCrm),
      quietRunCommerceCalls: quietCommerce.total ?? sum(quietCommerce.operations ?? {}),
    };
  } finally {
    await stack.stop();
  }
}

const services = await startServices('cosell');
const results: Awaited<ReturnType<typeof cosell>>[] = [];
try {
  for (const kind of crms) {
    const result = await cosell(kind, services);
    results.push(result);
    console.log(JSON.stringify(result));
  }
} finally {
  await services.stop();
}
console.log('');
console.log(`Co-sell, ${opportunities} shared opportunities per CRM, one co-sell run`);
for (const result of results) {
  console.log(`${result.crm.padEnd(12)} ${String(result.seconds).padStart(6)} s  ${result.referralsMade} referrals  commerce ${result.commerceCalls} calls (${result.commerceCallsPerOpportunity}/opp)  CRM ${result.crmCalls} calls (${result.crmCallsPerOpportunity}/opp)  delay p50 ${result.delayToReferralP50Seconds} s, max ${result.delayToReferralMaxSeconds} s`);
}
