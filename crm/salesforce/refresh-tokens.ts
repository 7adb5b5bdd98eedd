// Where a Salesforce connection's refresh token lives between renewals. With refresh token rotation on,
// every refresh_token grant answers a new token and invalidates the one used at once; presenting a
// rotated-out token again makes Salesforce revoke the whole family (docs/crm-wire-behaviour.md,
// "Rotating refresh tokens"). So a renewal must use the newest token, keep the new one before anything
// else can renew, and never run beside another renewal of the same connection: a vault runs renewals
// one at a time (in one process or across processes) and stores what they hand back.

import type { SecretsVault } from '../connector.ts';

/** The refresh_token grant's answer, as far as the session needs it. */
export type RefreshAnswer = { access_token: string; instance_url: string; id: string; refresh_token?: string };

/** The refresh token's vault: the CRM-neutral secrets vault (crm/connector.ts). */
export type RefreshTokenVault = SecretsVault;

/** OAuth's code for a refresh token Salesforce no longer accepts (jsforce names the error after it). */
const isInvalidGrant = (error: unknown) => (error as { name?: string }).name === 'invalid_grant';

/**
 * One refresh_token grant through the vault: with the stored token (another worker may have rotated
 * the one this session began with), the rotated one stored before the lock is let go. On invalid_grant
 * the stored token is read once more and, if it changed meanwhile (saved by a process that did not take
 * the lock, such as `crm-sync edit`), tried once; otherwise the refusal stands.
 */
export async function renewThroughVault(vault: RefreshTokenVault, held: string, exchange: (refreshToken: string) => Promise<RefreshAnswer>): Promise<RefreshAnswer> {
  return vault.exclusive(async ({ read, save }) => {
    let used = (await read()) ?? held;
    let answer: RefreshAnswer;
    try {
      answer = await exchange(used);
    } catch (error) {
      if (!isInvalidGrant(error)) throw error;
      const again = await read();
      if (again === undefined || again === used) throw error;
      used = again;
      answer = await exchange(used);
    }
    if (answer.refresh_token && answer.refresh_token !== used) await save(used, answer.refresh_token);
    return answer;
  });
}

/**
 * A vault in memory, for a session whose token is stored nowhere yet (`connect` testing new secrets,
 * tests, benches): renewals of the sessions sharing it run one at a time, and `current()` is the token
 * to save once the check is over.
 */
export function memoryRefreshTokenVault(initial: string | undefined) {
  let token = initial;
  let queue: Promise<unknown> = Promise.resolve();
  const vault: RefreshTokenVault & { current(): string | undefined } = {
    current: () => token,
    exclusive<T>(work: Parameters<RefreshTokenVault['exclusive']>[0]): Promise<T> {
      const run = queue.then(() =>
        work({
          read: async () => token,
          save: async (used, next) => {
            if (token === undefined || token === used) token = next;
          },
        }),
      ) as Promise<T>;
      queue = run.catch(() => undefined);
      return run;
    },
  };
  return vault;
}
