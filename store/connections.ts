// Connections: settings in clear, secrets sealed with the SecretBox (the row id is bound in as AAD).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { writeBackSiblings } from '../sync/write-back-owner.ts';
import type { SecretBox } from './secret-box.ts';
import { withSessionLock } from './secrets-lock.ts';
import { inTransaction, withTransaction } from './transaction.ts';

import type { CrmKind } from '../crm/connector.ts';

export { CRM_KINDS, type CrmKind } from '../crm/connector.ts';

export type ConnectionSecrets = Record<string, string>;
export type ConnectionSettings = Record<string, unknown>;

export type Connection = {
  id: string;
  name: string;
  crmKind: CrmKind;
  settings: ConnectionSettings;
  createdAt: Date;
  updatedAt: Date;
  /** Set when a side refused the credentials: syncs stop until new secrets are saved. */
  needsReauthorisation?: { reason: string; since: Date };
};

export type ConnectionWithSecrets = Connection & { secrets: ConnectionSecrets };

type Queryable = pg.Pool | pg.PoolClient;

// Serialises changes of write-back ownership, so two at once cannot both leave a writer behind.
const WRITE_BACK_LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';

// Serialises renewals of one connection's secrets (a rotating refresh token), keyed by the connection:
// inside a caller's transaction; a renewal takes the same key as a session lock (store/secrets-lock.ts).
const SECRETS_LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';

/** A connection's secrets inside withSecretsLock. */
export type LockedSecrets = {
  read(): Promise<ConnectionSecrets>;
  /** Puts `next` in place of secret `key` if it still holds `expected`; false when someone saved another value meanwhile. */
  replace(key: string, expected: string, next: string): Promise<boolean>;
};

export function createConnectionStore(pool: pg.Pool, box: SecretBox) {
  const toConnection = (row: Record<string, any>): Connection => ({
    id: row.id,
    name: row.name,
    crmKind: row.crm_kind,
    settings: row.settings,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.reauthorisation_reason && { needsReauthorisation: { reason: row.reauthorisation_reason, since: row.reauthorisation_since } }),
  });

  return {
    async create(input: { name: string; crmKind: CrmKind; settings: ConnectionSettings; secrets: ConnectionSecrets; id?: string }, client: Queryable = pool): Promise<Connection> {
      const id = input.id ?? randomUUID();
      const result = await client.query(
        `INSERT INTO connections (id, name, crm_kind, settings, secrets_ciphertext, secrets_key_id)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [id, input.name, input.crmKind, input.settings, box.seal(input.secrets, id), box.keyId],
      );
      return toConnection(result.rows[0]);
    },

    async update(id: string, changes: { settings?: ConnectionSettings; secrets?: ConnectionSecrets }, client: Queryable = pool): Promise<Connection> {
      const result = await client.query(
        `UPDATE connections SET
           settings = COALESCE($2, settings),
           secrets_ciphertext = COALESCE($3, secrets_ciphertext),
           secrets_key_id = CASE WHEN $3::bytea IS NULL THEN secrets_key_id ELSE $4 END,
           -- New secrets are a re-authorisation (connect and edit test them before saving).
           reauthorisation_reason = CASE WHEN $3::bytea IS NULL THEN reauthorisation_reason END,
           reauthorisation_since = CASE WHEN $3::bytea IS NULL THEN reauthorisation_since END,
           updated_at = now()
         WHERE id = $1 RETURNING *`,
        [id, changes.settings ?? null, changes.secrets ? box.seal(changes.secrets, id) : null, box.keyId],
      );
      if (result.rowCount === 0) throw new Error(`No connection with id ${id}`);
      return toConnection(result.rows[0]);
    },

    async get(id: string): Promise<Connection | undefined> {
      const result = await pool.query('SELECT * FROM connections WHERE id = $1', [id]);
      return result.rows[0] ? toConnection(result.rows[0]) : undefined;
    },

    /** Only activities call this: secrets never travel through workflow inputs or histories. */
    async getWithSecrets(id: string): Promise<ConnectionWithSecrets | undefined> {
      const result = await pool.query('SELECT * FROM connections WHERE id = $1', [id]);
      const row = result.rows[0];
      if (!row) return undefined;
      return { ...toConnection(row), secrets: box.open<ConnectionSecrets>(row.secrets_ciphertext, row.id, row.secrets_key_id) };
    },

    async list(client: Queryable = pool): Promise<Connection[]> {
      const result = await client.query('SELECT * FROM connections ORDER BY name');
      return result.rows.map(toConnection);
    },

    /**
     * Makes this connection the one that writes CRM ids back for its commerce organization and CRM kind
     * (`on`), every other connection of them giving it up in the same transaction; or gives it up (`!on`).
     * Returns the connections that gave it up. On `client`, it joins the caller's transaction.
     */
    async setWriteBack(id: string, on: boolean, client?: pg.PoolClient): Promise<Connection[]> {
      const run = async (tx: pg.PoolClient) => {
        await tx.query(WRITE_BACK_LOCK, ['crm-sync write-back owner']);
        const all = (await tx.query('SELECT * FROM connections ORDER BY name FOR UPDATE')).rows.map(toConnection);
        const self = all.find((connection) => connection.id === id);
        if (!self) throw new Error(`No connection with id ${id}`);
        const gaveUp = on ? writeBackSiblings(self, all).filter((other) => other.settings.writeBack !== false) : [];
        const setFlag = (ids: string[], value: boolean) =>
          tx.query(`UPDATE connections SET settings = jsonb_set(settings, '{writeBack}', to_jsonb($2::boolean)), updated_at = now() WHERE id = ANY($1::text[])`, [ids, value]);
        await setFlag([id], on);
        if (gaveUp.length) await setFlag(gaveUp.map((other) => other.id), false);
        return gaveUp;
      };
      return client ? run(client) : withTransaction(pool, run);
    },

    /**
     * Runs `work` alone among this connection's secret renewals, in any process, under an advisory lock
     * keyed by the connection (a rotated Salesforce refresh token, see crm/salesforce/refresh-tokens.ts).
     * Without `client` (a renewal, which waits on Salesforce): a session lock on the renewals' own pool,
     * and `replace` commits at once (store/secrets-lock.ts). With the caller's transaction `client` (saving
     * a connection): the same lock, held to its end. `replace` leaves updated_at and the re-authorisation
     * mark alone: a rotated token is no change of the connection, and the runtime cache rebuilds a
     * connector (signing in, rotating again) on updated_at.
     */
    async withSecretsLock<T>(id: string, work: (secrets: LockedSecrets) => Promise<T>, client?: pg.PoolClient): Promise<T> {
      const lockKey = `crm-sync secrets ${id}`;
      const locked = (db: pg.PoolClient, write: <R>(step: (tx: pg.PoolClient) => Promise<R>) => Promise<R>) => {
        const open = async (tx: pg.PoolClient, lock: string) => {
          const { rows } = await tx.query(`SELECT secrets_ciphertext, secrets_key_id FROM connections WHERE id = $1 ${lock}`, [id]);
          if (!rows[0]) throw new Error(`No connection with id ${id}`);
          return box.open<ConnectionSecrets>(rows[0].secrets_ciphertext, id, rows[0].secrets_key_id);
        };
        return work({
          read: () => open(db, ''),
          replace: (key, expected, next) =>
            write(async (tx) => {
              const secrets = await open(tx, 'FOR UPDATE');
              if (secrets[key] !== expected) return false;
              await tx.query('UPDATE connections SET secrets_ciphertext = $2, secrets_key_id = $3 WHERE id = $1', [id, box.seal({ ...secrets, [key]: next }, id), box.keyId]);
              return true;
            }),
        });
      };
      if (client) {
        await client.query(SECRETS_LOCK, [lockKey]);
        return locked(client, (step) => step(client));
      }
      return withSessionLock(pool, lockKey, (own) => locked(own, (step) => inTransaction(own, step)));
    },
  };
}

export type ConnectionStore = ReturnType<typeof createConnectionStore>;
