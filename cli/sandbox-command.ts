// `crm-sync sandbox`: runs the local sandboxes on loopback for the demo and for manual testing. The
// first stdout line is one JSON object with everything a client needs (URLs and credentials); logs go
// to stderr. Runs until SIGINT or SIGTERM, then stops cleanly.
import { startAllSandboxes, type SandboxesOptions } from '../sandbox/start-all.ts';

export async function sandboxCommand(options: SandboxesOptions): Promise<void> {
  const sandboxes = await startAllSandboxes(options);
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
