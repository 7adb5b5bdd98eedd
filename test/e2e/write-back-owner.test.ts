// Two Salesforce connections on one commerce organization (a UAT org and production) would overwrite
// each other's CRM ids on the commerce records for ever: only one writes back. As processes against
// real PostgreSQL, real Temporal and the sandboxes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';


describe('one connection per commerce organization writes CRM ids back (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let otherCommerce: CommerceSandbox;
  let uatOrg: SalesforceSandbox;
  let productionOrg: SalesforceSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    commerce = await startCommerceSandbox({ entitlements: 5, seed: 5 });
    otherCommerce = await startCommerceSandbox({ entitlements: 5, seed: 6, organizationId: 'org-9' });
    uatOrg = await startSalesforceSandbox();
    productionOrg = await startSalesforceSandbox();
    // No worker on this task queue: nothing the schedules start runs.
    env = cliEnv({ databaseUrl: database.url, secretKey: randomBytes(32).toString('base64'), taskQueue: `write-back-${Date.now()}`, commerceClientSecret: commerce.clientSecret, salesforceClientSecret: productionOrg.clientSecret });
  });
  afterAll(async () => {
    for (const sandbox of [commerce, otherCommerce, uatOrg, productionOrg]) await sandbox?.stop();
    await database?.drop();
  });

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCli(env, args, extraEnv);
  const connect = (name: string, salesforce: SalesforceSandbox, side: CommerceSandbox = commerce, ...extra: string[]) =>
    cli(
      [
        'connect', '--name', name,
        '--commerce-url', side.apiUrl, '--commerce-auth-url', side.authUrl,
        '--commerce-client-id', side.clientId, '--commerce-org', side.organizationId,
        '--salesforce-login-url', salesforce.loginUrl, '--salesforce-client-id', salesforce.clientId,
        ...extra,
      ],
      { COMMERCE_CLIENT_SECRET: side.clientSecret, SALESFORCE_CLIENT_SECRET: salesforce.clientSecret },
    );
  const writers = async () => {
    const listed: { name: string; writesBack: boolean }[] = JSON.parse((await cli(['connections'])).stdout);
    return Object.fromEntries(listed.map((connection) => [connection.name, connection.writesBack]));
  };

  it('the first connection of a commerce organization writes back; a second one does not, and is told who does and how to move it', async () => {
    const production = JSON.parse((await connect('production', productionOrg)).stdout);
    expect(production.writesBack).toBe(true);
    const uat = await connect('uat', uatOrg);
    const saved = JSON.parse(uat.stdout);
    expect(saved.writesBack).toBe(false);
    expect(uat.stderr).toMatch(/uat does not write CRM ids back to commerce organization org-1 .*: production does/);
    expect(uat.stderr).toContain('crm-sync edit uat --write-back');
    expect(await writers()).toEqual({ production: true, uat: false });
  });

  it('a connection of another commerce organization writes back for its own', async () => {
    const other = JSON.parse((await connect('other-org', uatOrg, otherCommerce)).stdout);
    expect(other.writesBack).toBe(true);
    expect(await writers()).toEqual({ 'other-org': true, production: true, uat: false });
  });

  it('edit --write-back moves it in one step; connecting again keeps who writes back', async () => {
    const moved = await cli(['edit', 'uat', '--write-back'], { SALESFORCE_CLIENT_SECRET: uatOrg.clientSecret });
    expect(JSON.parse(moved.stdout).writesBack).toBe(true);
    expect(moved.stderr).toMatch(/uat now writes CRM ids back to commerce organization org-1 .*; production no longer/);
    expect(await writers()).toEqual({ 'other-org': true, production: false, uat: true });
    const { rows } = await database.pool.query(`SELECT name, settings->'writeBack' AS flag FROM connections ORDER BY name`);
    expect(rows).toEqual([{ name: 'other-org', flag: true }, { name: 'production', flag: false }, { name: 'uat', flag: true }]);

    await connect('production', productionOrg, commerce, '--every', '15m');
    expect(await writers()).toEqual({ 'other-org': true, production: false, uat: true });
  });

  it('connect --write-back takes it back; --no-write-back gives it up and says that nobody writes back now', async () => {
    expect(JSON.parse((await connect('production', productionOrg, commerce, '--write-back')).stdout).writesBack).toBe(true);
    expect(await writers()).toEqual({ 'other-org': true, production: true, uat: false });
    const released = await cli(['edit', 'production', '--no-write-back']);
    expect(released.stderr).toMatch(/No connection writes CRM ids back to commerce organization org-1/);
    expect(await writers()).toEqual({ 'other-org': true, production: false, uat: false });
  });

  it('a connection saved before the rule (writeBack unset) writes back unless another one of its organization is the declared writer', async () => {
    await database.pool.query(`UPDATE connections SET settings = settings - 'writeBack' WHERE name = 'production'`);
    expect((await writers()).production).toBe(true);
    await cli(['edit', 'uat', '--write-back'], { SALESFORCE_CLIENT_SECRET: uatOrg.clientSecret });
    expect(await writers()).toEqual({ 'other-org': true, production: false, uat: true });
  });
});
