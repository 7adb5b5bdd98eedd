// `crm-sync sandbox`: runs the local sandboxes on loopback for the demo and for manual testing. The
// first stdout line is one JSON object with everything a client needs (URLs and credentials); logs go
// to stderr. Runs until SIGINT or SIGTERM, then stops cleanly.
import { startAllSandboxes, type SandboxesOptions } from '../sandbox/start-all.ts';
import { UsageError } from './exit-codes.ts';

/** The flag that chose each port, to name in "port N is in use". */
const PORT_FLAGS = { commercePort: '--commerce-port', commerceAuthPort: '--commerce-auth-port', salesforcePort: '--salesforce-port' } as const;

export async function sandboxCommand(options: SandboxesOptions): Promise<void> {
  // As the demo starts them: the CRM sandboxes hold every currency the commerce catalogue prices in.
  const sandboxes = await startAllSandboxes({ catalogueCurrencies: true, ...options }).catch((error: unknown) => {
    throw portInUse(error, options) ?? error;
  });
  process.stdout.write(`${JSON.stringify(sandboxes.description)}\n`);
  process.stderr.write(
    `Commerce sandbox: API ${sandboxes.commerce.apiUrl}, controls ${sandboxes.description.commerce!.controlUrl}. ` +
      `Salesforce sandbox: ${sandboxes.salesforce.instanceUrl}. HubSpot sandbox: ${sandboxes.hubspot.baseUrl}. Dynamics sandbox: ${sandboxes.dynamics.orgUrl}. Ctrl-C stops.\n`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (received: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(received);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  process.stderr.write(`${signal} received: stopping the sandboxes\n`);
  await sandboxes.stop();
}

/** A port another program holds, as a usage error naming the flag that chose it; undefined for any other error. */
function portInUse(error: unknown, options: SandboxesOptions): UsageError | undefined {
  const { code, port } = error as { code?: string; port?: number };
  if (code !== 'EADDRINUSE') return undefined;
  const flag = Object.entries(PORT_FLAGS).find(([option]) => port !== undefined && options[option as keyof typeof PORT_FLAGS] === port)?.[1];
  return new UsageError(`port ${port} is in use: ${flag ? `choose another with ${flag}` : 'stop what holds it, or choose other ports with --commerce-port, --commerce-auth-port and --salesforce-port'} (0: any free port)`);
}
