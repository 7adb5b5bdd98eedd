// Benchmark: read every entitlement of a 10,000-entitlement commerce sandbox with the client, with and
// without injected faults. Prints one JSON line per scenario: records, seconds, rate, requests, memory.
import { createCommerceClient, sort } from '../commerce/index.ts';
import { startCommerceSandbox } from '../sandbox/commerce/index.ts';

const entitlements = Number(process.env.BENCH_ENTITLEMENTS ?? 10_000);
const sandbox = await startCommerceSandbox({ entitlements, seed: 1 });
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

async function scenario(name: string, faults?: Record<string, unknown>) {
  await fetch(`${sandbox.apiUrl}/_sandbox/reset`, { method: 'POST' });
  if (faults) await fetch(`${sandbox.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  let requests = 0;
  const client = createCommerceClient({
    baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, minRetryDelayMs: 5, maxRetryDelayMs: 50, retries: 10,
    fetch: (input, init) => { requests += 1; return fetch(input, init); },
  });
  const started = performance.now();
  let records = 0;
  for await (const page of client.entitlements.query(sandbox.organizationId, { s: sort({ field: 'id' }) })) records += page.records.length;
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ bench: 'commerce-paging', scenario: name, records, seconds: Number(seconds.toFixed(3)), recordsPerSecond: Math.round(records / seconds), requests, peakRssMB: Math.round(peakRss / 2 ** 20) }));
}

await scenario('clean');
await scenario('20% 429/500', { operation: '*', rate429: 0.1, rate500: 0.1, retryAfterSeconds: 0 });
clearInterval(sampler);
await sandbox.stop();
