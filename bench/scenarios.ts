// Benchmark scenarios per CRM (issue #14): for each CRM sandbox in BENCH_CRMS (default all three), a
// stack of its own (sandboxes and worker in processes of their own, a local Temporal dev server, an
// embedded PostgreSQL) and BENCH_ENTITLEMENTS (default 100,000; about 10 minutes each for Salesforce and
// HubSpot on two cores, about two hours for Dynamics at Dataverse's server time per operation, or 30
// minutes with BENCH_DYNAMICS_OPERATION_MS=5) entitlements with their buyers, contacts, offers and referrals:
//   backfill      the initial sync: seconds, records per second, CRM write requests against the floor the
//                 batch size allows, records per write request, commerce calls, the worker's peak RSS,
//                 Temporal history events per 10,000 records; then, with the stack down, the plain
//                 baseline (bench/processes/baseline.ts) on the same data: throughputVsBaseline;
//   noop          the same data again, nothing changed: CRM calls (target 0), commerce calls, seconds;
//   changed-1pct  1% of the entitlements' worth of commerce changes, then one incremental run: CRM write
//                 requests against the floor, seconds;
//   usage-day     1% of the entitlements' worth of usage changes (a group not reported yet on a day of a
//                 metered entitlement), then one incremental run: usage write requests against their own
//                 floor, seconds;
//   memory        the worker's peak RSS over a backfill of 10,000 entitlements (a stack of its own) beside
//                 the one above: workerPeakRssMb10k, workerPeakRssMb100k and their ratio.
// Every pass includes usage (issue #25 section 4): the connection syncs the days of usage of the metered
// entitlements (1% of the active ones, A16) and their summaries on the entitlements, so the backfill's
// memory and write requests include them, and its floor counts them as entities of their own.
// One JSON object per scenario and CRM on stdout, each figure beside its target where it has one, then
// a readable summary table.
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { CRM_CALLS, readCalls, resetCalls, writeFloor, type CrmKind } from './crm-calls.ts';
import { ENTITIES, type Entity } from '../mappings/types.ts';
import path from 'node:path';
import type { BaselineResult } from './processes/baseline.ts';
import { startChild } from './processes/ipc.ts';
import { prepareCrm, startBenchStack, type BenchStack, type SandboxesDescription } from './processes/stack.ts';

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 100_000);
const crms = (process.env.BENCH_CRMS ?? 'salesforce,hubspot,dynamics').split(',').map((kind) => kind.trim()) as CrmKind[];
// BENCH_SCENARIOS=noop (a list): only those after the backfill they need, no baseline or memory stack (a quick look at one figure).
const only = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
const wanted = (scenario: string) => !only || only.includes(scenario);
// The kinds of change that move existing records (1% of the entitlements' worth), as sellers' and buyers' days do.
const CHANGE_KINDS = ['entitlementStatus', 'termUsage', 'renewal', 'offerStatus', 'referralStage', 'usage'];
/** The default entities and usage: the days of usage and their summaries on the entitlements (BENCH_USAGE=0: without, to compare). */
const withUsage = process.env.BENCH_USAGE !== '0';
const BENCH_SETTINGS = { entities: [...ENTITIES, ...(withUsage ? (['usage', 'usage-summary'] as const) : [])] satisfies Entity[] };
const USAGE_FLOWS = ['usage', 'usage-summary'];

type Result = Record<string, unknown> & { crm: CrmKind; scenario: string };
const results: Result[] = [];
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const written = (progress: SyncProgress) => Object.fromEntries(Object.entries(progress.entities).map(([entity, counts]) => [entity, counts!.created + counts!.updated]));

/** Write requests against the floor the batch size allows (target 1.05x where issue #14 sets one: HubSpot and Dynamics). */
function writeFigures(kind: CrmKind, calls: Record<string, number>, records: Record<string, number>) {
  const crmWriteRequests = CRM_CALLS[kind].writeRequests(calls);
  const writeRequestFloor = writeFloor(kind, records, calls);
  return {
    crmWriteRequests,
    writeRequestFloor,
    writeRequestsVsFloor: round(crmWriteRequests / Math.max(1, writeRequestFloor)),
    ...(kind !== 'salesforce' && { writeRequestsVsFloorTarget: 1.05 }),
  };
}

function emit(result: Result) {
  results.push(result);
  console.log(JSON.stringify(result));
}

async function measure(stack: BenchStack, kind: CrmKind, controlUrl: string, label: string) {
  await fetch(`${stack.commerce.controlUrl}/calls/reset`, { method: 'POST' });
  await resetCalls(kind, controlUrl);
  const workflowId = `bench-${label}-${kind}-${Date.now()}`;
  const started = performance.now();
  const progress: SyncProgress = await stack.alive(stack.client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue: stack.taskQueue, workflowId, args: [{ connectionId: stack.connectionId }] }));
  const seconds = (performance.now() - started) / 1000;
  const crmCalls = await readCalls(controlUrl);
  const commerceCalls = (await (await fetch(`${stack.commerce.controlUrl}/calls`)).json()) as { total?: number };
  return { progress, seconds, crmCalls, commerceCalls: commerceCalls.total ?? 0, workflowId };
}

/** History events of every run of a workflow (a long one continues as new), as Temporal stored them. */
async function historyEvents(stack: BenchStack, workflowId: string): Promise<number> {
  let runs = 0;
  let events = 0;
  // Visibility lags the runs a little: read until two reads agree.
  for (let attempt = 0; attempt < 20; attempt += 1) {
    let seen = 0;
    let total = 0;
    for await (const run of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      seen += 1;
      total += (await stack.client.workflow.getHandle(workflowId, run.runId).describe()).historyLength;
    }
    if (seen > 0 && seen === runs && total === events) break;
    runs = seen;
    events = total;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return events;
}

/** The plain baseline (bench/processes/baseline.ts) on sandboxes of its own holding the same data. */
async function baseline(kind: CrmKind) {
  const sandboxes = await startChild<SandboxesDescription>(path.join(import.meta.dirname, 'processes', 'sandboxes.ts'), { args: [String(entitlements), '1'] });
  try {
    await prepareCrm(sandboxes.info, kind);
    const controlUrl = sandboxes.info[kind].controlUrl;
    await resetCalls(kind, controlUrl);
    const child = await sandboxes.whileAlive(startChild<BaselineResult>(path.join(import.meta.dirname, 'processes', 'baseline.ts'), { env: { BENCH_BASELINE: JSON.stringify({ sandboxes: sandboxes.info, kind, settings: BENCH_SETTINGS }) } }));
    const memory = await child.stop();
    const calls = await readCalls(controlUrl);
    const recordsWritten = Object.values(child.info.recordsWritten).reduce((sum, count) => sum + count, 0);
    return { ...child.info, recordsWritten, recordsPerSecond: recordsWritten / child.info.seconds, crmWriteRequests: CRM_CALLS[kind].writeRequests(calls), peakRssMb: memory.maxRssMB };
  } finally {
    sandboxes.kill();
  }
}

async function scenarios(kind: CrmKind) {
  let stack: BenchStack | undefined;
  let backfillResult: Result | undefined;
  try {
    stack = await startBenchStack({ name: `bench-scenarios-${kind}`, entitlements, secretKey: Buffer.alloc(32, 3), crm: kind, settings: BENCH_SETTINGS });
    const controlUrl = stack[kind].controlUrl;

    await stack.worker.mark();
    const backfill = await measure(stack, kind, controlUrl, 'backfill');
    const memory = await stack.worker.report();
    const records = written(backfill.progress);
    const recordsWritten = Object.values(records).reduce((sum, count) => sum + count, 0);
    const writes = writeFigures(kind, backfill.crmCalls, records);
    const events = await historyEvents(stack, backfill.workflowId);
    backfillResult = {
      bench: 'scenarios',
      crm: kind,
      scenario: 'backfill',
      entitlements,
      seconds: round(backfill.seconds),
      recordsWritten,
      recordsWrittenByEntity: records,
      recordsPerSecond: round(recordsWritten / backfill.seconds, 0),
      failed: backfill.progress.totals.failed,
      ...writes,
      // The usage pass's share: its records and the floor they add (each flow written apart).
      usageRecordsWritten: Object.fromEntries(USAGE_FLOWS.map((flow) => [flow, records[flow] ?? 0])),
      usageWriteRequestFloor: writeFloor(kind, Object.fromEntries(USAGE_FLOWS.map((flow) => [flow, records[flow] ?? 0]))),
      ...(kind === 'salesforce' && { recordsPerWriteRequest: round(recordsWritten / Math.max(1, writes.crmWriteRequests), 1), recordsPerWriteRequestTarget: 500 }),
      crmCalls: backfill.crmCalls.total,
      crmCallsByKind: backfill.crmCalls,
      // The worker process (its own): the kernel's high-water mark over its life, and during the backfill.
      workerPeakRssMb: memory.maxRssMB,
      workerBackfillPeakRssMb: memory.phasePeakRssMB,
      workerPeakRssMbTarget100k: 400,
      commerceCalls: backfill.commerceCalls,
      historyEvents: events,
      historyEventsPer10kRecords: round((events / Math.max(1, recordsWritten)) * 10_000, 0),
    };

    const noop = await measure(stack, kind, controlUrl, 'noop');
    emit({
      bench: 'scenarios',
      crm: kind,
      scenario: 'noop',
      entitlements,
      seconds: round(noop.seconds),
      recordsRead: noop.progress.totals.records,
      recordsReadByEntity: Object.fromEntries(Object.entries(noop.progress.entities).map(([entity, counts]) => [entity, counts!.records])),
      recordsWritten: noop.progress.totals.created + noop.progress.totals.updated,
      noopCrmCalls: noop.crmCalls.total,
      noopCrmCallsTarget: 0,
      commerceCalls: noop.commerceCalls,
    });

    const changes = Math.max(1, Math.round(entitlements / 100));
    if (wanted('changed-1pct') || wanted('usage-day')) {
      await fetch(`${stack.commerce.controlUrl}/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: changes, kinds: CHANGE_KINDS }) });
      const changed = await measure(stack, kind, controlUrl, 'changed');
      const changedRecords = written(changed.progress);
      emit({
        bench: 'scenarios',
        crm: kind,
        scenario: 'changed-1pct',
        entitlements,
        changes,
        seconds: round(changed.seconds),
        recordsWritten: changedRecords,
        ...writeFigures(kind, changed.crmCalls, changedRecords),
        crmCalls: changed.crmCalls.total,
        commerceCalls: changed.commerceCalls,
      });

      // Usage alone: a day of usage changes on 1% of the entitlements' worth of days; only those days are written.
      if (withUsage) await fetch(`${stack.commerce.controlUrl}/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: changes, kinds: ['usage'] }) });
      const usage = withUsage ? await measure(stack, kind, controlUrl, 'usage') : undefined;
      const usageRecords = usage ? written(usage.progress) : {};
      if (usage) emit({
        bench: 'scenarios',
        crm: kind,
        scenario: 'usage-day',
        entitlements,
        changes,
        seconds: round(usage.seconds),
        recordsWritten: usageRecords,
        ...writeFigures(kind, usage.crmCalls, usageRecords),
        crmCalls: usage.crmCalls.total,
        commerceCalls: usage.commerceCalls,
      });
    }
  } finally {
    await stack?.stop();
  }
  if (!wanted('baseline')) return void emit(backfillResult!);
  // The baseline runs after the stack is down, on the same machine, so neither slows the other.
  const plain = await baseline(kind);
  const ours = backfillResult!.recordsPerSecond as number;
  emit({
    ...backfillResult!,
    baselineSeconds: round(plain.seconds),
    baselineRecordsWritten: plain.recordsWritten,
    baselineRecordsPerSecond: round(plain.recordsPerSecond, 0),
    baselineCrmWriteRequests: plain.crmWriteRequests,
    baselinePeakRssMb: plain.peakRssMb,
    throughputVsBaseline: round(ours / plain.recordsPerSecond),
    throughputVsBaselineTarget: 0.5,
  });
}

/** The worker's peak RSS over a backfill of `count` entitlements, on a stack of its own. */
async function workerPeakRss(kind: CrmKind, count: number): Promise<number> {
  const stack = await startBenchStack({ name: `bench-memory-${kind}`, entitlements: count, secretKey: Buffer.alloc(32, 4), crm: kind, settings: BENCH_SETTINGS });
  try {
    await stack.worker.mark();
    await measure(stack, kind, stack[kind].controlUrl, 'memory');
    return (await stack.worker.report()).maxRssMB;
  } finally {
    await stack.stop();
  }
}

/** Memory at 10,000 entitlements beside the backfill's (100,000 by default): the level and the growth. */
async function memoryScenario(kind: CrmKind) {
  const backfill = results.find((result) => result.crm === kind && result.scenario === 'backfill');
  const atN = backfill?.workerPeakRssMb as number;
  const at10k = entitlements === 10_000 ? atN : await workerPeakRss(kind, 10_000);
  const large = entitlements === 100_000 ? 'workerPeakRssMb100k' : `workerPeakRssMbAt${entitlements}`;
  emit({
    bench: 'scenarios',
    crm: kind,
    scenario: 'memory',
    workerPeakRssMb10k: at10k,
    ...(entitlements !== 10_000 && { [large]: atN, rssGrowth100kVs10k: round(atN / at10k), rssGrowth100kVs10kTarget: 1.5 }),
    workerPeakRssMb100kTarget: 400,
  });
}

for (const kind of crms) {
  await scenarios(kind);
  if (wanted('memory')) await memoryScenario(kind);
}

// The readable summary, after the JSON lines.
const row = (cells: (string | number)[]) => cells.map((cell, index) => String(cell).padEnd([14, 12, 10, 12, 12, 10, 10][index] ?? 10)).join('');
console.log('');
console.log(`Scenarios, ${entitlements} entitlements per CRM`);
console.log(row(['scenario', 'crm', 'seconds', 'records/s', 'write req', 'floor', 'CRM calls']));
for (const result of results) {
  if (result.scenario === 'memory') continue;
  console.log(row([result.scenario, result.crm, String(result.seconds), String(result.recordsPerSecond ?? '-'), String(result.crmWriteRequests ?? '-'), String(result.writeRequestFloor ?? '-'), String(result.noopCrmCalls ?? result.crmCalls ?? '-')]));
}
console.log('');
console.log(row(['memory', 'crm', '10k MB', `${entitlements / 1000}k MB`, 'growth']));
for (const result of results.filter((candidate) => candidate.scenario === 'memory')) {
  const large = Object.entries(result).find(([key]) => key.startsWith('workerPeakRssMbAt') || key === 'workerPeakRssMb100k')?.[1];
  console.log(row(['', result.crm, String(result.workerPeakRssMb10k), String(large ?? '-'), String(result.rssGrowth100kVs10k ?? '-')]));
}
