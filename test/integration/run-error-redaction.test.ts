// A failed run's error and a connection's re-authorisation reason are stored redacted, as dead letters
// are: the rows are read back with SQL, as anyone with database access would, and hold none of the
// secrets the messages quoted, while the words a person needs stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReauthorisationStore } from '../../store/reauthorisation.ts';
import { createSyncRunStore } from '../../store/sync-runs.ts';
import { createStageSyncStore } from '../../store/stage-sync.ts';
import { createOutboundIntentStore } from '../../store/outbound-intents.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const BEARER = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjcm0tc3luYyJ9.c2lnbmVkLWJ5LXRoZS1pZHA';
const CLIENT_SECRET = 'Cs-8f3a91d2e7b64c05';
const URL_PASSWORD = 'Pg-pa55word-77';
const REFRESH_TOKEN = '5Aep861TSESvWeug_xvFHRBTTbf_YrTWgEyjBJo7';

// One message carrying all four, as a failure quoting its request and the answer would.
const MESSAGE = [
  `Salesforce answered 400 to POST https://login.example/services/oauth2/token (Authorization: Bearer ${BEARER})`,
  `with grant_type=refresh_token&client_id=3MVG9abc&client_secret=${CLIENT_SECRET};`,
  `the checkpoint store postgres://crm:${URL_PASSWORD}@db.internal:5432/crm refused too;`,
  `answer {"error":"invalid_grant","error_description":"expired access/refresh token","refresh_token":"${REFRESH_TOKEN}"}`,
].join(' ');
const SECRETS = [BEARER, CLIENT_SECRET, URL_PASSWORD, REFRESH_TOKEN];

describe('run errors and re-authorisation reasons are stored redacted (real PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'acme', 'salesforce', '\\x00', 'k')`);
  });
  afterAll(() => database?.drop());

  it("a failed run's error: no bearer token, client secret, URL password or refresh token in the row", async () => {
    await createSyncRunStore(database.pool).record({ id: 'run-1', connectionId: 'c1', kind: 'incremental', status: 'failed', error: MESSAGE });
    const { rows } = await database.pool.query(`SELECT row_to_json(r)::text AS row, error FROM sync_runs r WHERE id = 'run-1'`);
    for (const secret of SECRETS) expect(rows[0].row).not.toContain(secret);
    expect(rows[0].error).toBe(
      'Salesforce answered 400 to POST https://login.example/services/oauth2/token (Authorization: Bearer [redacted]) ' +
        'with grant_type=refresh_token&client_id=3MVG9abc&client_secret=[redacted]; ' +
        'the checkpoint store postgres://db.internal:5432/crm refused too; ' +
        'answer {"error":"invalid_grant","error_description":"expired access/refresh token","refresh_token":"[redacted]"}',
    );
    // A run that did not fail keeps no error at all.
    await createSyncRunStore(database.pool).record({ id: 'run-2', connectionId: 'c1', kind: 'incremental', status: 'completed' });
    expect((await database.pool.query(`SELECT error FROM sync_runs WHERE id = 'run-2'`)).rows[0].error).toBeNull();
  });

  it('a re-authorisation reason: none of them either, in the connection row', async () => {
    await createReauthorisationStore(database.pool).mark('c1', `Salesforce refused the refresh token: ${MESSAGE}`);
    const { rows } = await database.pool.query(`SELECT row_to_json(c)::text AS row, reauthorisation_reason FROM connections c WHERE id = 'c1'`);
    for (const secret of SECRETS) expect(rows[0].row).not.toContain(secret);
    expect(rows[0].reauthorisation_reason).toMatch(/^Salesforce refused the refresh token: Salesforce answered 400 .*"error":"invalid_grant"/);
    expect((await createReauthorisationStore(database.pool).get('c1'))?.reason).toBe(rows[0].reauthorisation_reason);
  });

  // Review of issue #26 defect 8: two more stored error texts the console and the CLI show.
  it("a stage change's pending reason and a co-sell intent's message: none of them either", async () => {
    await createStageSyncStore(database.pool).put('c1', { referralId: 'ref-1', crmId: '006A', commerceStage: 'Qualified', crmStage: 'Prospecting', commerceStamp: null, crmStamp: null, pendingSide: 'commerce', pendingStage: 'Qualified', pendingReason: MESSAGE, pendingAttempts: 1, nextTryAt: new Date() });
    await createOutboundIntentStore(database.pool).put('c1', 'opportunity-referral', [{ crmId: '006A', state: 'refused', commerceId: null, payloadHash: 'h', message: MESSAGE }]);
    const stage = await database.pool.query(`SELECT row_to_json(s)::text AS row FROM stage_sync s WHERE referral_id = 'ref-1'`);
    const intent = await database.pool.query(`SELECT row_to_json(i)::text AS row FROM outbound_intents i WHERE crm_id = '006A'`);
    for (const secret of SECRETS) {
      expect(stage.rows[0].row).not.toContain(secret);
      expect(intent.rows[0].row).not.toContain(secret);
    }
    expect(intent.rows[0].row).toContain('Salesforce answered 400');
  });
});
