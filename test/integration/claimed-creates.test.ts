// Creates claimed before they are sent (issue #24 item 6), at the store and activity helper on real
// PostgreSQL: a fresh row is created at once with no look; a row an earlier attempt tried is looked for
// only once its create is surely visible, and what is found is adopted, never created again; an attempt
// whose retry already holds its rows (it outlived its heartbeat) stops without creating.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AFTER_FAILURE_SECONDS, CLAIM_HOLD_SECONDS, claimThenCreate } from '../../activities/claimed-creates.ts';
import { createOutboundIntentStore, type Claimant } from '../../store/outbound-intents.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('claimed creates (real PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'c1', 'salesforce', '\\x00', 'k')`);
  });
  afterAll(() => database.drop());

  const flow = 'opportunity-referral';
  const pending = (crmIds: string[]) => createOutboundIntentStore(database.pool).put('c1', flow, crmIds.map((crmId) => ({ crmId, state: 'pending', commerceId: null, payloadHash: 'h', message: null })));
  const candidates = (crmIds: string[]) => crmIds.map((crmId) => ({ crmId, request: { name: crmId } }));

  function run(claimant: Claimant, crmIds: string[], options: { found?: Record<string, string>; fail?: boolean; clockAheadSeconds?: number } = {}) {
    const looked: string[][] = [];
    const sent: string[][] = [];
    const outcome = claimThenCreate({
      intents: createOutboundIntentStore(database.pool),
      connectionId: 'c1',
      flow,
      claimant,
      chunk: candidates(crmIds),
      look: async (ids) => {
        looked.push(ids);
        return new Map(ids.filter((id) => options.found?.[id]).map((id) => [id, { id: options.found![id]! }]));
      },
      create: async (chunk) => {
        sent.push(chunk.map((candidate) => candidate.crmId));
        if (options.fail) throw new Error('socket hang up');
        return chunk.map((candidate) => ({ made: { id: `ref-${candidate.crmId}` } }));
      },
      beat: () => {},
      now: () => Date.now() + (options.clockAheadSeconds ?? 0) * 1000,
    });
    return { outcome, looked, sent };
  }

  const adoptAfter = async (crmId: string) => (await database.pool.query(`SELECT adopt_after, claim_attempt FROM outbound_intents WHERE crm_id = $1`, [crmId])).rows[0];

  it('a create never tried goes out at once, without a look, and is held for the claim hold', async () => {
    await pending(['fresh-1', 'fresh-2']);
    const before = Date.now();
    const { outcome, looked, sent } = run({ activity: 'wf/run/1', attempt: 1 }, ['fresh-1', 'fresh-2']);
    expect((await outcome).created.map((row) => row.candidate.crmId)).toEqual(['fresh-1', 'fresh-2']);
    expect(looked).toEqual([]);
    expect(sent).toEqual([['fresh-1', 'fresh-2']]);
    const held = (await adoptAfter('fresh-1')).adopt_after.getTime();
    expect(held).toBeGreaterThanOrEqual(before + (CLAIM_HOLD_SECONDS - 1) * 1000);
  });

  it('a lost create is looked for only after it is surely visible; what is found is adopted, the rest created', async () => {
    await pending(['lost-1', 'lost-2']);
    const first = run({ activity: 'wf/run/2', attempt: 1 }, ['lost-1', 'lost-2'], { fail: true });
    await expect(first.outcome).rejects.toThrow('socket hang up');
    // The failure shortened the hold to a request timeout from the failure.
    const held = (await adoptAfter('lost-1')).adopt_after.getTime();
    expect(held - Date.now()).toBeLessThanOrEqual(AFTER_FAILURE_SECONDS * 1000);
    expect(held - Date.now()).toBeGreaterThan((AFTER_FAILURE_SECONDS - 5) * 1000);

    // The retry, with its clock past the hold (no real wait): looks once, adopts lost-1, creates only lost-2.
    const retry = run({ activity: 'wf/run/2', attempt: 2 }, ['lost-1', 'lost-2'], { found: { 'lost-1': 'ref-late' }, clockAheadSeconds: AFTER_FAILURE_SECONDS + 1 });
    const outcome = await retry.outcome;
    expect(retry.looked).toEqual([['lost-1', 'lost-2']]);
    expect(outcome.adopted.map((row) => [row.candidate.crmId, row.made.id])).toEqual([['lost-1', 'ref-late']]);
    expect(retry.sent).toEqual([['lost-2']]);
  });

  it('an attempt whose retry holds its rows stops without creating (it outlived its heartbeat)', async () => {
    await pending(['zombie-1']);
    // The retry (attempt 2) claimed the row first; the old attempt 1 then reaches its create.
    const retry = run({ activity: 'wf/run/3', attempt: 2 }, ['zombie-1']);
    await retry.outcome;
    await pending(['zombie-2']);
    const holder = createOutboundIntentStore(database.pool);
    await holder.claim('c1', flow, ['zombie-2'], { activity: 'wf/run/3', attempt: 2 }, CLAIM_HOLD_SECONDS);
    const zombie = run({ activity: 'wf/run/3', attempt: 1 }, ['zombie-2']);
    await expect(zombie.outcome).rejects.toMatchObject({ type: 'SupersededAttempt', nonRetryable: true });
    expect(zombie.sent).toEqual([]);
    expect((await adoptAfter('zombie-2')).claim_attempt).toBe(2);
  });
});
