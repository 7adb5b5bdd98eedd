// The audit trail (issue #26 section 2): who changed what, when, on which connection, from the console,
// the API or the CLI; settings and mappings with their value before and after. Rows are only added.
// Everything is redacted before it is stored (store/redact.ts), so the trail never holds a secret even
// when a caller hands it a whole settings object.
import type pg from 'pg';
import { redactSecrets, redactText } from './redact.ts';

/** Who did it: a person signed in through the identity provider, the admin token (scripts), or the CLI as an OS user. */
export type AuditActor = { kind: 'person'; name: string; email?: string } | { kind: 'token' } | { kind: 'cli'; osUser: string } | { kind: 'system'; name: string };
export type AuditVia = 'console' | 'api' | 'cli' | 'worker';

export type AuditEntry = {
  actor: AuditActor;
  via: AuditVia;
  /** What was done, as a short verb phrase: 'retry', 'pause', 'resume', 'backfill', 'settings.edit', 'mapping.edit', 'mapping.rollback', ... */
  action: string;
  connectionId?: string;
  /** What it was done to within the connection: a flow, a record id, a dead letter. */
  target?: string;
  before?: unknown;
  after?: unknown;
  detail?: unknown;
};

export type AuditEvent = AuditEntry & { id: number; at: Date; actorLabel: string };
export type AuditFilter = { connectionId?: string; actor?: string; action?: string; since?: Date; until?: Date };

/** How a person reads the actor: "Ada Lovelace <ada@example.com>", "token", "cli as root". */
export function actorLabel(actor: AuditActor): string {
  switch (actor.kind) {
    case 'person':
      return actor.email && actor.email !== actor.name ? `${actor.name} <${actor.email}>` : actor.name;
    case 'token':
      return 'token';
    case 'cli':
      return `cli as ${actor.osUser}`;
    case 'system':
      return actor.name;
  }
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(redactSecrets(value)));

function filterSql(filter: AuditFilter): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.connectionId) add((n) => `connection_id = ${n}`, filter.connectionId);
  // A person is found by any part of the label ("ada", "example.com", "cli as root").
  if (filter.actor) add((n) => `actor ILIKE '%' || ${n} || '%'`, escapeLike(filter.actor));
  // 'mapping' finds mapping.edit and mapping.rollback.
  if (filter.action) add((n) => `(action = ${n} OR action LIKE ${n} || '.%')`, filter.action);
  if (filter.since) add((n) => `at >= ${n}`, filter.since);
  if (filter.until) add((n) => `at < ${n}`, filter.until);
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** The filter's words matched literally: % and _ in a name are not wildcards. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function fromRow(row: Record<string, any>): AuditEvent {
  const actor: AuditActor = row.actor_kind === 'token' ? { kind: 'token' } : row.actor_kind === 'cli' ? { kind: 'cli', osUser: row.actor.replace(/^cli as /, '') } : row.actor_kind === 'system' ? { kind: 'system', name: row.actor } : { kind: 'person', name: row.actor };
  return {
    id: Number(row.id),
    at: row.at,
    actor,
    actorLabel: row.actor,
    via: row.via,
    action: row.action,
    ...(row.connection_id && { connectionId: row.connection_id }),
    ...(row.target && { target: row.target }),
    ...(row.before !== null && { before: row.before }),
    ...(row.after !== null && { after: row.after }),
    ...(row.detail !== null && { detail: row.detail }),
  };
}

export function createAuditStore(pool: pg.Pool | pg.PoolClient) {
  return {
    /** Adds one event; inside the caller's transaction when given its client, so a change and its record land together. */
    async record(entry: AuditEntry): Promise<number> {
      const { rows } = await pool.query(
        `INSERT INTO audit_events (actor_kind, actor, via, action, connection_id, target, before, after, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
        [entry.actor.kind, redactText(actorLabel(entry.actor)), entry.via, entry.action, entry.connectionId ?? null, entry.target ? redactText(entry.target) : null, json(entry.before), json(entry.after), json(entry.detail)],
      );
      return Number(rows[0].id);
    },

    /** One page of events, newest first, and how many match in all. */
    async list(filter: AuditFilter & { limit: number; offset?: number }): Promise<{ total: number; events: AuditEvent[] }> {
      const { where, params } = filterSql(filter);
      const [count, page] = await Promise.all([
        pool.query(`SELECT count(*)::int AS total FROM audit_events ${where}`, params),
        pool.query(`SELECT * FROM audit_events ${where} ORDER BY at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, filter.limit, filter.offset ?? 0]),
      ]);
      return { total: count.rows[0].total, events: page.rows.map(fromRow) };
    },

    /** Every action recorded so far, for a filter's choices. */
    async actions(): Promise<string[]> {
      const { rows } = await pool.query(`SELECT DISTINCT action FROM audit_events ORDER BY action`);
      return rows.map((row) => row.action as string);
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
