// `crm-sync connect` / `edit` on an existing connection whose side now reaches another organization,
// as processes against real PostgreSQL, real Temporal and the sandboxes. The record links, cursors and
// dead letters belong to the old organization: kept, records "unchanged" by hash would never reach the
// new one and stale CRM ids could update the wrong records. So: refused, nothing changed, unless
// --start-afresh, which forgets them.
//
// The Salesforce sandbox reports one fixed org id (every sandbox started is "the same org"), so a second
// sandbox cannot play another org; the saved connection is made to hold another org's id instead, as a
// connection saved against production before its credentials were swapped for a sandbox's would.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { createCursorStore } from '../../store/cursors.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createRecordLinkStore } from '../../store/record-links.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const PRODUCTION_ORG = '00D5e000000Prod9AAA';

describe('connect and edit when a side reaches another organization (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let otherCommerce: CommerceSandbox;
  let salesforce: SalesforceSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    commerce = await startCommerceSandbox({ entitlements: 5, seed: 3 });
    otherCommerce = await startCommerceSandbox({ entitlements: 5, seed: 4, organizationId: 'org-2' });
    salesforce = await startSalesforceSandbox();
    // No worker on this task queue: nothing the schedules start runs.
    env = cliEnv({ databaseUrl: database.url, secretKey: randomBytes(32).toString('base64'), taskQueue: `other-org-${Date.now()}`, commerceClientSecret: commerce.clientSecret, salesforceClientSecret: salesforce.clientSecret });
  });
  afterAll(async () => {
    await commerce?.stop();
    await otherCommerce?.stop();
    await salesforce?.stop();
    await database?.drop();
  });

  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCli(env, args, extraEnv);
  const refused = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    cli(args, extraEnv).then(
      ({ stdout }) => {
        throw new Error(`expected a refusal, got ${stdout}`);
      },
      (error: { code: number; stderr: string }) => error,
    );
  const connectArgs = (side: CommerceSandbox = commerce, ...extra: string[]) => [
    'connect', '--name', 'acme',
    '--commerce-url', side.apiUrl, '--commerce-auth-url', side.authUrl,
    '--commerce-client-id', side.clientId, '--commerce-org', side.organizationId,
    '--salesforce-login-url', salesforce.loginUrl, '--salesforce-client-id', salesforce.clientId,
    ...extra,
  ];
  const row = async () => (await database.pool.query(`SELECT id, settings, updated_at FROM connections WHERE name = 'acme'`)).rows[0];
  const counts = async (id: string) => ({
    links: await createRecordLinkStore(database.pool).count(id),
    cursors: (await database.pool.query('SELECT count(*)::int AS n FROM sync_cursors WHERE connection_id = $1', [id])).rows[0].n,
    openLetters: (await createDeadLetterStore(database.pool).listOpen(id)).length,
    allLetters: (await database.pool.query('SELECT count(*)::int AS n FROM dead_letters WHERE connection_id = $1', [id])).rows[0].n,
  });
  /** What a connection learns by syncing: a link, a cursor, an open and a resolved dead letter. */
  const seedSyncState = async (id: string) => {
    await createRecordLinkStore(database.pool).upsert(id, 'buyer', [{ sourceId: 'buyer-000001', crmObject: 'Account', crmId: '001Sb00000StaleAAA', contentHash: 'h1' }]);
    await createCursorStore(database.pool).advance(id, 'buyer', { time: new Date('2026-01-01T00:00:00Z'), id: 'buyer-000001' });
    const letters = createDeadLetterStore(database.pool);
    await letters.record(id, 'offer', [{ sourceId: 'offer-open', reason: 'STRING_TOO_LONG' }, { sourceId: 'offer-fixed', reason: 'STRING_TOO_LONG' }]);
    await letters.resolve(id, 'offer', ['offer-fixed']);
  };
  let connectionId = '';
  let sandboxOrg = '';

  it('connect saves the Salesforce org id the credentials reached', async () => {
    const saved = JSON.parse((await cli(connectArgs())).stdout);
    connectionId = saved.connection;
    sandboxOrg = saved.verified.crmOrganizationId;
    expect(sandboxOrg).toMatch(/^00D\w{15}$/);
    const listed = JSON.parse((await cli(['connections'])).stdout);
    expect(listed[0].settings.crm.organizationId).toBe(sandboxOrg);
  });

  it('another Salesforce org: refused, naming both org ids and --start-afresh, and nothing changes', async () => {
    await seedSyncState(connectionId);
    await database.pool.query(`UPDATE connections SET settings = jsonb_set(settings, '{crm,organizationId}', to_jsonb($1::text)) WHERE id = $2`, [PRODUCTION_ORG, connectionId]);
    const before = await row();
    const stateBefore = await counts(connectionId);
    expect(stateBefore).toEqual({ links: 1, cursors: 1, openLetters: 1, allLetters: 2 });

    const failed = await refused(connectArgs());
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(PRODUCTION_ORG);
    expect(failed.stderr).toContain(sandboxOrg);
    expect(failed.stderr).toMatch(/was not changed/);
    expect(failed.stderr).toMatch(/--start-afresh/);
    expect(await row()).toEqual(before);
    expect(await counts(connectionId)).toEqual(stateBefore);

    // edit with secrets that reach another org: the same check.
    const editFailed = await refused(['edit', 'acme', '--every', '7m']);
    expect(editFailed.stderr).toContain(PRODUCTION_ORG);
    expect(editFailed.stderr).toMatch(/crm-sync edit again with --start-afresh/);
    expect(await row()).toEqual(before);
  });

  it('with --start-afresh: links, cursors and open dead letters are forgotten, settings show the new org, the output says so', async () => {
    const { stdout, stderr } = await cli(connectArgs(commerce, '--start-afresh'));
    const saved = JSON.parse(stdout);
    expect(saved.connection).toBe(connectionId);
    expect(saved.startedAfresh).toEqual({ recordLinks: 1, cursors: 1, openDeadLetters: 1 });
    expect(stderr).toMatch(new RegExp(`Started afresh with Salesforce org ${sandboxOrg} \\(was ${PRODUCTION_ORG}\\): forgot 1 record link`));
    expect(await counts(connectionId)).toEqual({ links: 0, cursors: 0, openLetters: 0, allLetters: 1 }); // the resolved letter is history
    const listed = JSON.parse((await cli(['connections'])).stdout);
    expect(listed[0].settings.crm.organizationId).toBe(sandboxOrg);
  });

  it('another commerce organization at another base URL: refused naming both; with --start-afresh it is saved', async () => {
    await seedSyncState(connectionId);
    const before = await row();
    const failed = await refused(connectArgs(otherCommerce), { COMMERCE_CLIENT_SECRET: otherCommerce.clientSecret });
    expect(failed.stderr).toContain(`organization ${commerce.organizationId} at ${commerce.apiUrl}`);
    expect(failed.stderr).toContain(`organization org-2 at ${otherCommerce.apiUrl}`);
    expect(await row()).toEqual(before);
    expect((await counts(connectionId)).links).toBe(1);

    const saved = JSON.parse((await cli(connectArgs(otherCommerce, '--start-afresh'), { COMMERCE_CLIENT_SECRET: otherCommerce.clientSecret })).stdout);
    expect(saved.startedAfresh).toEqual({ recordLinks: 1, cursors: 1, openDeadLetters: 1 });
    const settings = (await row()).settings;
    expect(settings.commerce).toMatchObject({ organizationId: 'org-2', baseUrl: otherCommerce.apiUrl });
    expect(settings.crm.organizationId).toBe(sandboxOrg);
  });

  it('the same organizations again: saved, links kept; a connection saved before org ids were kept adopts the verified one', async () => {
    await seedSyncState(connectionId);
    const otherEnv = { COMMERCE_CLIENT_SECRET: otherCommerce.clientSecret };
    await cli(connectArgs(otherCommerce, '--every', '9m'), otherEnv);
    expect((await row()).settings.schedule.every).toBe('9m');
    expect((await counts(connectionId)).links).toBe(1);
    // --start-afresh with nothing changed forgets nothing.
    const again = await cli(connectArgs(otherCommerce, '--start-afresh'), otherEnv);
    expect(again.stderr).toMatch(/--start-afresh had nothing to do/);
    expect(await counts(connectionId)).toMatchObject({ links: 1, cursors: 1, openLetters: 1 });

    await database.pool.query(`UPDATE connections SET settings = settings #- '{crm,organizationId}' WHERE id = $1`, [connectionId]);
    const { stderr } = await cli(['edit', 'acme', '--every', '8m'], otherEnv);
    expect(stderr).toContain(`Saved the Salesforce org id ${sandboxOrg}`);
    expect((await row()).settings.crm.organizationId).toBe(sandboxOrg);
    expect((await counts(connectionId)).links).toBe(1);
  });
});
