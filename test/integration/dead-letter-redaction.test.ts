// Nothing secret reaches the dead_letters table: a raw entitlement row with its signed spaUrl and a CRM
// error quoting a token are recorded, and the row is read back raw, as anyone with database access would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('dead letters are stored redacted (real PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.pool.query(`INSERT INTO connections (id, name, crm_kind, secrets_ciphertext, secrets_key_id) VALUES ('c1', 'c1', 'salesforce', '\\x00', 'k')`);
  });
  afterAll(() => database.drop());

  it('payload, CRM error and reason keep what a person needs and lose the signed token and the access token', async () => {
    const spaToken = 'c0ffee00c0ffee00c0ffee00c0ffee01';
    const accessToken = '00DSb0000000001!AQ8AQJ1rP4xSecretSession';
    const raw = {
      id: 'ent-9',
      lastUpdateTime: 'not a time',
      info: { spaUrl: `https://app.sandbox.example/entitlement/ent-9?token=${spaToken}`, vendorName: 'Sandbox Software Inc.' },
      auth: { access_token: accessToken },
    };
    await createDeadLetterStore(database.pool).record('c1', 'entitlement', [
      {
        sourceId: 'ent-9',
        reason: `unreadable lastUpdateTime; link was https://app.sandbox.example/entitlement/ent-9?token=${spaToken}`,
        crmError: { message: `INVALID_SESSION_ID for Bearer ${accessToken}`, fields: [] },
        payload: raw,
      },
    ]);
    const { rows } = await database.pool.query(`SELECT row_to_json(d)::text AS row FROM dead_letters d WHERE source_id = 'ent-9'`);
    expect(rows).toHaveLength(1);
    const stored: string = rows[0].row;
    expect(stored).not.toContain(spaToken);
    expect(stored).not.toContain(accessToken);
    expect(stored).not.toContain('AQ8AQJ1rP4x');
    // Still readable: where the link pointed, the vendor, the record, the CRM's own words.
    expect(stored).toContain('https://app.sandbox.example/entitlement/ent-9?[redacted]');
    expect(stored).toContain('Sandbox Software Inc.');
    expect(stored).toContain('INVALID_SESSION_ID for Bearer [redacted]');
    const letter = (await createDeadLetterStore(database.pool).listOpen('c1'))[0]!;
    expect(letter.payload).toEqual({ id: 'ent-9', lastUpdateTime: 'not a time', info: { spaUrl: 'https://app.sandbox.example/entitlement/ent-9?[redacted]', vendorName: 'Sandbox Software Inc.' }, auth: { access_token: '[redacted]' } });
    expect(raw.info.spaUrl).toContain(spaToken); // the caller's object is not changed
  });
});
