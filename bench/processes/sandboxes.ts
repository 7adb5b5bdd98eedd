// Benchmark child: the commerce and Salesforce sandboxes in a process of their own, so their memory
// (all generated records) is not counted as the worker's. Like `crm-sync sandbox`, minus the CLI's
// imports. Arguments: entitlements, seed. Ready info: the sandboxes' description (as that command's
// first stdout line).
import { startAllSandboxes } from '../../sandbox/start-all.ts';
import { failToDriver, serveDriver } from './ipc.ts';

try {
  const [entitlements = '10000', seed = '1'] = process.argv.slice(2);
  // BENCH_DYNAMICS_OPERATION_MS: the Dataverse sandbox's server time per operation (default its realistic one).
  const dynamicsOperationMs = process.env.BENCH_DYNAMICS_OPERATION_MS === undefined ? undefined : Number(process.env.BENCH_DYNAMICS_OPERATION_MS);
  const sandboxes = await startAllSandboxes({ entitlements: Number(entitlements), seed: Number(seed), dynamicsOperationMs });
  serveDriver(sandboxes.description, () => sandboxes.stop());
} catch (error) {
  await failToDriver(error);
}
