// `crm-sync sandbox`: runs the local sandboxes on loopback for the demo and for manual testing. The
// first stdout line is one JSON object with everything a client needs (URLs and credentials); logs go
// to stderr. Runs until SIGINT or SIGTERM, then stops cleanly.
import { startCommerceSandbox } from '../sandbox/commerce/index.ts';

export type SandboxCommandOptions = {
  host?: string;
  commercePort?: number;
  commerceAuthPort?: number;
  seed?: number;
  entitlements?: number;
  changesPerSecond?: number;
};

export async function sandboxCommand(options: SandboxCommandOptions): Promise<void> {
  const commerce = await startCommerceSandbox({
    host: options.host ?? '127.0.0.1',
    apiPort: options.commercePort ?? 0,
    authPort: options.commerceAuthPort ?? 0,
    seed: options.seed,
    entitlements: options.entitlements,
    changesPerSecond: options.changesPerSecond,
  });
  const description = {
    commerce: {
      apiUrl: commerce.apiUrl,
      authUrl: commerce.authUrl,
      tokenUrl: `${commerce.authUrl}/oauth2/token`,
      organizationId: commerce.organizationId,
      clientId: commerce.clientId,
      clientSecret: commerce.clientSecret,
      controlUrl: `${commerce.apiUrl}/_sandbox`,
    },
  };
  process.stdout.write(`${JSON.stringify(description)}\n`);
  process.stderr.write(`Commerce sandbox: API ${commerce.apiUrl}, token ${description.commerce.tokenUrl}, controls ${description.commerce.controlUrl}. Ctrl-C stops.\n`);

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
  await commerce.stop();
}
