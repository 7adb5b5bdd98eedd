// The commands a revenue-ops person runs for a HubSpot account, as processes against a real PostgreSQL,
// a real Temporal server and the sandboxes: `connect --crm hubspot` (both sides tested, the token taken
// from the environment), then `setup` creating the account's properties and pipelines, and again
// creating nothing.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';
import { connectionScheduleIds } from '../../temporal/sync-schedules.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const run = promisify(execFile);

describe('crm-sync connect and setup for HubSpot (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let hubspot: HubSpotSandbox;
  let env: NodeJS.ProcessEnv;
  let connectionId: string | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    commerce = await startCommerceSandbox({ entitlements: 10, seed: 5 });
    hubspot = await startHubSpotSandbox();
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      CRM_SYNC_SECRET_KEY: randomBytes(32).toString('base64'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      CRM_SYNC_TASK_QUEUE: `hubspot-cli-${Date.now()}`,
      CRM_SYNC_DEMO: 'off',
      CRM_SYNC_OUTPUT: 'json', // scripts' output; the table tests ask for human
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      COMMERCE_CLIENT_SECRET: commerce.clientSecret,
      HUBSPOT_ACCESS_TOKEN: hubspot.accessToken,
    };
  });
  afterAll(async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new Client({ connection });
    // The schedules `connect` made would run beside later tests: gone with this test.
    if (connectionId) for (const id of Object.values(connectionScheduleIds(connectionId))) await client.schedule.getHandle(id).delete().catch(() => {});
    await connection.close();
    await hubspot?.stop();
    await commerce?.stop();
    await database?.drop();
  });

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => run(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } });
  const connect = () =>
    cli([
      'connect', '--name', 'hubspot-acme', '--crm', 'hubspot', '--hubspot-url', hubspot.baseUrl, '--hubspot-portal-id', '4242',
      '--commerce-url', commerce.apiUrl, '--commerce-auth-url', commerce.authUrl, '--commerce-client-id', commerce.clientId, '--commerce-org', commerce.organizationId,
    ]);

  /** A HubSpot connection saved by the store itself, without connect's mapping check. */
  async function saveUnchecked(name: string, portal: HubSpotSandbox, crm: Record<string, unknown>) {
    const { createConnectionStore } = await import('../../store/connections.ts');
    const { SecretBox } = await import('../../store/secret-box.ts');
    const { connectionSettingsSchema } = await import('../../sync/connection-settings.ts');
    const store = createConnectionStore(database.pool, new SecretBox(Buffer.from(env.CRM_SYNC_SECRET_KEY!, 'base64')));
    const created = await store.create({
      name,
      crmKind: 'hubspot',
      settings: connectionSettingsSchema.parse({
        commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
        crm: { kind: 'hubspot', baseUrl: portal.baseUrl, auth: 'private-app', ...crm },
      }),
      secrets: { commerceClientSecret: commerce.clientSecret, crmAccessToken: portal.accessToken },
    });
    return { store, created };
  }

  it('setup creates what the sync needs and says so; a second run creates nothing; then connect saves the account', async () => {
    // Before setup the mapping check names what is missing, and nothing is saved.
    const refused = await connect().then(() => undefined, (error: { stderr: string }) => error);
    expect(refused?.stderr).toMatch(/HubSpot mapping: .*commerce_buyer_id/);

    // Setup needs a saved connection: one is saved without the check by the store (as an admin would
    // after `connect` names the missing properties), then setup runs against it.
    const { store, created } = await saveUnchecked('hubspot-acme', hubspot, { portalId: '4242' });

    const first = await cli(['setup', 'hubspot-acme'], { CRM_SYNC_OUTPUT: 'human' });
    // The custom object found in the account's schemas, its objectTypeId kept in the connection (API paths name it by that).
    expect(first.stdout).toContain('= marketplace_entitlement (custom object 2-1234567)');
    expect(first.stdout).toContain('+ deals property group "commerce"');
    expect(first.stdout).toContain('hubspot-acme now names the marketplace_entitlement custom object by its objectTypeId 2-1234567.');
    expect((await store.get(created.id))!.settings.crm).toMatchObject({ entitlementObject: 'marketplace_entitlement', entitlementObjectTypeId: '2-1234567' });
    // Independently listed: the id properties with unique values and both pipelines.
    for (const made of ['companies.commerce_buyer_id', 'contacts.commerce_contact_id', 'deals.commerce_offer_id', 'deals.commerce_referral_id', 'deals.cosell_share', 'marketplace_entitlement.commit_amount', 'deal pipeline "Marketplace offers"', 'deal pipeline "Co-sell referrals"']) {
      expect(first.stdout).toContain(`+ ${made}`);
    }
    const property = await (await fetch(`${hubspot.baseUrl}/crm/v3/properties/deals/commerce_offer_id`, { headers: { authorization: `Bearer ${hubspot.accessToken}` } })).json();
    expect(property).toMatchObject({ name: 'commerce_offer_id', hasUniqueValue: true });

    const second = await cli(['setup', 'hubspot-acme', '--json']);
    const report = JSON.parse(second.stdout);
    expect(report.created).toEqual([]);
    expect(report.problems).toEqual([]);
    expect(report.entitlementObject).toBe('marketplace_entitlement');

    // Now connect tests both sides and the mappings fit: the connection is saved (again) with its schedules.
    await control(hubspot, 'DELETE', '/calls');
    const saved = JSON.parse((await connect()).stdout.trim().split('\n').at(-1)!);
    connectionId = saved.connection;
    expect(saved).toMatchObject({ name: 'hubspot-acme', writesBack: true });
    expect(saved.schedule).toBeDefined();
    expect(Object.keys(connectionScheduleIds(saved.connection)).length).toBeGreaterThan(0);

    // edit keeps the private app's token (it is tested again before saving), with no variable set.
    const edited = await cli(['edit', 'hubspot-acme', '--every', '10m'], { HUBSPOT_ACCESS_TOKEN: '' });
    expect(JSON.parse(edited.stdout.trim().split('\n').at(-1)!)).toMatchObject({ name: 'hubspot-acme' });
  }, 120_000);

  it('setup with a token lacking the schemas scopes names the scope, exits 1 and leaves entitlements where they were (no switch to line items)', async () => {
    const scoped = await startHubSpotSandbox({ withheldScopes: ['crm.schemas.custom.read', 'crm.objects.custom.read'] });
    try {
      // Saved as a connection made before objectTypeIds were kept: entitlementObject only.
      const { store, created: saved } = await saveUnchecked('hubspot-scopes', scoped, { entitlementObject: 'marketplace_entitlement' });
      const failed = await cli(['setup', 'hubspot-scopes', '--json']).then(() => undefined, (error: { code: number; stdout: string }) => error);
      expect(failed?.code).toBe(4);
      const report = JSON.parse(failed!.stdout);
      expect(report.problems).toEqual([expect.stringContaining('the app lacks the scope crm.schemas.custom.read or crm.objects.custom.read')]);
      expect(report.notes).toEqual([]);
      expect((await store.get(saved.id))!.settings.crm).toMatchObject({ entitlementObject: 'marketplace_entitlement' });
      expect((await store.get(saved.id))!.settings.crm).not.toHaveProperty('entitlementObjectTypeId');
    } finally {
      await scoped.stop();
    }
  }, 60_000);

  it('a property of the wrong type is a problem setup names, and it changes nothing', async () => {
    // An account whose marketplace_status someone made a number before setup ran.
    const other = await startHubSpotSandbox();
    try {
      await fetch(`${other.baseUrl}/crm/v3/properties/companies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'marketplace_status', label: 'Status', type: 'number', fieldType: 'number', groupName: 'companyinformation' }),
      });
      const { setUpHubSpot } = await import('../../crm/hubspot/setup.ts');
      const report = await setUpHubSpot({ baseUrl: other.baseUrl, accessToken: other.accessToken });
      expect(report.problems).toEqual(['companies.marketplace_status exists as a number property; the sync writes it as string: change or rename it in HubSpot']);
      expect(report.created).not.toContain('companies.marketplace_status');
    } finally {
      await other.stop();
    }
  });
});
