// Benchmark: one initial sync of a commerce organization with 10,000 entitlements (and their buyers,
// contacts, offers and referrals) into the HubSpot sandbox at HubSpot's own limits (190 calls per ten
// seconds, 650,000 a day), through the real workflow on a local Temporal dev server and an embedded
// PostgreSQL. HubSpot's daily limit is the real ceiling, so this prints the calls it took, by kind,
// against the fewest the batch sizes allow (100 records per batch upsert, 2,000 associations per batch),
// and calls per 10,000 entitlements synced. One JSON line. BENCH_ENTITLEMENTS (default 10000).
import { WORKFLOW_TYPES } from '../workflows/names.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { startBenchStack, type BenchStack } from './processes/stack.ts';

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 10_000);

let stack: BenchStack | undefined;
try {
  stack = await startBenchStack({ name: 'bench-hubspot', entitlements, secretKey: Buffer.alloc(32, 1), crm: 'hubspot' });
  const { commerce, hubspot, connectionId, taskQueue, client } = stack;
  await fetch(`${commerce.controlUrl}/calls/reset`, { method: 'POST' });
  await fetch(`${hubspot.controlUrl}/calls`, { method: 'DELETE' });
  const started = performance.now();
  const result: SyncProgress = await stack.alive(client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId: `bench-hubspot-${Date.now()}`, args: [{ connectionId }] }));
  const seconds = (performance.now() - started) / 1000;
  const calls = (await (await fetch(`${hubspot.controlUrl}/calls`)).json()) as Record<string, number>;
  const associations = (await (await fetch(`${hubspot.controlUrl}/associations`)).json()) as { fromType: string; fromId: string; toType: string; toId: string }[];
  const records = Object.fromEntries(Object.entries(result.entities).map(([entity, progress]) => [entity, progress!.created + progress!.updated]));
  // The fewest calls the batch sizes allow: one upsert per 100 records of each entity, and one batch per
  // 2,000 associations of each (from, to) pair made (each association is stored both ways: counted once).
  const pairs = new Map<string, number>();
  for (const a of associations) if (a.fromType < a.toType || a.fromType === 'deals') pairs.set(`${a.fromType}>${a.toType}`, (pairs.get(`${a.fromType}>${a.toType}`) ?? 0) + 1);
  const minimumUpserts = Object.values(records).reduce((sum, count) => sum + Math.ceil(count / 100), 0);
  const total = calls.total ?? 0;
  const writes = Object.entries(calls).filter(([kind]) => /batch\.(upsert|update|create|default)/.test(kind)).reduce((sum, [, count]) => sum + count, 0);
  console.log(
    JSON.stringify({
      bench: 'hubspot-initial-sync',
      entitlements,
      seconds: Number(seconds.toFixed(2)),
      recordsWritten: records,
      failed: result.totals.failed,
      hubspotCalls: calls,
      hubspotWriteCalls: writes,
      minimumUpsertCalls: minimumUpserts,
      callsPer10000Entitlements: Math.round((total * 10_000) / entitlements),
      // The record writes alone (upserts) against their floor; associations and reads come on top.
      upsertCalls: Object.entries(calls).filter(([kind]) => /batch\.upsert/.test(kind)).reduce((sum, [, count]) => sum + count, 0),
    }),
  );
} finally {
  await stack?.stop();
}
