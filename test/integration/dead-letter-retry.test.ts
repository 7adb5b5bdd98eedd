// `crm-sync dead-letters --retry` at the store: a letter that used all its attempts is never retried by
// the sync on its own; a retry by hand gives it fresh attempts so the next run's due() picks it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('dead letters retried by hand (real PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'c1', 'salesforce', '\\x00', 'k'), ('c2', 'c2', 'salesforce', '\\x00', 'k')`);
  });
  afterAll(() => database.drop());

  const failFiveTimes = async (connectionId: string, entity: string, sourceId: string) => {
    const letters = createDeadLetterStore(database.pool);
    for (let attempt = 1; attempt <= 5; attempt++) await letters.record(connectionId, entity, [{ sourceId, reason: `REQUIRED_FIELD_MISSING (attempt ${attempt})` }]);
  };
  const row = async (sourceId: string) => (await database.pool.query('SELECT * FROM dead_letters WHERE source_id = $1', [sourceId])).rows[0];
  const inAMinute = () => new Date(Date.now() + 60_000);

  it('a letter at its fifth attempt is not due even when its time has come; after --retry it is, with fresh attempts', async () => {
    const letters = createDeadLetterStore(database.pool);
    await failFiveTimes('c1', 'offer', 'offer-5x');
    const before = await row('offer-5x');
    expect(before.attempts).toBe(5);
    expect(await letters.due('c1', 'offer', { maxAttempts: 5, limit: 10, now: new Date(Date.now() + 7 * 3600_000) })).toEqual([]);

    expect(await letters.retryByHand('c1')).toEqual({ due: 1, hadUsedAllAttempts: 1 });
    const due = await letters.due('c1', 'offer', { maxAttempts: 5, limit: 10, now: new Date() });
    expect(due.map((letter) => letter.sourceId)).toEqual(['offer-5x']);
    const after = await row('offer-5x');
    expect(after.attempts).toBe(0);
    expect(after.first_failed_at).toEqual(before.first_failed_at); // when it first failed is kept

    // Failing again counts from there: the next automatic retry is five minutes out, four more follow.
    await letters.record('c1', 'offer', [{ sourceId: 'offer-5x', reason: 'still missing' }]);
    expect((await row('offer-5x')).attempts).toBe(1);
    expect(await letters.due('c1', 'offer', { maxAttempts: 5, limit: 10, now: new Date(Date.now() + 301_000) })).toHaveLength(1);
  });

  it('--entity and --id choose which letters; other connections and resolved letters are left alone', async () => {
    const letters = createDeadLetterStore(database.pool);
    await letters.record('c2', 'offer', [{ sourceId: 'o-a', reason: 'x' }, { sourceId: 'o-b', reason: 'x' }]);
    await letters.record('c2', 'entitlement', [{ sourceId: 'e-a', reason: 'x' }]);
    await letters.record('c2', 'buyer', [{ sourceId: 'b-resolved', reason: 'x' }]);
    await letters.resolve('c2', 'buyer', ['b-resolved']);
    await failFiveTimes('c1', 'entitlement', 'c1-e');

    expect(await letters.retryByHand('c2', { entity: 'offer', sourceIds: ['o-b'] })).toEqual({ due: 1, hadUsedAllAttempts: 0 });
    expect((await letters.due('c2', 'offer', { maxAttempts: 5, limit: 10, now: inAMinute() })).map((l) => l.sourceId)).toEqual(['o-b']);
    expect(await letters.due('c2', 'entitlement', { maxAttempts: 5, limit: 10, now: inAMinute() })).toEqual([]);

    expect(await letters.retryByHand('c2', { entity: 'entitlement' })).toEqual({ due: 1, hadUsedAllAttempts: 0 });
    expect(await letters.retryByHand('c2', { sourceIds: ['no-such-record'] })).toEqual({ due: 0, hadUsedAllAttempts: 0 });
    expect((await row('b-resolved')).next_retry_at.getTime()).toBeGreaterThan(Date.now()); // resolved: untouched
    expect((await row('c1-e')).attempts).toBe(5); // another connection: untouched
    expect(await letters.retryByHand('c2')).toEqual({ due: 3, hadUsedAllAttempts: 0 });
  });
});
