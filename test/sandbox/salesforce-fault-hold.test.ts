// Salesforce sandbox: a fault rule with `hold: true` keeps the matching requests waiting, before they
// are carried out, until the faults are cleared; with `sobject` it holds that object's requests only
// (named by the path, or by a collection's records' attributes.type). Tests use it to stop a run in
// the middle for as long as they need instead of a fixed latency (test/e2e/operator-commands.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { clientCredentialsConnection, control } from '../../sandbox/salesforce/testing.ts';

let sandbox: SalesforceSandbox;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
});
afterAll(() => sandbox.stop());

describe('Salesforce sandbox: held requests', () => {
  it("holds one object's collection writes until the faults are cleared, while the other objects' pass", async () => {
    const { conn } = await clientCredentialsConnection(sandbox);
    const listed = await control(sandbox, 'POST', '/faults', { endpoint: 'composite-*', sobject: 'Opportunity', hold: true });
    expect(listed.faults).toEqual([expect.objectContaining({ endpoint: 'composite-*', sobject: 'Opportunity', hold: true })]);

    let settled = false;
    const held = conn
      .sobject('Opportunity')
      .create([
        { Name: 'Held one', StageName: 'Prospecting', CloseDate: '2030-01-01' },
        { Name: 'Held two', StageName: 'Prospecting', CloseDate: '2030-01-01' },
      ])
      .finally(() => (settled = true));
    // The held request has arrived (it is counted) before the Accounts are sent.
    for (let tries = 0; ((await control(sandbox, 'GET', '/calls'))['composite-create'] ?? 0) < 1; tries += 1) {
      expect(tries, 'the held request reached the sandbox').toBeLessThan(400);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Another object's collection, and an Opportunity created alone (another endpoint), are carried out meanwhile.
    const accounts = await conn.sobject('Account').create([{ Name: 'Passes one' }, { Name: 'Passes two' }]);
    expect(accounts.map((result) => result.success)).toEqual([true, true]);
    const single = await conn.sobject('Opportunity').create({ Name: 'Not a collection', StageName: 'Prospecting', CloseDate: '2030-01-01' });
    expect(single.success).toBe(true);
    // The held one has not been answered, nor carried out.
    expect(settled).toBe(false);
    const names = async () => ((await control(sandbox, 'GET', '/records/Opportunity')) as { Name: string }[]).map((record) => record.Name).sort();
    expect(await names()).toEqual(['Not a collection']);

    await control(sandbox, 'DELETE', '/faults');
    const results = await held;
    expect(results.map((result) => result.success)).toEqual([true, true]);
    expect(await names()).toEqual(['Held one', 'Held two', 'Not a collection']);
  });

  it('refuses a hold that is not a boolean and an object name that is not a string', async () => {
    const post = (body: unknown) => fetch(`${sandbox.instanceUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ hold: 'yes' })).status).toBe(400);
    expect((await post({ hold: true, sobject: 7 })).status).toBe(400);
    expect((await control(sandbox, 'GET', '/faults')).faults).toEqual([]);
  });
});
