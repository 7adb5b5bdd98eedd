// The mapping page's failures as a person sees them: the connection's clients not made, the CRM's
// describe refused (a viewer reaches that with a GET), a test on a record that could not run. Each says
// what failed in the CRM's or client's words, with any credential the error quoted taken out.
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { mappingRoute, type MappingRouteDeps } from '../../admin/console/mapping-routes.ts';
import type { Session } from '../../admin/console/sessions.ts';
import type { ObjectSchema } from '../../crm/connector.ts';
import type { Connection, ConnectionStore } from '../../store/connections.ts';
import type { ConnectionRuntime } from '../../sync/runtime.ts';

const LEAKED = 'eyJhbGciOiJSUzI1NiJ9.leaked-access-token-0123456789';
const failure = () => new Error(`HTTP 401 from https://acme.my.salesforce.com/services/data: Authorization: Bearer ${LEAKED} was refused`);

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
const connections = { get: async (id: string) => (id === 'c-1' ? connection : undefined) } as unknown as ConnectionStore;
// No mapping versions saved yet.
const pool = { query: async () => ({ rows: [] }) } as unknown as pg.Pool;
const session = (role: 'viewer' | 'admin'): Session => ({ id: 's', csrf: 'csrf', expiresAt: Infinity, identity: { via: 'oidc', role, person: { subject: 'p', name: 'Pat' } } });
const runtime = (describeObject: ConnectionRuntime['crm']['describe']) => async () => ({ id: 'c-1', settings: connection.settings, crm: { describe: describeObject } }) as unknown as ConnectionRuntime;

describe('the mapping page when something fails', () => {
  it("takes a credential out of the error when the connection's clients cannot be made", async () => {
    const deps: MappingRouteDeps = { pool, connections, runtimeFor: async () => Promise.reject(failure()) };
    const reply = await mappingRoute(deps, session('viewer'), 'GET', new URL('http://admin/connections/c-1/mappings/offer'), undefined);
    expect(reply?.status).toBe(502);
    expect(reply?.body).toContain("The connection&#39;s clients could not be made: HTTP 401 from https://acme.my.salesforce.com/services/data: Authorization: Bearer [redacted] was refused");
    expect(reply?.body).not.toContain(LEAKED);
  });

  it("takes a credential out of the CRM's describe failure, shown to a viewer on a GET", async () => {
    const deps: MappingRouteDeps = { pool, connections, runtimeFor: runtime(() => Promise.reject(failure())) };
    const reply = await mappingRoute(deps, session('viewer'), 'GET', new URL('http://admin/connections/c-1/mappings/offer'), undefined);
    expect(reply?.status).toBe(502);
    expect(reply?.body).toContain('Bearer [redacted] was refused');
    expect(reply?.body).not.toContain(LEAKED);
  });

  it('takes a credential out of a test on a record that could not run', async () => {
    let calls = 0;
    // The page's own describe answers; the test's fails.
    const schema: ObjectSchema = { name: 'Opportunity', fields: new Map() };
    const deps: MappingRouteDeps = { pool, connections, runtimeFor: runtime(async () => (++calls === 1 ? schema : Promise.reject(failure()))) };
    const form = new URLSearchParams({ action: 'test', record: 'offer-1' });
    const reply = await mappingRoute(deps, session('admin'), 'POST', new URL('http://admin/connections/c-1/mappings/offer'), form);
    expect(calls).toBe(2);
    expect(reply?.body).toContain('could not be tested: HTTP 401 from https://acme.my.salesforce.com/services/data: Authorization: Bearer [redacted] was refused');
    expect(reply?.body).not.toContain(LEAKED);
  });
});
