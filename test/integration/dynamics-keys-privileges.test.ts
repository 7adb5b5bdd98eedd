// Issue #22 items 9 and 11, the Dynamics connector and `setup` against the Dataverse sandbox:
// - alternate keys are Pending for a while after setup makes them: setup says so and what to do, the
//   connector waits rather than dead-lettering, and uses the key once Active without a restart;
// - a key Failed over duplicate rows: setup names table, key and column and what to do, and
//   reactivates it once the duplicates are gone;
// - an application user whose role lacks a privilege: setup and checkAccess name it and the role to
//   give; the write it refuses fails that record with Dataverse's own message.
import { afterEach, describe, expect, it } from 'vitest';
import { CrmError } from '../../crm/connector.ts';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { DYNAMICS_TABLES } from '../../mappings/dynamics/schema.ts';
import { startDynamicsSandbox, type DynamicsSandbox, type DynamicsSandboxOptions } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';

let dynamics: DynamicsSandbox | undefined;
afterEach(async () => {
  await dynamics?.stop();
  dynamics = undefined;
});

async function environment(options: DynamicsSandboxOptions) {
  const sandbox = (dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, ...options }));
  const settings = { orgUrl: sandbox.orgUrl, authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, apiVersion: '9.2', concurrency: 4 };
  const credentials = { authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, scope: `${new URL(sandbox.orgUrl).origin}/.default` };
  return {
    sandbox,
    connect: () => createDynamicsConnector(settings, { crmClientSecret: sandbox.clientSecret }),
    setUp: (keyWaitMs?: number) => setUpDynamics({ orgUrl: sandbox.orgUrl, credentials }, DYNAMICS_TABLES, { keyWaitMs, keyPollMs: 20 }),
  };
}

const buyer = (id: string, name = `Buyer ${id}`) => ({ sourceId: id, externalIdField: 'ccs_commercebuyerid', externalId: id, fields: { name } });
/** Calls `work` again while it throws a retryable CrmError (as the activity is retried), for up to 20 s. */
async function retried<T>(work: () => Promise<T>): Promise<T> {
  const end = Date.now() + 20_000;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof CrmError) || !error.retryable || Date.now() > end) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
const accounts = async () => (await control(dynamics!, 'GET', '/records/accounts')) as any[];

describe('alternate keys become Active later', () => {
  it('setup says a key is not active yet and what to do', async () => {
    const env = await environment({ keyActivationMs: 600_000 });
    const report = await env.setUp(0);
    expect(report.problems).toContain(
      'account alternate key ccs_commercebuyerid_key (ccs_commercebuyerid) is not active yet (Pending): Dataverse is still building its index. Wait a few minutes and run crm-sync setup again; until it is Active the sync waits instead of writing account rows by ccs_commercebuyerid',
    );
    expect(report.created).not.toContain('account alternate key ccs_commercebuyerid_key (ccs_commercebuyerid)');
  }, 60_000);

  it('the connector waits for a key being built, then uses it once Active without a restart', async () => {
    const env = await environment({ keyActivationMs: 600_000 });
    await env.setUp(0);
    const crm = env.connect();
    // Pending: nothing is written and nothing is refused record by record: the call is retried later.
    const waiting = await crm.upsert('account', [buyer('B-1')]).then(() => undefined, (error: unknown) => error);
    expect(waiting).toBeInstanceOf(CrmError);
    expect(waiting).toMatchObject({ code: 'KEY_NOT_ACTIVE', retryable: true });
    expect((waiting as Error).message).toContain('ccs_commercebuyerid_key on account');
    expect(await accounts()).toEqual([]);

    // The index job ends; the same connector (same process) writes by the key once the call is retried
    // (as Temporal retries the activity), having read the table's definition again.
    await control(env.sandbox, 'POST', '/keys', { activationMs: 0 });
    const written = await retried(() => crm.upsert('account', [buyer('B-1')]));
    expect(written[0]).toMatchObject({ ok: true });
    expect((await accounts()).map((row) => row.ccs_commercebuyerid)).toEqual(['B-1']);
  }, 60_000);

  it('setup waits for new keys to become Active and reports them created', async () => {
    const env = await environment({ keyActivationMs: 300 });
    const report = await env.setUp();
    expect(report.problems).toEqual([]);
    expect(report.created).toContain('account alternate key ccs_commercebuyerid_key (ccs_commercebuyerid)');
    const [written] = await env.connect().upsert('account', [buyer('B-2')]);
    expect(written!.ok).toBe(true);
  }, 60_000);

  it('a key Failed over duplicate rows: setup names table, key and column and what to do; once they are gone it reactivates the key', async () => {
    const env = await environment({ keyActivationMs: 0 });
    // Someone's import made the column and two accounts with the same buyer id before setup ran.
    const api = (await import('../sandbox/dynamics-helpers.ts')).clientFor(env.sandbox);
    await api.createAttribute({ entityKey: "LogicalName='account'", data: { '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', SchemaName: 'ccs_commercebuyerid', MaxLength: 100 } });
    await api.create({ collection: 'accounts', data: { name: 'Imported', ccs_commercebuyerid: 'B-7' } });
    const duplicate = (await api.create({ collection: 'accounts', data: { name: 'Imported again', ccs_commercebuyerid: 'B-7' } })) as unknown as string;

    const report = await env.setUp();
    expect(report.problems).toContain(
      "account alternate key ccs_commercebuyerid_key (ccs_commercebuyerid) could not be activated (Failed): account rows already hold duplicate ccs_commercebuyerid values, so Dataverse could not build the key's unique index. Find the account rows sharing a ccs_commercebuyerid value, merge or delete the extra ones, then run crm-sync setup again: it reactivates the key",
    );
    // A record written by that key fails alone, saying why.
    const [refused] = await env.connect().upsert('account', [buyer('B-8')]);
    expect(refused).toMatchObject({ ok: false, error: { code: 'KEY_FAILED' } });
    expect(!refused!.ok && refused!.error.message).toContain('rows hold duplicate ccs_commercebuyerid values');

    await api.deleteRecord({ collection: 'accounts', key: duplicate });
    const again = await env.setUp();
    expect(again.problems).toEqual([]);
    expect(again.present).toContain('account alternate key ccs_commercebuyerid_key (ccs_commercebuyerid)');
    const [written] = await env.connect().upsert('account', [buyer('B-7', 'Buyer seven')]);
    expect(written!.ok).toBe(true);
    expect((await accounts()).filter((row) => row.ccs_commercebuyerid === 'B-7').map((row) => row.name)).toEqual(['Buyer seven']);
  }, 60_000);
});

describe("the application user's privileges", () => {
  it('setup and checkAccess name a missing privilege and the role to give; the refused write keeps Dataverse\'s message', async () => {
    const env = await environment({ keyActivationMs: 0, missingPrivileges: ['prvWriteccs_marketplaceentitlement'] });
    const expected =
      'the application user lacks prvWriteccs_marketplaceentitlement on the ccs_marketplaceentitlement table, so Dataverse refuses the sync\'s ccs_marketplaceentitlement writes: give it a security role with Create, Read, Write, Append and Append To on ccs_marketplaceentitlement at Organization level (Power Platform admin center > Environments > this environment > Settings > Users + permissions > Application users > the app > Edit security roles), then run crm-sync doctor again';
    const report = await env.setUp();
    expect(report.problems).toEqual([expected]);
    const crm = env.connect();
    expect(await crm.checkAccess!(['account', 'opportunity', 'ccs_marketplaceentitlement'])).toEqual([{ object: 'ccs_marketplaceentitlement', kind: 'privilege', message: expected }]);

    const entitlement = { sourceId: 'E-1', externalIdField: 'ccs_entitlementid', externalId: 'E-1', fields: { ccs_name: 'Entitlement 1' } };
    const [created] = await crm.upsert('ccs_marketplaceentitlement', [entitlement]); // Create is granted
    expect(created!.ok).toBe(true);
    const [refused] = await crm.upsert('ccs_marketplaceentitlement', [{ ...entitlement, fields: { ccs_name: 'Entitlement 1, renamed' } }]);
    expect(refused!.ok).toBe(false);
    expect(!refused!.ok && refused!.error.message).toMatch(/^Principal user \(Id=[0-9a-f-]{36}, type=8, roleCount=1, privilegeCount=\d+, accessMode=0\), is missing prvWriteccs_marketplaceentitlement privilege \(Id=[0-9a-f-]{36}\) on OTC=\d+ for entity 'ccs_marketplaceentitlement'/);
    expect(!refused!.ok && refused!.error.code).toBe('0x80040220');
  }, 60_000);
});
