// A saved Salesforce connection whose org rotates refresh tokens, renewed by two workers at once (two
// runtime caches on two pools, as two worker processes would hold them) on real PostgreSQL. Every
// renewal hands a new refresh token back and kills the one used; presenting a killed one revokes the
// family. Renewals of the connection take turns under its advisory lock, each starting from the stored
// token, so none fails; the stored token (sealed) is the org's current one; the connection's updated_at
// is unchanged, so neither runtime is rebuilt (which would sign in and rotate again), and no
// re-authorisation mark appears.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectionStore } from '../../store/connections.ts';
import { createPool } from '../../store/database.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { createRuntimeCache } from '../../sync/runtime.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { control } from '../../sandbox/salesforce/testing.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const ROUNDS = 6;

describe('Salesforce refresh token rotation, two workers (real PostgreSQL)', () => {
  let database: TestDatabase;
  let otherPool: ReturnType<typeof createPool>;
  let sandbox: SalesforceSandbox;
  const box = new SecretBox(Buffer.alloc(32, 7));

  beforeAll(async () => {
    [database, sandbox] = await Promise.all([createTestDatabase(), startSalesforceSandbox({ rotateRefreshTokens: true })]);
    otherPool = createPool(database.url);
  });
  afterAll(async () => {
    await otherPool?.end();
    await database?.drop();
    await sandbox?.stop();
  });

  it('renews again and again from both workers without a failure, keeping the current token sealed in the connection', async () => {
    const storeA = createConnectionStore(database.pool, box);
    const storeB = createConnectionStore(otherPool, box);
    const saved = await storeA.create({
      name: 'rotating-org',
      crmKind: 'salesforce',
      settings: {
        commerce: { baseUrl: 'http://127.0.0.1:9/api', authUrl: 'http://127.0.0.1:9/auth', clientId: 'commerce-client', organizationId: 'org-1' },
        crm: { kind: 'salesforce', loginUrl: sandbox.loginUrl, clientId: sandbox.clientId },
      },
      secrets: { commerceClientSecret: 'commerce-secret', crmClientSecret: sandbox.clientSecret, crmRefreshToken: sandbox.refreshToken },
    });

    const [runtimeForA, runtimeForB] = [createRuntimeCache(storeA), createRuntimeCache(storeB)];
    const [a, b] = await Promise.all([runtimeForA(saved.id), runtimeForB(saved.id)]);
    await Promise.all([a.crm.verify(), b.crm.verify()]);

    for (let round = 0; round < ROUNDS; round += 1) {
      await control(sandbox, 'POST', '/sessions/expire');
      // Two calls a worker: jsforce renews once for both, the workers at the same moment.
      const reads = [a, b, a, b].map((runtime) => runtime.crm.findByExternalIds('Account', 'Commerce_Buyer_Id__c', [`b-${round}`]));
      const settled = await Promise.allSettled(reads);
      expect(settled.filter((result) => result.status === 'rejected')).toEqual([]);
    }

    const tokens = await control(sandbox, 'GET', '/oauth/refresh-tokens');
    // Two logins and two renewals a round, each rotating once; no rotated-out token ever presented.
    expect(tokens).toMatchObject({ rotations: 2 + 2 * ROUNDS, reuses: 0 });
    const stored = await storeA.getWithSecrets(saved.id);
    expect(stored!.secrets.crmRefreshToken).toBe(tokens.current);
    expect(stored!.secrets).toMatchObject({ commerceClientSecret: 'commerce-secret', crmClientSecret: sandbox.clientSecret });
    expect(stored!.updatedAt.getTime()).toBe(saved.updatedAt.getTime());
    expect(stored!.needsReauthorisation).toBeUndefined();
    const raw = await database.pool.query('SELECT row_to_json(c)::text AS row FROM connections c WHERE id = $1', [saved.id]);
    expect(raw.rows[0].row).not.toContain(tokens.current);

    // The same runtimes still: nothing made them sign in again.
    expect(await runtimeForA(saved.id)).toBe(a);
    expect(await runtimeForB(saved.id)).toBe(b);
  });
});
