// A fresh Salesforce sandbox org for each test of a describe block (stopped after it), reached with the
// integration user's jsforce connection: the setup tests start from an org with the project's metadata
// missing or deployed.
import type { Connection } from 'jsforce';
import { afterEach } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';

/** Call inside a describe: its `start` makes this test's org; each is stopped after its test. */
export function salesforceOrgPerTest(): { start(customMetadata: 'missing' | 'deployed'): Promise<{ conn: Connection; userId: string; sandbox: SalesforceSandbox }> } {
  let sandbox: SalesforceSandbox | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });
  return {
    async start(customMetadata) {
      sandbox = await startSalesforceSandbox({ customMetadata });
      const { conn } = await clientCredentialsConnection(sandbox);
      return { conn, userId: (await conn.identity()).user_id, sandbox };
    },
  };
}
