// HubSpot sandbox: search trails writes as HubSpot's index does (docs/crm-wire-behaviour.md, "Search lags
// writes"), once a test sets the lag (`POST /_sandbox/limits {searchLagMs}`): a record made or changed
// within the lag is found by search as it was before (not at all, if it is new), while reads by id see it
// at once; without the setting search follows every write at once, as every older test expects.
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control } from '../../sandbox/hubspot/testing.ts';

let sandbox: HubSpotSandbox;
let client: Client;
const LAG_MS = 1_500;
const HOSTILE = 'evt "quoted" \\ back\'slash ünïcödé 🚀';

const subjectsFound = async (subject: string): Promise<string[]> => {
  const page = await client.crm.objects.searchApi.doSearch('tasks', { filterGroups: [{ filters: [{ propertyName: 'hs_task_subject', operator: 'EQ' as never, value: subject }] }], properties: ['hs_task_subject'], limit: 10, after: undefined as never, sorts: [] });
  return page.results.map((task) => task.id);
};

/** Polls `probe` until it holds (or `withinMs` passes); answers how long it took. */
async function until(probe: () => Promise<boolean>, withinMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`not so after ${withinMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const task = (subject: string) => ({ properties: { hs_task_subject: subject, hs_timestamp: '2026-04-01T00:00:00Z' }, associations: [] });

beforeAll(async () => {
  sandbox = await startHubSpotSandbox({ searchPerSecond: 100_000, tenSecondlyLimit: 1_000_000 });
  client = new Client({ accessToken: sandbox.accessToken, basePath: sandbox.baseUrl });
});
afterAll(() => sandbox.stop());

describe('HubSpot sandbox: search lags writes when asked to', () => {
  it('finds a record at once without the setting', async () => {
    const made = await client.crm.objects.basicApi.create('tasks', task(`${HOSTILE} at once`) as never);
    expect(await subjectsFound(`${HOSTILE} at once`)).toEqual([made.id]);
    expect((await control(sandbox, 'GET', '/limits')).searchLagMs).toBe(0);
  });

  it('does not find a new record until the lag has passed, while reads by id do', async () => {
    expect((await control(sandbox, 'POST', '/limits', { searchLagMs: LAG_MS })).searchLagMs).toBe(LAG_MS);
    const before = Date.now();
    const made = await client.crm.objects.batchApi.create('tasks', { inputs: [task(HOSTILE)] } as never);
    const id = made.results[0]!.id;
    expect(await subjectsFound(HOSTILE)).toEqual([]);
    expect((await client.crm.objects.basicApi.getById('tasks', id, ['hs_task_subject'])).properties.hs_task_subject).toBe(HOSTILE);
    const read = await client.crm.objects.batchApi.read('tasks', { inputs: [{ id }], properties: ['hs_task_subject'], propertiesWithHistory: [] });
    expect(read.results.map((result) => result.id)).toEqual([id]);
    await until(async () => (await subjectsFound(HOSTILE)).includes(id), 10_000);
    expect(Date.now() - before).toBeGreaterThanOrEqual(LAG_MS);
  });

  it('finds a changed record as it was until the change is indexed, and an archived one until its archiving is', async () => {
    const made = await client.crm.objects.basicApi.create('tasks', task('old subject') as never);
    await until(async () => (await subjectsFound('old subject')).includes(made.id), 10_000);
    await client.crm.objects.basicApi.update('tasks', made.id, { properties: { hs_task_subject: 'new subject' } });
    expect(await subjectsFound('old subject')).toEqual([made.id]);
    expect(await subjectsFound('new subject')).toEqual([]);
    await until(async () => (await subjectsFound('new subject')).includes(made.id), 10_000);
    expect(await subjectsFound('old subject')).toEqual([]);
    await client.crm.objects.basicApi.archive('tasks', made.id);
    expect(await subjectsFound('new subject')).toEqual([made.id]);
    await until(async () => (await subjectsFound('new subject')).length === 0, 10_000);
  });

  it('takes only whole milliseconds up to ten minutes, and a reset ends the lag', async () => {
    await expect(control(sandbox, 'POST', '/limits', { searchLagMs: -1 })).rejects.toThrow(/searchLagMs must be a whole number/);
    await expect(control(sandbox, 'POST', '/limits', { searchLagMs: 600_001 })).rejects.toThrow(/searchLagMs must be a whole number/);
    await expect(control(sandbox, 'POST', '/limits', { searchLagMs: '5' })).rejects.toThrow(/searchLagMs must be a whole number/);
    await control(sandbox, 'POST', '/reset');
    expect((await control(sandbox, 'GET', '/limits')).searchLagMs).toBe(0);
    const made = await client.crm.objects.basicApi.create('tasks', task('after the reset') as never);
    expect(await subjectsFound('after the reset')).toEqual([made.id]);
  });
});
