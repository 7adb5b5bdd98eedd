import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCursorStore } from '../../store/cursors.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createRecordLinkStore } from '../../store/record-links.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('sync stores (real PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'c1', 'salesforce', '\\x00', 'k')`);
  });
  afterAll(() => database.drop());

  it('record links: batch upserts are idempotent and keep a known CRM id', async () => {
    const links = createRecordLinkStore(database.pool);
    await links.upsert('c1', 'offer', [
      { sourceId: 'o1', crmObject: 'Opportunity', crmId: '006A', contentHash: 'h1' },
      { sourceId: 'o2', crmObject: 'Opportunity', crmId: null, contentHash: 'h2' },
    ]);
    await links.upsert('c1', 'offer', [{ sourceId: 'o1', crmObject: 'Opportunity', crmId: null, contentHash: 'h1b' }]);
    const found = await links.get('c1', 'offer', ['o1', 'o2', 'o3']);
    expect(found.get('o1')).toEqual({ sourceId: 'o1', crmObject: 'Opportunity', crmId: '006A', contentHash: 'h1b' });
    expect(found.has('o3')).toBe(false);
    expect(await links.count('c1')).toBe(2);
    expect(await links.forget('c1', ['offer'])).toBe(2);
  });

  it('cursors only move forward, on (time, id)', async () => {
    const cursors = createCursorStore(database.pool);
    const t1 = new Date('2026-01-01T00:00:00Z');
    await cursors.advance('c1', 'entitlement', { time: t1, id: 'e5' });
    await cursors.advance('c1', 'entitlement', { time: t1, id: 'e3' }); // a replayed, older page
    expect(await cursors.get('c1', 'entitlement')).toEqual({ time: t1, id: 'e5' });
    await cursors.advance('c1', 'entitlement', { time: t1, id: 'e9' });
    expect((await cursors.get('c1', 'entitlement'))?.id).toBe('e9');
    await cursors.reset('c1');
    expect(await cursors.get('c1', 'entitlement')).toBeUndefined();
  });

  it('dead letters: one open letter per record, attempts counted, backoff, resolved by success', async () => {
    const letters = createDeadLetterStore(database.pool);
    await letters.record('c1', 'offer', [{ sourceId: 'o9', reason: 'STRING_TOO_LONG: Name', crmError: { code: 'STRING_TOO_LONG' }, payload: { Name: 'x' } }]);
    await letters.record('c1', 'offer', [{ sourceId: 'o9', reason: 'STRING_TOO_LONG: Name (again)' }]);
    const [open] = await letters.listOpen('c1');
    expect(open).toMatchObject({ sourceId: 'o9', attempts: 2, reason: 'STRING_TOO_LONG: Name (again)' });
    expect(open!.nextRetryAt!.getTime() - open!.lastFailedAt.getTime()).toBeGreaterThanOrEqual(600_000 - 1000);
    expect(await letters.due('c1', 'offer', { maxAttempts: 5, limit: 10 })).toEqual([]);
    expect(await letters.makeDue('c1')).toBe(1);
    expect(await letters.due('c1', 'offer', { maxAttempts: 5, limit: 10 })).toHaveLength(1);
    expect(await letters.due('c1', 'offer', { maxAttempts: 2, limit: 10 })).toEqual([]); // the bound
    expect(await letters.resolve('c1', 'offer', ['o9'])).toBe(1);
    expect(await letters.listOpen('c1')).toEqual([]);
  });
});
