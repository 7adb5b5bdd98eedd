// What the Temporal server and temporal-sql-tool inherit from us: the few variables they need and the
// password they are given, never our secret key, admin token or database URL.
import { describe, expect, it } from 'vitest';
import { childEnvironment, redacted } from '../../infra/temporal-child-environment.ts';

describe('the Temporal children\'s environment', () => {
  it('passes PATH, HOME, locale and CA locations through, adds the child\'s own, and drops the rest', () => {
    const ours = {
      PATH: '/usr/bin:/bin',
      HOME: '/var/lib/crm-sync',
      LANG: 'C.UTF-8',
      SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
      CRM_SYNC_SECRET_KEY: 'key-material',
      CRM_SYNC_ADMIN_TOKEN: 'admin-token',
      DATABASE_URL: 'postgres://crm_sync:pw@db/crm_sync',
    };
    expect(childEnvironment({ SQL_PASSWORD: 'temporal-pw' }, ours)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/var/lib/crm-sync',
      LANG: 'C.UTF-8',
      SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
      SQL_PASSWORD: 'temporal-pw',
    });
  });

  it('masks the password in an output line, and leaves lines alone when there is none', () => {
    expect(redacted('pq: password authentication failed for "hunter2"', 'hunter2')).toBe('pq: password authentication failed for "***"');
    expect(redacted('started', '')).toBe('started');
  });
});
