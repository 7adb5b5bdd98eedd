// Salesforce connector against an org with refresh token rotation on (docs/crm-wire-behaviour.md,
// "Rotating refresh tokens"): every renewal hands a new refresh token back and the one used is dead, so
// a connector that kept renewing with the token it started with was refused on its next renewal (and,
// presenting a rotated-out token, had Salesforce revoke the whole family). It renews with the newest
// token, again and again, keeping it in memory or in the vault it is given.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpsertItem } from '../../crm/connector.ts';
import { createSalesforceConnector } from '../../crm/salesforce/connector.ts';
import { memoryRefreshTokenVault } from '../../crm/salesforce/refresh-tokens.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { control } from '../../sandbox/salesforce/testing.ts';

const account = (n: number): UpsertItem[] => [{ sourceId: `b-${n}`, externalIdField: 'Commerce_Buyer_Id__c', externalId: `b-${n}`, fields: { Name: `Buyer ${n}` } }];

describe('Salesforce connector: rotating refresh tokens', () => {
  let sandbox: SalesforceSandbox;
  beforeAll(async () => {
    sandbox = await startSalesforceSandbox({ rotateRefreshTokens: true });
  });
  afterAll(() => sandbox?.stop());
  beforeEach(() => control(sandbox, 'POST', '/reset'));

  const tokens = (): Promise<{ current: string | null; rotations: number; reuses: number }> => control(sandbox, 'GET', '/oauth/refresh-tokens');

  it('renews an expired session three times in a row, each time with the token the last renewal handed back', async () => {
    const sf = createSalesforceConnector({ loginUrl: sandbox.loginUrl, minRetryDelayMs: 10 }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, refreshToken: sandbox.refreshToken });
    await sf.verify();
    for (let renewal = 1; renewal <= 3; renewal += 1) {
      await control(sandbox, 'POST', '/sessions/expire');
      await expect(sf.upsert('Account', account(renewal))).resolves.toMatchObject([{ ok: true }]);
    }
    // The login and three renewals: four rotations, never a rotated-out token presented.
    expect(await tokens()).toMatchObject({ rotations: 4, reuses: 0 });
  });

  it('keeps the newest token in the vault it is given, for whoever saves it', async () => {
    const vault = memoryRefreshTokenVault(sandbox.refreshToken);
    const sf = createSalesforceConnector({ loginUrl: sandbox.loginUrl }, { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, refreshToken: sandbox.refreshToken, refreshTokens: vault });
    await sf.verify();
    await control(sandbox, 'POST', '/sessions/expire');
    await sf.findByExternalIds('Account', 'Commerce_Buyer_Id__c', ['b-1']);
    const { current, rotations } = await tokens();
    expect(rotations).toBe(2);
    expect(vault.current()).toBe(current);
    expect(vault.current()).not.toBe(sandbox.refreshToken);
  });

  it('two connectors sharing a vault take turns: the second renews with the token the first was handed', async () => {
    const vault = memoryRefreshTokenVault(sandbox.refreshToken);
    const secrets = { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, refreshToken: sandbox.refreshToken, refreshTokens: vault };
    const [a, b] = [createSalesforceConnector({ loginUrl: sandbox.loginUrl }, secrets), createSalesforceConnector({ loginUrl: sandbox.loginUrl }, { ...secrets })];
    await Promise.all([a.verify(), b.verify()]);
    for (let round = 0; round < 3; round += 1) {
      await control(sandbox, 'POST', '/sessions/expire');
      await Promise.all([a.upsert('Account', account(round)), b.upsert('Account', account(round + 10))]);
    }
    expect(await tokens()).toMatchObject({ current: vault.current(), rotations: 8, reuses: 0 });
  });
});
