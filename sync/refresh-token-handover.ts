// Handing a rotated refresh token back to where the connection keeps it. Salesforce with refresh token
// rotation on answers every renewal with a new refresh token and invalidates the one used
// (crm/salesforce/refresh-tokens.ts), so every path that opens a session from a connection's secrets
// passes one of these vaults: the stored connection's (the worker's runtimes, setup, doctor, edit
// re-checking saved secrets), or one in memory for secrets not saved yet (connect, edit with new ones),
// whose newest token is what gets saved, not the one typed.
import { memoryRefreshTokenVault, type RefreshTokenVault } from '../crm/salesforce/refresh-tokens.ts';
import type { ConnectionStore } from '../store/connections.ts';
import type { ConnectionSecrets } from './connection-settings.ts';

const REFRESH_TOKEN = 'crmRefreshToken';

/**
 * The saved connection's refresh token: renewals of it run one at a time across runtimes and processes
 * (a PostgreSQL advisory lock), each reading the stored token first and sealing a rotated one before the
 * lock is let go.
 */
export function storedRefreshTokenVault(connections: Pick<ConnectionStore, 'withSecretsLock'>, connectionId: string): RefreshTokenVault {
  return {
    exclusive: (work) =>
      connections.withSecretsLock(connectionId, (secrets) =>
        work({
          read: async () => (await secrets.read())[REFRESH_TOKEN],
          save: async (used, next) => {
            await secrets.replace(REFRESH_TOKEN, used, next);
          },
        }),
      ),
  };
}

/** Secrets about to be saved: checked through this vault, so a rotated refresh token is kept. */
export function unsavedSecretsVault(secrets: ConnectionSecrets): ReturnType<typeof memoryRefreshTokenVault> {
  return memoryRefreshTokenVault(secrets.crmRefreshToken);
}

/** The secrets to save after a check through `vault`: the newest refresh token in place of the one given. */
export function withNewestRefreshToken(secrets: ConnectionSecrets, vault: ReturnType<typeof memoryRefreshTokenVault>): ConnectionSecrets {
  const newest = vault.current();
  return secrets.crmRefreshToken && newest ? { ...secrets, crmRefreshToken: newest } : secrets;
}
