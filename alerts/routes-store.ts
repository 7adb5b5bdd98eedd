// Alert routes: which notification events of a connection go to which destination. The destination's
// secret parts (a webhook URL carries its secret, an SMTP password) are sealed with the SecretBox with
// the route's id as additional data, as connection secrets are (store/connections.ts); a listing only
// ever holds the kind and a masked hint.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SecretBox } from '../store/secret-box.ts';

export const DESTINATION_KINDS = ['slack', 'teams', 'email', 'owner-email'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export type SmtpSettings = { host: string; port: number; /** TLS from the first byte (465); else STARTTLS when offered. */ secure: boolean; user?: string; password?: string; from: string };

/** What a route sends to: the secret parts live only here, sealed at rest. */
export type Destination =
  | { kind: 'slack'; url: string }
  | { kind: 'teams'; url: string }
  | { kind: 'email'; to: string[]; smtp: SmtpSettings }
  /** The owner of the CRM record the event concerns, through this SMTP server. */
  | { kind: 'owner-email'; smtp: SmtpSettings };

export type AlertRoute = {
  id: string;
  connectionId: string;
  /** ENTITYTYPE.ACTION patterns: OFFER.ACCEPTED, OFFER.* or * (every event). */
  eventTypes: string[];
  /** Partner (marketplace) names; empty: every marketplace. */
  marketplaces: string[];
  kind: DestinationKind;
  /** What a person may see of the destination: never a secret. */
  hint: string;
  createdAt: Date;
};

export type AlertRouteWithDestination = AlertRoute & { destination: Destination };

/** A webhook URL shown as its host and the last 4 characters: the path is the secret. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}/…${url.slice(-4)}`;
  } catch {
    return '…';
  }
}

/** The hint a listing shows: where it goes, never the webhook path or the SMTP password. */
export function destinationHint(destination: Destination): string {
  switch (destination.kind) {
    case 'slack':
    case 'teams':
      return maskUrl(destination.url);
    case 'email':
      return `${destination.to.join(', ')} via ${destination.smtp.host}:${destination.smtp.port}`;
    case 'owner-email':
      return `the record owner's email via ${destination.smtp.host}:${destination.smtp.port}`;
  }
}

export function createAlertRouteStore(pool: pg.Pool, box: SecretBox) {
  const toRoute = (row: Record<string, any>): AlertRoute => ({
    id: row.id,
    connectionId: row.connection_id,
    eventTypes: row.event_types,
    marketplaces: row.marketplaces,
    kind: row.destination_kind,
    hint: row.hint,
    createdAt: row.created_at,
  });

  return {
    async add(input: { connectionId: string; eventTypes: string[]; marketplaces?: string[]; destination: Destination }, client: pg.Pool | pg.PoolClient = pool): Promise<AlertRoute> {
      // Short enough to type in `crm-sync alerts --test <id>`.
      const id = `r-${randomBytes(4).toString('hex')}`;
      const result = await client.query(
        `INSERT INTO alert_routes (id, connection_id, event_types, marketplaces, destination_kind, hint, secret_ciphertext, secret_key_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [id, input.connectionId, input.eventTypes, input.marketplaces ?? [], input.destination.kind, destinationHint(input.destination), box.seal(input.destination, id), box.keyId],
      );
      return toRoute(result.rows[0]);
    },

    async list(connectionId: string): Promise<AlertRoute[]> {
      const result = await pool.query('SELECT * FROM alert_routes WHERE connection_id = $1 ORDER BY created_at, id', [connectionId]);
      return result.rows.map(toRoute);
    },

    async get(connectionId: string, id: string): Promise<AlertRoute | undefined> {
      const result = await pool.query('SELECT * FROM alert_routes WHERE connection_id = $1 AND id = $2', [connectionId, id]);
      return result.rows[0] ? toRoute(result.rows[0]) : undefined;
    },

    /** Only activities and `--test` open this: a destination never travels through workflow histories. */
    async getWithDestination(id: string): Promise<AlertRouteWithDestination | undefined> {
      const result = await pool.query('SELECT * FROM alert_routes WHERE id = $1', [id]);
      const row = result.rows[0];
      if (!row) return undefined;
      return { ...toRoute(row), destination: box.open<Destination>(row.secret_ciphertext, row.id, row.secret_key_id) };
    },

    async remove(connectionId: string, id: string, client: pg.Pool | pg.PoolClient = pool): Promise<AlertRoute | undefined> {
      const result = await client.query('DELETE FROM alert_routes WHERE connection_id = $1 AND id = $2 RETURNING *', [connectionId, id]);
      return result.rows[0] ? toRoute(result.rows[0]) : undefined;
    },
  };
}

export type AlertRouteStore = ReturnType<typeof createAlertRouteStore>;
