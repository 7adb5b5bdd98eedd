// A backfill that forgets which records were written rewrites every record in the CRM: an operator may
// start backfills, but only an admin may ask for that one (a 403 naming the admin role, nothing started).
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { consoleRoute, type ConsoleDeps } from '../../admin/console/routes.ts';
import type { Session } from '../../admin/console/sessions.ts';
import type { Role } from '../../admin/permissions.ts';
import type { Connection, ConnectionStore } from '../../store/connections.ts';

const connection = {
  id: 'c-1',
  name: 'acme',
  crmKind: 'salesforce',
  settings: {
    commerce: { baseUrl: 'https://commerce.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
    crm: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 's' },
    entities: ['offer'],
  },
} as unknown as Connection;

/** Deps whose Temporal records being reached: starting the backfill is the first thing that needs it. */
function deps() {
  const reached: string[] = [];
  const console: ConsoleDeps = {
    pool: {} as pg.Pool,
    connections: { get: async () => connection } as unknown as ConnectionStore,
    temporal: () => {
      reached.push('temporal');
      return Promise.reject(new Error('Temporal reached: the backfill would start'));
    },
    taskQueue: 'unused',
  };
  return { console, reached };
}
const session = (role: Role, name: string): Session => ({ id: 's', csrf: 'csrf', expiresAt: Infinity, identity: { via: 'oidc', role, person: { subject: name, name } } });
const backfill = (form: Record<string, string>) => new URLSearchParams({ csrf: 'csrf', entities: 'offer', ...form });
const url = new URL('http://admin/connections/c-1/backfill');

describe('a backfill that writes every record again (forgetLinks)', () => {
  it('is refused to an operator with 403 naming the admin role, and nothing is started', async () => {
    const { console, reached } = deps();
    const reply = await consoleRoute(console, session('operator', 'Otto Operator'), 'POST', url, backfill({ forgetLinks: 'yes' }));
    expect(reply?.status).toBe(403);
    expect(reply?.body).toContain('Writing every record again (forgetting which were written) needs the admin role; Otto Operator has the operator role.');
    expect(reached).toEqual([]);
  });

  it('is started for an admin', async () => {
    const { console, reached } = deps();
    await expect(consoleRoute(console, session('admin', 'Ada Admin'), 'POST', url, backfill({ forgetLinks: 'yes' }))).rejects.toThrow('Temporal reached: the backfill would start');
    expect(reached).toEqual(['temporal']);
  });

  it('leaves an operator\'s ordinary backfill alone', async () => {
    const { console, reached } = deps();
    await expect(consoleRoute(console, session('operator', 'Otto Operator'), 'POST', url, backfill({}))).rejects.toThrow('Temporal reached: the backfill would start');
    expect(reached).toEqual(['temporal']);
  });
});
