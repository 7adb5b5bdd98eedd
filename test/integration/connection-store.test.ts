import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

describe('connection store (real PostgreSQL)', () => {
  let database: TestDatabase;
  const box = new SecretBox(Buffer.alloc(32, 9));
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('keeps secrets encrypted at rest and opens them for activities only', async () => {
    const store = createConnectionStore(database.pool, box);
    const created = await store.create({
      name: 'acme-salesforce',
      crmKind: 'salesforce',
      settings: { instanceUrl: 'https://acme.my.salesforce.com' },
      secrets: { clientSecret: 'very-secret-value' },
    });
    expect(created).not.toHaveProperty('secrets');
    expect(await store.get(created.id)).not.toHaveProperty('secrets');

    const raw = await database.pool.query(`SELECT row_to_json(c)::text AS row FROM connections c WHERE id = $1`, [created.id]);
    expect(raw.rows[0].row).not.toContain('very-secret-value');
    expect(raw.rows[0].row).toContain(box.keyId);

    expect((await store.getWithSecrets(created.id))?.secrets).toEqual({ clientSecret: 'very-secret-value' });
  });

  it('re-encrypts on update and refuses ciphertext moved between connections', async () => {
    const store = createConnectionStore(database.pool, box);
    const a = await store.create({ name: 'a', crmKind: 'hubspot', settings: {}, secrets: { token: 'token-a' } });
    const b = await store.create({ name: 'b', crmKind: 'dynamics', settings: {}, secrets: { token: 'token-b' } });
    await store.update(a.id, { secrets: { token: 'token-a2' }, settings: { portalId: 42 } });
    const updated = await store.getWithSecrets(a.id);
    expect(updated?.secrets).toEqual({ token: 'token-a2' });
    expect(updated?.settings).toEqual({ portalId: 42 });

    await database.pool.query(
      `UPDATE connections SET secrets_ciphertext = (SELECT secrets_ciphertext FROM connections WHERE id = $1) WHERE id = $2`,
      [a.id, b.id],
    );
    await expect(store.getWithSecrets(b.id)).rejects.toThrow(/could not be decrypted/);
  });

  it('rejects an unknown CRM kind at the database too', async () => {
    const store = createConnectionStore(database.pool, box);
    await expect(store.create({ name: 'x', crmKind: 'pipedrive' as never, settings: {}, secrets: {} })).rejects.toThrow(/crm_kind/);
  });
});
