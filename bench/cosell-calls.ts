// Benchmark: what co-sell costs in calls per 100 shared Opportunities, on each side, for each CRM (issue
// #24 item 9's closing note). For each CRM in BENCH_CRMS (default all three): 400 entitlements synced
// (their buyers' Accounts, and the Opportunities of the offers), one co-sell run to clear what the data
// already holds, then BENCH_COSELL_SHARED (100) Opportunities shared as a seller's tool makes them, and:
// - `sharing`: the co-sell run that makes their referrals (counts reset just before);
// - `quietTick`: the next run, nothing new: every 30-second tick spends this while the shared
//   Opportunities and their write-backs are inside the look-back (600 s).
// Calls are counted by each sandbox (commerce GET /_sandbox/calls, the CRM's own counters). One JSON line
// per CRM. Run it on two checkouts to compare code (before/after).
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { CrmKind } from './crm-calls.ts';
import { startInProcessStack, startServices } from './processes/in-process-stack.ts';

const shared = Number(process.env.BENCH_COSELL_SHARED ?? 100);
const crms = (process.env.BENCH_CRMS ?? 'salesforce,hubspot,dynamics').split(',').map((kind) => kind.trim()) as CrmKind[];
const sum = (counts: Record<string, number>) => Object.entries(counts).filter(([name]) => name !== 'total').reduce((total, [, count]) => total + count, 0);

async function measure(kind: CrmKind, services: { postgresUrl: string; temporalAddress: string }) {
  const stack = await startInProcessStack(kind, services, { name: 'cosell_calls', entitlements: 400, seed: 29 });
  const { commerce, crm } = stack;
  const counted = async () => {
    const commerceCalls = (await (await fetch(`${commerce.apiUrl}/_sandbox/calls`)).json()) as { total?: number; operations?: Record<string, number> };
    const crmCalls = await crm.calls();
    return {
      crm: typeof crmCalls.total === 'number' ? crmCalls.total : sum(crmCalls),
      commerce: commerceCalls.total ?? sum(commerceCalls.operations ?? {}),
      crmByKind: Object.fromEntries(Object.entries(crmCalls).filter(([name, count]) => name !== 'total' && count > 0)),
    };
  };
  const reset = async () => {
    await fetch(`${commerce.apiUrl}/_sandbox/calls/reset`, { method: 'POST' });
    await crm.resetCalls();
  };
  try {
    await stack.run(WORKFLOW_TYPES.incrementalSync);
    await stack.run(WORKFLOW_TYPES.cosell);
    const accounts = await crm.accounts();
    await crm.createOpportunities(
      Array.from({ length: shared }, (_, i) => ({ name: `Calls ${i}`, accountId: accounts[i % accounts.length]!.id, stage: crm.openStage, closeDate: '2027-06-30', amount: 2000 + i, share: true, partner: 'Marketplace A' })),
    );
    await reset();
    const made = await stack.run(WORKFLOW_TYPES.cosell);
    const sharing = await counted();
    await reset();
    await stack.run(WORKFLOW_TYPES.cosell);
    const quietTick = await counted();
    return { bench: 'cosell-calls', crm: kind, shared, referralsMade: made.created, sharing, quietTick };
  } catch (error) {
    console.error(`cosell-calls on ${kind} failed:`, error);
    throw error;
  } finally {
    await stack.stop();
  }
}

const services = await startServices('cosell_calls');
try {
  for (const kind of crms) console.log(JSON.stringify(await measure(kind, services)));
} finally {
  await services.stop();
}
