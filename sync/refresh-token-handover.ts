// Handing a rotated refresh token back to where the connection keeps it. Salesforce with refresh token
// rotation on answers every renewal with a new refresh token and invalidates the one used
// (crm/salesforce/refresh-tokens.ts), so every path that opens a session from a connection's secrets
// passes one of these vaults: the stored connection's (the worker's runtimes, setup, doctor, edit
// re-checking saved secrets), or one in memory for secrets not saved yet (connect, edit with new ones),
// whose newest token is what gets saved, not the one typed.
import type { SecretsVault } from '../crm/connector.ts';
import { memoryRefreshTokenVault } from '../crm/salesforce/refresh-tokens.ts';
import type { ConnectionStore } from '../store/connections.ts';
import type { ConnectionSecrets } from './connection-settings.ts';

const REFRESH_TOKEN = 'crmRefreshToken';

/**
 * The saved connection's refresh token: renewals of it run one at a time across runtimes and processes
 * (a PostgreSQL advisory lock), each reading the stored token first and sealing a rotated one before the
 * lock is let go.
 */
export function storedRefreshTokenVault(connections: Pick<ConnectionStore, 'withSecretsLock'>, connectionId: string): SecretsVault {
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

/**
 * A check of a typed refresh token (held in memory, `vault`) that failed after Salesforce rotated it: the
 * typed token is now spent, and presenting it again makes Salesforce revoke every token of its
 * authorisation, while its successor is saved nowhere (nothing is saved after a failed check, and a
 * token is never printed). The error says so plainly, with nothing secret, so the person authorises again
 * instead of re-running with a dead token. Unchanged when nothing rotated, or when the successor did get
 * saved (the failure came after the save). A saved connection keeps its own token and goes on working.
 */
export async function explainSpentRefreshToken(
  error: unknown,
  typed: string | undefined,
  vault: ReturnType<typeof memoryRefreshTokenVault>,
  connection: { connections: Pick<ConnectionStore, 'getWithSecrets'>; id: string | undefined; existed: boolean },
): Promise<unknown> {
  const newest = vault.current();
  if (typed === undefined || newest === undefined || newest === typed || !(error instanceof Error)) return error;
  const saved = connection.id ? (await connection.connections.getWithSecrets(connection.id))?.secrets[REFRESH_TOKEN] : undefined;
  if (saved === newest) return error;
  const note =
    'Salesforce rotated the refresh token given in SALESFORCE_REFRESH_TOKEN while checking it (refresh token rotation is on for this connected app): ' +
    'that token no longer works, and presenting it again makes Salesforce revoke every token of that authorisation. Nothing was saved. ' +
    'Fix the problem above, authorise the connected app again for a new refresh token, and run the command with it' +
    (connection.existed ? '; the saved connection keeps its own token and goes on working meanwhile.' : '.');
  const problems = (error as { problems?: unknown }).problems;
  if (Array.isArray(problems)) problems.push(note);
  error.message = `${error.message}\n${note}`;
  return error;
}
