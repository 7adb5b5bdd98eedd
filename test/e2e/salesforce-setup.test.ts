// `crm-sync setup` on a Salesforce org that has none of the project's custom objects and fields (the
// sandbox started with customMetadata 'missing'), as processes against a real PostgreSQL and Temporal:
// connect names what is missing, doctor points to setup, setup creates the objects and fields through the
// Tooling API, grants them to the integration user through a permission set (Salesforce hides a new field
// from every user until one does: field-level security) and says so, the org's describe then shows them
// (read here over plain REST), a second setup creates nothing, and connect saves the connection. Then a
// grant taken away: doctor says the field exists but is not granted (not that it is missing), and setup
// grants it again. Then a required field the mapping does not fill: connect and doctor name it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const run = promisify(execFile);

describe('crm-sync setup on a bare Salesforce org (Tooling API; real PostgreSQL and Temporal)', () => {
  const key = randomBytes(32);
  let database: TestDatabase;
  let commerce: CommerceSandbox;
  let salesforce: SalesforceSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    commerce = await startCommerceSandbox({ entitlements: 5, seed: 8 });
    salesforce = await startSalesforceSandbox({ customMetadata: 'missing' });
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      CRM_SYNC_SECRET_KEY: key.toString('base64'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      CRM_SYNC_TASK_QUEUE: `setup-${Date.now()}`,
      CRM_SYNC_DEMO: 'off',
      CRM_SYNC_OUTPUT: 'human',
      LOG_LEVEL: 'silent',
      COMMERCE_CLIENT_SECRET: commerce.clientSecret,
      SALESFORCE_CLIENT_SECRET: salesforce.clientSecret,
    };
  });
  afterAll(async () => {
    await salesforce?.stop();
    await commerce?.stop();
    await database?.drop();
  });

  const cli = (args: string[]) =>
    run(process.execPath, [BIN, ...args], { env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const connectArgs = [
    'connect', '--name', 'acme', '--paused',
    '--commerce-url', '', '--commerce-auth-url', '', '--commerce-client-id', '', '--commerce-org', '',
    '--salesforce-login-url', '', '--salesforce-client-id', '',
  ];
  const connect = (name = 'acme') => {
    const values = [commerce.apiUrl, commerce.authUrl, commerce.clientId, commerce.organizationId, salesforce.loginUrl, salesforce.clientId];
    let next = 0;
    return cli(connectArgs.map((arg) => (arg === '' ? values[next++]! : arg === 'acme' ? name : arg)));
  };
  /** The org as a REST client sees it: a session from the refresh token, then describe. */
  async function rest(pathAndQuery: string, init: RequestInit = {}) {
    const token = (await (
      await fetch(`${salesforce.loginUrl}/services/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: salesforce.refreshToken, client_id: salesforce.clientId, client_secret: salesforce.clientSecret }),
      })
    ).json()) as { instance_url: string; access_token: string };
    const answer = await fetch(`${token.instance_url}/services/data/v62.0${pathAndQuery}`, { ...init, headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json', ...init.headers } });
    const text = await answer.text(); // a 204 (a delete) has no body
    return { status: answer.status, body: (text ? JSON.parse(text) : undefined) as any };
  }
  const fieldsOf = async (object: string) => {
    const described = await rest(`/sobjects/${object}/describe`);
    return described.status === 200 ? new Map((described.body.fields as { name: string; type: string; externalId: boolean; unique: boolean; length: number }[]).map((field) => [field.name, field])) : undefined;
  };

  it('before setup the org has none of the fields; connect names them and saves nothing', async () => {
    expect((await fieldsOf('Account'))!.has('Commerce_Buyer_Id__c')).toBe(false);
    expect(await fieldsOf('Marketplace_Entitlement__c')).toBeUndefined();
    const global = await rest('/sobjects');
    expect(global.body.sobjects.map((object: { name: string }) => object.name)).not.toContain('Cosell_Referral__c');

    const refused = await connect();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Salesforce mapping: Account has no field 'Commerce_Buyer_Id__c'");
    expect(refused.stderr).toContain('not saved');
  });

  it('doctor points to setup; setup creates the objects and fields and says what it created', async () => {
    // Setup needs a saved connection: saved here by the store, as an admin would after connect named what is missing.
    await createConnectionStore(database.pool, new SecretBox(key)).create({
      name: 'acme',
      crmKind: 'salesforce',
      settings: connectionSettingsSchema.parse({
        commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
        crm: { loginUrl: salesforce.loginUrl, clientId: salesforce.clientId },
      }),
      secrets: { commerceClientSecret: commerce.clientSecret, crmClientSecret: salesforce.clientSecret },
    });
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(4);
    expect(doctor.stdout).toMatch(/!!\s+acme: credentials and mapping: Salesforce mapping: Account has no field 'Commerce_Buyer_Id__c'.*\n\s+-> crm-sync setup acme creates what the mappings need/);

    const first = await cli(['setup', 'acme']);
    expect(first.code, first.stderr).toBe(0);
    for (const made of [
      'object Marketplace_Entitlement__c',
      'object Cosell_Referral__c',
      'Account.Commerce_Buyer_Id__c (Text(64), external id, unique)',
      'Opportunity.Commerce_Referral_Id__c (Text(255), external id, unique)',
      'Opportunity.Cosell_Share__c (Checkbox)',
      // The referral's lifecycle (issue #24).
      'Opportunity.Cosell_Submit__c (Checkbox)',
      'Opportunity.Cosell_Decision__c (Picklist)',
      'Opportunity.Cosell_Decision_Reason__c (Text(255))',
      'Opportunity.Cosell_Review_Ends__c (DateTime)',
      'Marketplace_Entitlement__c.Account__c (Lookup to Account)',
      'Cosell_Referral__c.Expected_Close_Date__c (Date)',
    ]) {
      expect(first.stdout).toContain(`+ ${made}`);
    }
    for (const granted of [
      'permission set Commerce_CRM_Sync',
      'Commerce_CRM_Sync: Marketplace_Entitlement__c read, create, edit',
      'Commerce_CRM_Sync: Account.Commerce_Buyer_Id__c (read, edit)',
      'Commerce_CRM_Sync: Opportunity.Cosell_Errors__c (read, edit)',
      'Commerce_CRM_Sync assigned to the integration user 005Sb0000000001',
    ]) {
      expect(first.stdout).toContain(`+ ${granted}`);
    }
    expect(first.stdout).not.toContain('Problems');
  });

  it("the org's describe now shows them, keys marked external id and unique", async () => {
    const account = (await fieldsOf('Account'))!;
    expect(account.get('Commerce_Buyer_Id__c')).toMatchObject({ type: 'string', length: 64, externalId: true, unique: true });
    expect(account.get('Marketplace_Status__c')).toMatchObject({ type: 'picklist' });
    const entitlement = (await fieldsOf('Marketplace_Entitlement__c'))!;
    expect(entitlement.get('Commit_Amount__c')).toMatchObject({ type: 'currency' });
    expect(entitlement.get('Opportunity__c')).toMatchObject({ type: 'reference' });
    expect((await rest('/sobjects')).body.sobjects.map((object: { name: string }) => object.name)).toEqual(expect.arrayContaining(['Marketplace_Entitlement__c', 'Cosell_Referral__c']));
  });

  it('a second setup creates nothing; the Tooling API refuses a duplicate in its own words; connect now saves', async () => {
    const second = await cli(['setup', 'acme', '--json']);
    expect(second.code).toBe(0);
    const report = JSON.parse(second.stdout);
    expect(report.created).toEqual([]);
    expect(report.problems).toEqual([]);
    expect(report.present).toEqual(expect.arrayContaining(['object Marketplace_Entitlement__c', 'Account.Commerce_Buyer_Id__c', 'Opportunity.Cosell_Errors__c']));

    const duplicate = await rest('/tooling/sobjects/CustomField', { method: 'POST', body: JSON.stringify({ FullName: 'Account.Commerce_Buyer_Id__c', Metadata: { label: 'Again', type: 'Text', length: 64, externalId: true } }) });
    expect(duplicate).toEqual({ status: 400, body: [expect.objectContaining({ errorCode: 'DUPLICATE_DEVELOPER_NAME', message: 'There is already a field named Commerce_Buyer_Id__c on Account.' })] });

    const saved = await connect();
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('Saved acme');
  });

  it('a grant taken away: doctor says the field exists but is not granted; setup grants it again', async () => {
    const rows = await rest(`/query?q=${encodeURIComponent("SELECT Id FROM FieldPermissions WHERE Field = 'Account.Commerce_Buyer_Id__c' AND Parent.Name = 'Commerce_CRM_Sync'")}`);
    expect(rows.body.records).toHaveLength(1);
    expect((await rest(`/sobjects/FieldPermissions/${rows.body.records[0].Id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fieldsOf('Account'))!.has('Commerce_Buyer_Id__c')).toBe(false);

    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(4);
    expect(doctor.stdout).toMatch(
      /!!\s+acme: Salesforce field access: Account\.Commerce_Buyer_Id__c exists but the integration user is not granted it \(field-level security\)\s*\n\s+-> crm-sync setup acme grants it \(permission set Commerce_CRM_Sync\), or add it to a permission set assigned to the integration user/,
    );
    expect(doctor.stdout).not.toContain("Account has no field 'Commerce_Buyer_Id__c'");

    const again = await cli(['setup', 'acme']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('+ Commerce_CRM_Sync: Account.Commerce_Buyer_Id__c (read, edit)');
    expect((await fieldsOf('Account'))!.has('Commerce_Buyer_Id__c')).toBe(true);
  });

  it('a required field the mapping does not fill: connect refuses naming it, and doctor names it', async () => {
    const made = await rest('/tooling/sobjects/CustomField', { method: 'POST', body: JSON.stringify({ FullName: 'Account.Region__c', Metadata: { label: 'Region', type: 'Text', length: 20, required: true } }) });
    expect(made.status).toBe(201);
    const REQUIRED = 'Account.Region__c is required in this org and the mapping does not fill it: give it a default in Salesforce, make it optional, or map a value to it (overrides)';

    const refused = await connect('acme-two');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Salesforce mapping: ${REQUIRED}`);
    expect(refused.stderr).toContain('not saved');

    const doctor = await cli(['doctor']);
    expect(doctor.stdout).toContain(REQUIRED);
  });
});
