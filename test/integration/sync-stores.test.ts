import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCursorStore } from '../../store/cursors.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createEntityLeaseStore } from '../../store/entity-leases.ts';
import { withEntityLock } from '../../store/entity-locks.ts';
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
    expect(found.get('o1')).toEqual({ sourceId: 'o1', crmObject: 'Opportunity', crmId: '006A', contentHash: 'h1b', sourceVersion: null, carriedId: null, knownVersion: null, knownHash: null });
    expect(found.has('o3')).toBe(false);
    expect(await links.count('c1')).toBe(2);
    expect(await links.forget('c1', ['offer'])).toBe(2);
  });

  it('record links never go back to an older source version', async () => {
    const links = createRecordLinkStore(database.pool);
    const at = (iso: string) => new Date(iso);
    await links.upsert('c1', 'offer', [{ sourceId: 'v1', crmObject: 'Opportunity', crmId: '006V', contentHash: 'new', sourceVersion: at('2026-05-02T00:00:00Z') }]);
    // A slower writer holding an older snapshot arrives later: the link keeps the newer one.
    await links.upsert('c1', 'offer', [{ sourceId: 'v1', crmObject: 'Opportunity', crmId: '006V', contentHash: 'old', sourceVersion: at('2026-05-01T00:00:00Z') }]);
    expect((await links.get('c1', 'offer', ['v1'])).get('v1')).toMatchObject({ contentHash: 'new', sourceVersion: at('2026-05-02T00:00:00Z') });
    // The same version again (a replayed activity) and a newer one both land.
    await links.upsert('c1', 'offer', [{ sourceId: 'v1', crmObject: 'Opportunity', crmId: '006V', contentHash: 'newer', sourceVersion: at('2026-05-03T00:00:00Z') }]);
    expect((await links.get('c1', 'offer', ['v1'])).get('v1')).toMatchObject({ contentHash: 'newer', sourceVersion: at('2026-05-03T00:00:00Z') });
    await links.forget('c1');
  });

  it('a pass that covered the range from the stored cursor (or the beginning) carries the cursor along; one that started later does not', async () => {
    const cursors = createCursorStore(database.pool);
    const at = (iso: string) => new Date(iso);
    // No cursor yet and a pass from the beginning: the cursor starts where the pass ended.
    expect(await cursors.advanceIfCovered('c1', 'buyer', { time: at('2026-03-01T00:00:00Z'), id: 'b9' }, new Date(0))).toBe(true);
    expect(await cursors.get('c1', 'buyer')).toEqual({ time: at('2026-03-01T00:00:00Z'), id: 'b9' });
    // A pass that started after the stored cursor left a gap: the cursor stays.
    expect(await cursors.advanceIfCovered('c1', 'buyer', { time: at('2026-06-01T00:00:00Z'), id: 'b1' }, at('2026-04-01T00:00:00Z'))).toBe(false);
    expect(await cursors.get('c1', 'buyer')).toEqual({ time: at('2026-03-01T00:00:00Z'), id: 'b9' });
    // One that started at or before it moves it forward, never back.
    expect(await cursors.advanceIfCovered('c1', 'buyer', { time: at('2026-06-01T00:00:00Z'), id: 'b1' }, at('2026-02-01T00:00:00Z'))).toBe(true);
    expect(await cursors.advanceIfCovered('c1', 'buyer', { time: at('2026-05-01T00:00:00Z'), id: 'b1' }, new Date(0))).toBe(false);
    expect(await cursors.get('c1', 'buyer')).toEqual({ time: at('2026-06-01T00:00:00Z'), id: 'b1' });
    // No cursor and a pass that did not start at the beginning: nothing is assumed.
    expect(await cursors.advanceIfCovered('c1', 'contact', { time: at('2026-06-01T00:00:00Z'), id: 'c1' }, at('2026-01-01T00:00:00Z'))).toBe(false);
    expect(await cursors.get('c1', 'contact')).toBeUndefined();
    await cursors.reset('c1');
  });

  it('entity leases: one holder at a time, renewed by it, free once released or expired', async () => {
    const leases = createEntityLeaseStore(database.pool);
    expect(await leases.claim('c1', ['buyer', 'contact'], 'backfill-1')).toEqual(['buyer', 'contact']);
    expect(await leases.claim('c1', ['buyer'], 'reconcile-1')).toEqual([]);
    expect(await leases.heldByOther('c1', 'buyer', '')).toBe('backfill-1');
    expect(await leases.heldByOther('c1', 'buyer', 'backfill-1')).toBeUndefined();
    expect(await leases.claim('c1', ['buyer'], 'backfill-1')).toEqual(['buyer']);
    await leases.release('c1', ['buyer'], 'backfill-1');
    expect(await leases.heldByOther('c1', 'buyer', '')).toBeUndefined();
    // A holder that stopped renewing (crashed, terminated) blocks nothing once its lease ran out.
    await database.pool.query(`UPDATE entity_leases SET expires_at = now() - interval '1 second' WHERE holder = 'backfill-1'`);
    expect(await leases.heldByOther('c1', 'contact', '')).toBeUndefined();
    expect(await leases.claim('c1', ['contact'], 'reconcile-1')).toEqual(['contact']);
    await leases.release('c1', ['contact'], 'reconcile-1');
  });

  it('the entity lock lets one writer in at a time per connection and entity, and waits while heartbeating', async () => {
    const order: string[] = [];
    let waits = 0;
    const first = withEntityLock(database.pool, 'c1', 'offer', {}, async () => {
      order.push('first in');
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push('first out');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = withEntityLock(database.pool, 'c1', 'offer', { pollMs: 20, onWait: () => (waits += 1) }, async () => order.push('second in'));
    // Another entity of the same connection is not held up.
    await withEntityLock(database.pool, 'c1', 'buyer', {}, async () => order.push('buyer in'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'buyer in', 'first out', 'second in']);
    expect(waits).toBeGreaterThan(0);
    // A waiter whose activity is cancelled gives up.
    const holding = withEntityLock(database.pool, 'c1', 'offer', {}, () => new Promise((resolve) => setTimeout(resolve, 300)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(withEntityLock(database.pool, 'c1', 'offer', { pollMs: 20, signal: AbortSignal.timeout(100) }, async () => 'never')).rejects.toThrow();
    await holding;
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
