// Every command that signs in to a Salesforce org rotating its refresh tokens hands the new token back
// (issue #23 item 2): `connect` saves the token its check was handed, not the one typed (which the check
// killed); `edit` re-checking the saved token, `doctor` and `setup` leave the connection holding the org's
// current token; `edit` with a new token saves that one's successor. After each, the saved token still
// signs in. Commands as processes against real PostgreSQL and Temporal (no worker: nothing runs).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { control } from '../../sandbox/salesforce/testing.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('commands against a Salesforce org that rotates refresh tokens (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let salesforce: SalesforceSandbox;
  let env: NodeJS.ProcessEnv;
  const key = randomBytes(32);

  beforeAll(async () => {
    [database, commerce, salesforce] = await Promise.all([createTestDatabase(), startCommerceSandbox({ entitlements: 5, seed: 5 }), startSalesforceSandbox({ rotateRefreshTokens: true })]);
    env = cliEnv({ databaseUrl: database.url, secretKey: key.toString('base64'), taskQueue: `rotating-${Date.now()}`, commerceClientSecret: commerce.clientSecret, salesforceClientSecret: salesforce.clientSecret });
  });
  afterAll(async () => {
    await commerce?.stop();
    await salesforce?.stop();
    await database?.drop();
  });

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCli(env, args, extraEnv);
  /** A command whose exit code may say "needs attention" (doctor without a worker): only what it leaves behind counts here. */
  const settled = (args: string[]) => cli(args).then(({ stdout }) => stdout, (error: { stdout?: string }) => error.stdout ?? '');
  const saved = async () => (await createConnectionStore(database.pool, new SecretBox(key)).list()).find((connection) => connection.name === 'rotating')!;
  const savedToken = async () => (await createConnectionStore(database.pool, new SecretBox(key)).getWithSecrets((await saved()).id))!.secrets.crmRefreshToken;
  const orgTokens = (): Promise<{ current: string; rotations: number; reuses: number }> => control(salesforce, 'GET', '/oauth/refresh-tokens');

  it('connect saves the token its check was handed, not the one typed', async () => {
    await cli(
      ['connect', '--name', 'rotating', '--paused',
        '--commerce-url', commerce.apiUrl, '--commerce-auth-url', commerce.authUrl, '--commerce-client-id', commerce.clientId, '--commerce-org', commerce.organizationId,
        '--salesforce-login-url', salesforce.loginUrl, '--salesforce-client-id', salesforce.clientId],
      { SALESFORCE_REFRESH_TOKEN: salesforce.refreshToken },
    );
    const { current, rotations } = await orgTokens();
    expect(rotations).toBeGreaterThan(0);
    expect(await savedToken()).toBe(current);
    expect(current).not.toBe(salesforce.refreshToken);
  });

  it('edit, doctor and setup leave the connection holding the org current token, and never present a dead one', async () => {
    for (const args of [['edit', 'rotating', '--every', '10m'], ['doctor'], ['setup', 'rotating']]) {
      const before = (await orgTokens()).rotations;
      await settled(args);
      const { current, rotations, reuses } = await orgTokens();
      expect({ command: args[0], signedIn: rotations > before, reuses }).toEqual({ command: args[0], signedIn: true, reuses: 0 });
      expect({ command: args[0], saved: await savedToken() }).toEqual({ command: args[0], saved: current });
    }
    expect((await saved()).needsReauthorisation).toBeUndefined();
  });

  it('edit with a new refresh token (a person authorising again) saves its successor', async () => {
    const { current: fresh } = await control(salesforce, 'POST', '/oauth/refresh-tokens', { authorize: true });
    await cli(['edit', 'rotating'], { SALESFORCE_REFRESH_TOKEN: fresh });
    const { current } = await orgTokens();
    expect(current).not.toBe(fresh);
    expect(await savedToken()).toBe(current);
  });

  // Last: presenting a spent token makes the org revoke the authorisation's tokens.
  it('connect with a new token that fails on the mapping says the typed token is spent (nothing secret printed, nothing saved); connecting again with it says why', async () => {
    const { current: fresh } = await control(salesforce, 'POST', '/oauth/refresh-tokens', { authorize: true });
    const args = ['connect', '--name', 'refused', '--paused',
      '--commerce-url', commerce.apiUrl, '--commerce-auth-url', commerce.authUrl, '--commerce-client-id', commerce.clientId, '--commerce-org', commerce.organizationId,
      '--salesforce-login-url', salesforce.loginUrl, '--salesforce-client-id', salesforce.clientId,
      '--overrides', JSON.stringify({ buyer: { rename: { Name: 'No_Such_Field__c' } } })];
    const failed = async () => cli(args, { SALESFORCE_REFRESH_TOKEN: fresh }).then(() => ({ stdout: 'exited 0', stderr: '' }), (error: { stdout: string; stderr: string }) => error);
    const first = await failed();
    const { current } = await orgTokens();
    expect(current).not.toBe(fresh); // the check rotated it
    expect(first.stderr).toContain('No_Such_Field__c');
    expect(first.stderr).toContain('Salesforce rotated the refresh token given in SALESFORCE_REFRESH_TOKEN while checking it');
    expect(first.stderr).toContain('authorise the connected app again for a new refresh token');
    for (const secret of [fresh, current]) expect(`${first.stdout}${first.stderr}`).not.toContain(secret);
    expect((await createConnectionStore(database.pool, new SecretBox(key)).list()).map((connection) => connection.name)).not.toContain('refused');

    const second = await failed();
    expect(second.stdout).not.toBe('exited 0');
    expect(second.stderr).not.toContain('No_Such_Field__c'); // refused at sign-in, before the mapping
    expect(second.stderr).toMatch(/refresh token/i);
    expect((await orgTokens()).reuses).toBe(1);
  });
});
