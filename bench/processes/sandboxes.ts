// Benchmark child: the commerce and Salesforce sandboxes in a process of their own, so their memory
// (all generated records) is not counted as the worker's. Like `crm-sync sandbox`, minus the CLI's
// imports. Arguments: entitlements, seed. Ready info: the sandboxes' description (as that command's
// first stdout line).
import { startAllSandboxes } from '../../sandbox/start-all.ts';
import { failToDriver, serveDriver } from './ipc.ts';

try {
  const [entitlements = '10000', seed = '1'] = process.argv.slice(2);
  const sandboxes = await startAllSandboxes({ entitlements: Number(entitlements), seed: Number(seed) });
  serveDriver(sandboxes.description, () => sandboxes.stop());
} catch (error) {
  await failToDriver(error);
}
