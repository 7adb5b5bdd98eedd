// Demo mode of `crm-sync start`: the sandboxes (a changing commerce organization and a Salesforce org)
// and one connection between them, kept in step by the ordinary schedules. The sandboxes keep their
// data in journals under <data dir>/sandboxes, so a restart (even after SIGKILL) finds the same org
// and the sync resumes from its cursors and record links. Only when the demo Salesforce org starts
// empty (first start, or its journal removed) are the demo connection's links and cursors forgotten.
// Co-sell moves both ways: sellers share Opportunities, share existing ones and ask for private-offer
// drafts (the Salesforce sandbox's change driver), and the partner moves referrals on and sends its own
// (demo-partner.ts); the connection's co-sell schedule runs every 30 seconds.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { startDemoPartner } from './demo-partner.ts';
import { startAllSandboxes, type Sandboxes } from '../sandbox/start-all.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { createCursorStore } from '../store/cursors.ts';
import { createRecordLinkStore } from '../store/record-links.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import type pg from 'pg';

export const DEMO_CONNECTION_NAME = 'demo';

/** Sellers at work: one change every five seconds (new shared deals, shares, draft requests, stage moves). */
const SELLER_CHANGES_PER_SECOND = 0.2;
/** The partner: one move (a stage on, or an inbound referral) every 15 seconds while the sellers work. */
const PARTNER_MOVE_EVERY_SECONDS = 15;

export type DemoSandboxes = Sandboxes & { resumed: boolean };

export async function startDemoSandboxes(config: AppConfig, logger: Logger): Promise<DemoSandboxes> {
  const journals = ['commerce.jsonl', 'salesforce.jsonl'].map((name) => path.join(config.dataDir, 'sandboxes', name));
  const resumed = journals.every((file) => existsSync(file));
  const sandboxes = await startAllSandboxes({ entitlements: 1000, seed: 1, changesPerSecond: 0.2, salesforceChangesPerSecond: SELLER_CHANGES_PER_SECOND, salesforceSeed: 1, dataDir: config.dataDir });
  // First stdout line, as `crm-sync sandbox` prints it; also kept in the data directory for scripts.
  const line = JSON.stringify(sandboxes.description);
  process.stdout.write(`${line}\n`);
  writeFileSync(path.join(config.dataDir, 'sandboxes.json'), `${line}\n`, { mode: 0o600 });
  logger.info({ commerce: sandboxes.commerce.apiUrl, salesforce: sandboxes.salesforce.instanceUrl, resumed }, resumed ? 'Demo sandboxes running on their saved data' : 'Demo sandboxes running on fresh data');
  const stopPartner = startDemoPartner({
    commerceControlUrl: sandboxes.description.commerce!.controlUrl!,
    salesforceControlUrl: sandboxes.description.salesforce!.controlUrl!,
    everySeconds: PARTNER_MOVE_EVERY_SECONDS,
    logger,
  });
  return {
    ...sandboxes,
    resumed,
    async stop() {
      stopPartner();
      await sandboxes.stop();
    },
  };
}

export async function ensureDemoConnection(pool: pg.Pool, connections: ConnectionStore, sandboxes: DemoSandboxes): Promise<string> {
  const settings = connectionSettingsSchema.parse({
    commerce: { baseUrl: sandboxes.commerce.apiUrl, authUrl: sandboxes.commerce.authUrl, clientId: sandboxes.commerce.clientId, organizationId: sandboxes.commerce.organizationId },
    crm: { loginUrl: sandboxes.salesforce.loginUrl, clientId: sandboxes.salesforce.clientId },
    schedule: { every: '1m', realtimeEvery: '15s', lookbackSeconds: 0, pageSize: 500, cosellEvery: '30s' },
  });
  const secrets = { commerceClientSecret: sandboxes.commerce.clientSecret, crmClientSecret: sandboxes.salesforce.clientSecret };
  const existing = (await connections.list()).find((connection) => connection.name === DEMO_CONNECTION_NAME);
  const unchanged = existing && JSON.stringify(connectionSettingsSchema.parse(existing.settings)) === JSON.stringify(settings);
  // Saved again only when the sandboxes moved (another port): an unchanged row keeps the workers' cached sessions.
  const saved = unchanged ? existing : existing ? await connections.update(existing.id, { settings, secrets }) : await connections.create({ name: DEMO_CONNECTION_NAME, crmKind: 'salesforce', settings, secrets });
  if (!sandboxes.resumed) {
    // Fresh sandboxes: what the links and cursors remember is gone on the other side.
    await createRecordLinkStore(pool).forget(saved.id);
    await createCursorStore(pool).reset(saved.id);
  }
  return saved.id;
}
