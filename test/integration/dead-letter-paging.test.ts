// A connection with 20,000 open dead letters, each with a 10 KB payload, in a real PostgreSQL: a view
// (the console's section, `crm-sync errors`) reads one page of rows without their payloads, counts
// apart, and filters in SQL. Before paging, every view read all 20,000 letters with their payloads.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDeadLetters } from '../../ops/dead-letter-view.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Letter i (1 to 20,000): offer when i % 10 < 5 (10,000), buyer when < 8 (6,000), contact otherwise
// (4,000); failed i seconds after the base, so rec-20000 is the newest. Every 1,000th reason says
// "12% over the cap" (20 letters); every 7th waits for a person (no next retry).
const SEED = `
  INSERT INTO dead_letters (connection_id, entity, source_id, reason, payload, attempts, first_failed_at, last_failed_at, next_retry_at)
  SELECT 'c1',
         CASE WHEN i % 10 < 5 THEN 'offer' WHEN i % 10 < 8 THEN 'buyer' ELSE 'contact' END,
         'rec-' || i,
         CASE WHEN i % 1000 = 0 THEN 'Amount is 12% over the cap' ELSE 'REQUIRED_FIELD_MISSING: Name' END,
         jsonb_build_object('Name', 'record ' || i, 'blob', repeat(md5(i::text), 320)),
         1 + i % 5,
         timestamptz '2026-01-01 00:00:00Z' + make_interval(secs => i),
         timestamptz '2026-01-01 00:00:00Z' + make_interval(secs => i),
         CASE WHEN i % 7 = 0 THEN NULL ELSE timestamptz '2026-02-01 00:00:00Z' + make_interval(secs => 20001 - i) END
  FROM generate_series(1, 20000) AS i`;

describe('dead letters are paged, filtered and counted in SQL (real PostgreSQL)', () => {
  let database: TestDatabase;
  /** The pool, recording each statement it runs. */
  let watched: pg.Pool;
  const statements: { text: string; params?: unknown[] }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'acme', 'salesforce', '\\x00', 'k'), ('c2', 'other', 'salesforce', '\\x00', 'k')`);
    await database.pool.query(SEED);
    await database.pool.query('ANALYZE dead_letters');
    // Not open (resolved) or another connection's: never counted nor shown.
    await database.pool.query(`INSERT INTO dead_letters (connection_id, entity, source_id, reason, resolved_at, last_failed_at) VALUES ('c1', 'offer', 'rec-resolved', 'fixed', now(), '2027-01-01Z'), ('c2', 'offer', 'rec-elsewhere', 'other', NULL, '2027-01-01Z')`);
    watched = new Proxy(database.pool, {
      get(target, key) {
        if (key !== 'query') return Reflect.get(target, key);
        return (text: string, params?: unknown[]) => {
          statements.push({ text, params });
          return target.query(text, params);
        };
      },
    });
  }, 120_000);
  afterAll(() => database?.drop());

  it('a page: 50 newest rows without payloads, the total and the counts per entity from a count', async () => {
    statements.length = 0;
    const shown = await openDeadLetters(watched, 'c1');
    expect(shown).toMatchObject({ total: 20_000, byEntity: { offer: 10_000, buyer: 6_000, contact: 4_000 }, page: 1, limit: 50, first: 1, last: 50, pages: 400 });
    expect(shown.letters).toHaveLength(50);
    expect(shown.letters.slice(0, 3).map((letter) => letter.sourceId)).toEqual(['rec-20000', 'rec-19999', 'rec-19998']);
    expect(shown.letters.every((letter) => letter.payload === undefined)).toBe(true);
    // The list's statement names its columns (no payload, no *) and stops at the page; the count is apart.
    const list = statements.find(({ text }) => /FROM dead_letters/.test(text) && /LIMIT/.test(text));
    expect(list?.text).not.toMatch(/payload|\*/);
    expect(statements.some(({ text }) => /count\(\*\)/i.test(text) && /GROUP BY entity/.test(text) && !/payload/.test(text))).toBe(true);
    expect(statements).toHaveLength(2);
    // And PostgreSQL walks the open letters' index to the page instead of reading and sorting them all.
    const { rows } = await database.pool.query(`EXPLAIN (FORMAT JSON) ${list!.text}`, list!.params);
    const plan = JSON.stringify(rows[0]['QUERY PLAN']);
    expect(plan).toContain('dead_letters_open_newest');
    expect(plan).not.toContain('"Sort"');
  });

  it('page 3 of 100: rows 201 to 300, and the rows shown carry their payloads when asked', async () => {
    const shown = await openDeadLetters(database.pool, 'c1', { page: 3, limit: 100, withPayload: true });
    expect(shown).toMatchObject({ total: 20_000, first: 201, last: 300, pages: 200 });
    expect(shown.letters).toHaveLength(100);
    expect(shown.letters[0]!.sourceId).toBe('rec-19800');
    expect(shown.letters[99]!.sourceId).toBe('rec-19701');
    expect(shown.letters[0]!.payload).toMatchObject({ Name: 'record 19800' });
    expect(((shown.letters[0]!.payload as { blob: string }).blob)).toHaveLength(10_240);
  });

  it('past the last page: no rows, the total still told', async () => {
    const shown = await openDeadLetters(database.pool, 'c1', { page: 401 });
    expect(shown).toMatchObject({ total: 20_000, first: 0, last: 0, letters: [] });
  });

  it('filters by entity, record ids and words of the reason (a % in the words is a character, not a wildcard)', async () => {
    const buyers = await openDeadLetters(database.pool, 'c1', { entity: 'buyer', limit: 10 });
    expect(buyers).toMatchObject({ total: 6_000, byEntity: { offer: 10_000, buyer: 6_000, contact: 4_000 } });
    expect(buyers.letters.map((letter) => letter.sourceId)).toEqual(['rec-19997', 'rec-19996', 'rec-19995', 'rec-19987', 'rec-19986', 'rec-19985', 'rec-19977', 'rec-19976', 'rec-19975', 'rec-19967']);
    expect(new Set(buyers.letters.map((letter) => letter.entity))).toEqual(new Set(['buyer']));

    const overCap = await openDeadLetters(database.pool, 'c1', { search: '12% OVER' });
    expect(overCap).toMatchObject({ total: 20, byEntity: { offer: 20 } });
    expect(overCap.letters[0]).toMatchObject({ sourceId: 'rec-20000', reason: 'Amount is 12% over the cap' });
    expect((await openDeadLetters(database.pool, 'c1', { search: '%' })).total).toBe(20);
    expect((await openDeadLetters(database.pool, 'c1', { search: 'rec-1999_' })).total).toBe(0);
    expect((await openDeadLetters(database.pool, 'c1', { search: 'rec-1999' })).total).toBe(11); // rec-1999 and rec-19990..19999

    const some = await openDeadLetters(database.pool, 'c1', { sourceIds: ['rec-5', 'rec-6', 'rec-resolved', 'rec-elsewhere'] });
    expect(some.total).toBe(2);
    expect(some.letters.map((letter) => letter.sourceId)).toEqual(['rec-6', 'rec-5']);
  });

  it('by next retry: the soonest first, those waiting for a person last', async () => {
    const soonest = await openDeadLetters(database.pool, 'c1', { order: 'next-retry', limit: 2 });
    expect(soonest.letters.map((letter) => letter.sourceId)).toEqual(['rec-20000', 'rec-19998']); // rec-19999 (a multiple of 7) waits for a person
    const last = await openDeadLetters(database.pool, 'c1', { order: 'next-retry', limit: 1, page: 20_000 });
    expect(last.letters[0]!.nextRetryAt).toBeNull();
  });

  it('crm-sync errors prints one page and says how to see the next; bad --limit or --page exit 2 naming the flag', async () => {
    const env = cliEnv({ databaseUrl: database.url, secretKey: randomBytes(32).toString('base64'), taskQueue: 'paging', commerceClientSecret: 'x', salesforceClientSecret: 'x', output: 'human' });
    const human = await runCli(env, ['errors', 'acme', '--limit', '5', '--page', '2']);
    expect(human.stdout.match(/^offer|^buyer|^contact/gm)).toHaveLength(5);
    expect(human.stdout).toContain('buyer rec-19995');
    expect(human.stdout).toContain('Showing 6–10 of 20,000 open; --page 3 for more. Retry them: crm-sync retry acme');
    expect(human.stdout).not.toContain('blob');

    const json = await runCli(env, ['errors', 'acme', '--entity', 'contact', '-n', '3', '--payload'], { CRM_SYNC_OUTPUT: 'json' });
    const letters = JSON.parse(json.stdout) as { sourceId: string; payload: { Name: string } }[];
    expect(letters.map((letter) => letter.sourceId)).toEqual(['rec-19999', 'rec-19998', 'rec-19989']);
    expect(letters[0]!.payload.Name).toBe('record 19999');
    expect(json.stderr).toContain('Showing 1–3 of 4,000 open; --page 2 for more.');

    for (const [args, flag] of [[['--limit', 'abc'], '--limit'], [['--limit', '501'], '--limit'], [['--page', '0'], '--page'], [['--order', 'oldest'], '--order']] as const) {
      const refused = await runCli(env, ['errors', 'acme', ...args]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code, args.join(' ')).toBe(2);
      expect(refused?.stderr).toContain(flag);
    }
  });
});
