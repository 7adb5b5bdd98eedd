// The commands a revenue-ops person runs for a Dynamics 365 environment, as processes against a real
// PostgreSQL, a real Temporal server and the sandboxes: `connect --crm dynamics` (both sides tested, the
// app's secret taken from the environment; before setup the mapping check names what is missing), then
// `setup` creating the environment's tables, columns, lookups and keys, and again creating nothing.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DynamicsWebApi } from 'dynamics-web-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { connectionScheduleIds } from '../../temporal/sync-schedules.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const run = promisify(execFile);

describe('crm-sync connect and setup for Dynamics 365 (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let dynamics: DynamicsSandbox;
  let env: NodeJS.ProcessEnv;
  let connectionId: string | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    commerce = await startCommerceSandbox({ entitlements: 10, seed: 5 });
    dynamics = await startDynamicsSandbox();
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      CRM_SYNC_SECRET_KEY: randomBytes(32).toString('base64'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      CRM_SYNC_TASK_QUEUE: `dynamics-cli-${Date.now()}`,
      CRM_SYNC_DEMO: 'off',
      CRM_SYNC_OUTPUT: 'json', // scripts' output; the table tests ask for human
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      COMMERCE_CLIENT_SECRET: commerce.clientSecret,
      DYNAMICS_CLIENT_SECRET: dynamics.clientSecret,
    };
  });
  afterAll(async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new Client({ connection });
    // The schedules `connect` made would run beside later tests: gone with this test.
    if (connectionId) for (const id of Object.values(connectionScheduleIds(connectionId))) await client.schedule.getHandle(id).delete().catch(() => {});
    await connection.close();
    await dynamics?.stop();
    await commerce?.stop();
    await database?.drop();
  });

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => run(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } });
  const connect = (extraEnv: NodeJS.ProcessEnv = {}) =>
    cli(
      [
        'connect', '--name', 'dynamics-acme', '--crm', 'dynamics', '--dynamics-url', dynamics.orgUrl, '--dynamics-authority', dynamics.authority,
        '--dynamics-tenant-id', dynamics.tenantId, '--dynamics-client-id', dynamics.clientId,
        '--commerce-url', commerce.apiUrl, '--commerce-auth-url', commerce.authUrl, '--commerce-client-id', commerce.clientId, '--commerce-org', commerce.organizationId,
      ],
      extraEnv,
    );

  it("a wrong client secret is refused with Microsoft's message, naming the CRM side, and nothing is saved", async () => {
    const refused = await connect({ DYNAMICS_CLIENT_SECRET: 'not-the-secret' }).then(() => undefined, (error: { stderr: string }) => error);
    expect(refused?.stderr).toMatch(/AADSTS7000215/);
    expect(refused?.stderr).not.toContain(dynamics.clientSecret);
    expect((await database.pool.query('SELECT count(*)::int AS n FROM connections')).rows[0].n).toBe(0);
  });

  it('setup creates what the sync needs and says so; a second run creates nothing; then connect saves the environment', async () => {
    // Before setup the mapping check names what is missing, and nothing is saved.
    const missing = await connect().then(() => undefined, (error: { stderr: string }) => error);
    expect(missing?.stderr).toMatch(/ccs_commercebuyerid|ccs_marketplaceentitlement/);

    // Setup needs a saved connection: one is saved by the store (as an admin would after `connect`
    // named what is missing), then setup runs against it.
    const { createConnectionStore } = await import('../../store/connections.ts');
    const { SecretBox } = await import('../../store/secret-box.ts');
    const { connectionSettingsSchema } = await import('../../sync/connection-settings.ts');
    const store = createConnectionStore(database.pool, new SecretBox(Buffer.from(env.CRM_SYNC_SECRET_KEY!, 'base64')));
    await store.create({
      name: 'dynamics-acme',
      crmKind: 'dynamics',
      settings: connectionSettingsSchema.parse({
        commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
        crm: { kind: 'dynamics', orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId },
      }),
      secrets: { commerceClientSecret: commerce.clientSecret, crmClientSecret: dynamics.clientSecret },
    });

    const first = await cli(['setup', 'dynamics-acme'], { CRM_SYNC_OUTPUT: 'human' });
    // Independently listed: the custom tables, key columns, lookups and alternate keys.
    for (const made of [
      'table ccs_marketplaceentitlement',
      'table ccs_cosellreferral',
      'table ccs_opportunitycontact',
      'account.ccs_commercebuyerid',
      'contact.ccs_commercecontactid',
      'opportunity.ccs_commerceofferid',
      'opportunity.ccs_cosellshare',
      'ccs_marketplaceentitlement.ccs_commitamount',
      'ccs_marketplaceentitlement.ccs_opportunityid -> opportunity',
      'account alternate key ccs_commercebuyerid_key (ccs_commercebuyerid)',
    ]) {
      expect(first.stdout).toContain(`+ ${made}`);
    }
    // What Dataverse itself now says, read with the client a Dynamics admin would use.
    const token: any = await (await fetch(dynamics.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: dynamics.clientId, client_secret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` }) })).json();
    const admin = new DynamicsWebApi({ serverUrl: dynamics.orgUrl, onTokenRefresh: async () => token.access_token });
    const account = await admin.retrieveEntity({ key: "LogicalName='account'", select: ['LogicalName'], expand: [{ property: 'Keys' }] });
    expect(account.Keys.map((key: { KeyAttributes: string[] }) => key.KeyAttributes)).toContainEqual(['ccs_commercebuyerid']);

    const second = await cli(['setup', 'dynamics-acme', '--json']);
    const report = JSON.parse(second.stdout);
    expect(report.created).toEqual([]);
    expect(report.problems).toEqual([]);

    // Now connect tests both sides and the mappings fit: the connection is saved with its schedules.
    const saved = JSON.parse((await connect()).stdout.trim().split('\n').at(-1)!);
    connectionId = saved.connection;
    expect(saved).toMatchObject({ name: 'dynamics-acme', writesBack: true });
    expect(Object.keys(connectionScheduleIds(saved.connection)).length).toBeGreaterThan(0);
    const listed = JSON.parse((await cli(['connections'])).stdout);
    expect(JSON.stringify(listed)).not.toContain(dynamics.clientSecret);

    // edit takes a new app secret from DYNAMICS_CLIENT_SECRET and tests it before saving: a wrong one is
    // refused with Microsoft's message and the saved one stays; without the variable the saved one is used.
    const wrong = await cli(['edit', 'dynamics-acme', '--every', '10m'], { DYNAMICS_CLIENT_SECRET: 'rotated-but-wrong' }).then(() => undefined, (error: { stderr: string }) => error);
    expect(wrong?.stderr).toMatch(/AADSTS7000215/);
    const kept = await cli(['edit', 'dynamics-acme', '--every', '10m'], { DYNAMICS_CLIENT_SECRET: '' });
    expect(JSON.parse(kept.stdout.trim().split('\n').at(-1)!)).toMatchObject({ name: 'dynamics-acme' });
  }, 120_000);

  it('a column of the wrong type is a problem setup names, and it changes nothing', async () => {
    const other = await startDynamicsSandbox();
    try {
      const token: any = await (await fetch(other.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: other.clientId, client_secret: other.clientSecret, scope: `${new URL(other.orgUrl).origin}/.default` }) })).json();
      const admin = new DynamicsWebApi({ serverUrl: other.orgUrl, onTokenRefresh: async () => token.access_token });
      // An environment whose account.ccs_marketplacestatus someone made a whole number before setup ran.
      await admin.createAttribute({
        entityKey: "LogicalName='account'",
        data: { '@odata.type': 'Microsoft.Dynamics.CRM.IntegerAttributeMetadata', AttributeType: 'Integer', AttributeTypeName: { Value: 'IntegerType' }, SchemaName: 'ccs_marketplacestatus', DisplayName: { LocalizedLabels: [{ Label: 'Status', LanguageCode: 1033 }] }, RequiredLevel: { Value: 'None' }, Format: 'None', MinValue: 0, MaxValue: 10 },
      });
      const { setUpDynamics } = await import('../../crm/dynamics/setup.ts');
      const report = await setUpDynamics({ orgUrl: other.orgUrl, credentials: { authority: other.authority, tenantId: other.tenantId, clientId: other.clientId, clientSecret: other.clientSecret, scope: `${new URL(other.orgUrl).origin}/.default` } });
      expect(report.problems).toEqual(['account.ccs_marketplacestatus exists as a column of type Integer; the sync writes it as String: change or rename it in Dataverse']);
      expect(report.created).not.toContain('account.ccs_marketplacestatus');
    } finally {
      await other.stop();
    }
  });
});
