// The lock a connection's secret renewals take turns under (a rotating Salesforce refresh token,
// crm/salesforce/refresh-tokens.ts). A renewal waits on Salesforce while it holds the lock, so it must not
// hold a transaction open nor a connection of the pool the activities write with: the lock is a
// session-level advisory lock on a client of a small pool of its own (two connections, shared by every
// store on the same pool), and a rotated token is written at once in a short transaction of its own,
// durable before Salesforce is asked anything else and before the lock is let go.
import pg from 'pg';

const LOCK = 'SELECT pg_advisory_lock(hashtext($1))';
const UNLOCK = 'SELECT pg_advisory_unlock(hashtext($1))';
const VAULT_CONNECTIONS = 2;

const vaultPools = new WeakMap<pg.Pool, pg.Pool>();

/** The renewals' own pool beside `pool` (same database and credentials). */
function vaultPool(pool: pg.Pool): pg.Pool {
  let own = vaultPools.get(pool);
  if (!own) {
    // Idle clients close soon and do not keep the process alive: commands and tests end their main pool only.
    own = new pg.Pool({ ...pool.options, max: VAULT_CONNECTIONS, idleTimeoutMillis: 5_000, allowExitOnIdle: true });
    // An idle client whose server went away (a restart, a test dropping its database): the next renewal opens another.
    own.on('error', () => {});
    vaultPools.set(pool, own);
  }
  return own;
}

/** Runs `work` holding the session lock `key` on a client of the renewals' pool; the client is the one to write with. */
export async function withSessionLock<T>(pool: pg.Pool, key: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await vaultPool(pool).connect();
  let unlocked = false;
  try {
    await client.query(LOCK, [key]);
    try {
      return await work(client);
    } finally {
      unlocked = await client.query(UNLOCK, [key]).then(
        () => true,
        () => false,
      );
    }
  } finally {
    // A client that could not let go of the lock is closed, which lets go of it.
    client.release(!unlocked);
  }
}
