// The audit trail's store against a real PostgreSQL: rows added, filtered and paged newest first, and
// never holding a secret even when a caller hands it whole settings (issue #26 section 2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorLabel, createAuditStore } from '../../store/audit.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('audit store', () => {
  it('labels each kind of actor as a person reads it', () => {
    expect(actorLabel({ kind: 'person', name: 'Ada Lovelace', email: 'ada@example.com' })).toBe('Ada Lovelace <ada@example.com>');
    expect(actorLabel({ kind: 'person', name: 'ada@example.com', email: 'ada@example.com' })).toBe('ada@example.com');
    expect(actorLabel({ kind: 'token' })).toBe('token');
    expect(actorLabel({ kind: 'cli', osUser: 'root' })).toBe('cli as root');
  });

  it('keeps before and after without a secret, and pages newest first with a total', async () => {
    const audit = createAuditStore(db.pool);
    await audit.record({ actor: { kind: 'cli', osUser: 'root' }, via: 'cli', action: 'settings.edit', connectionId: 'acme',
      before: { schedule: { everySeconds: 300 }, crm: { clientSecret: 'cs-123456', loginUrl: 'https://acme.my.salesforce.com' } },
      after: { schedule: { everySeconds: 900 }, crm: { clientSecret: 'cs-654321', loginUrl: 'https://acme.my.salesforce.com' } } });
    await audit.record({ actor: { kind: 'person', name: 'Ada Lovelace', email: 'ada@example.com' }, via: 'console', action: 'retry', connectionId: 'acme', target: 'offer', detail: { note: 'Authorization: Bearer eyJhbGciOi.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl' } });
    await audit.record({ actor: { kind: 'token' }, via: 'api', action: 'mapping.edit', connectionId: 'globex', target: 'entitlement', after: { fields: { Status__c: null } } });
    await audit.record({ actor: { kind: 'person', name: 'Grace 100%_sure' }, via: 'console', action: 'mapping.rollback', connectionId: 'acme', target: 'offer' });

    const { rows } = await db.pool.query(`SELECT before::text, after::text, detail::text FROM audit_events`);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain('cs-123456');
    expect(stored).not.toContain('cs-654321');
    expect(stored).not.toContain("eyJzdWIiOiJhZGEifQ");
    const settings = await db.pool.query(`SELECT before, after FROM audit_events WHERE action = 'settings.edit'`);
    expect(settings.rows[0]).toEqual({
      before: { schedule: { everySeconds: 300 }, crm: { clientSecret: '[redacted]', loginUrl: 'https://acme.my.salesforce.com' } },
      after: { schedule: { everySeconds: 900 }, crm: { clientSecret: '[redacted]', loginUrl: 'https://acme.my.salesforce.com' } },
    });

    const all = await audit.list({ limit: 2 });
    expect(all.total).toBe(4);
    expect(all.events.map((event) => event.action)).toEqual(['mapping.rollback', 'mapping.edit']);
    const second = await audit.list({ limit: 2, offset: 2 });
    expect(second.events.map((event) => event.action)).toEqual(['retry', 'settings.edit']);
    expect(second.events[1]!.actorLabel).toBe('cli as root');
    expect(second.events[1]!.actor).toEqual({ kind: 'cli', osUser: 'root' });

    expect((await audit.list({ connectionId: 'acme', limit: 10 })).total).toBe(3);
    expect((await audit.list({ action: 'mapping', limit: 10 })).events.map((event) => event.connectionId)).toEqual(['acme', 'globex']);
    expect((await audit.list({ actor: 'ada', limit: 10 })).events.map((event) => event.action)).toEqual(['retry']);
    // % and _ in the words are matched as they are, not as wildcards.
    expect((await audit.list({ actor: '100%_', limit: 10 })).total).toBe(1);
    expect((await audit.list({ actor: '%', limit: 10 })).total).toBe(1);
    expect((await audit.list({ since: new Date(Date.now() + 60_000), limit: 10 })).total).toBe(0);
  });
});
