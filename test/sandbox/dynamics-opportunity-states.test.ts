// The Dataverse sandbox's opportunity states (issue #22 item 8), driven with dynamics-web-api itself:
// a PATCH that sets Won or Lost is refused with CannotUseOpportunitySetStateMessage; WinOpportunity and
// LoseOpportunity close an open opportunity with one opportunityclose activity (also inside a $batch);
// a second close is refused and makes no second activity; a closed opportunity still takes updates of
// its other columns; PATCH statecode 0 re-opens it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
beforeAll(async () => {
  sb = await startDynamicsSandbox({ now: () => new Date('2026-03-01T10:00:00Z'), seed: 8 });
});
afterAll(async () => {
  await sb.stop();
});

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: any) => ({ status: error.status, code: error.code, message: error.message }));

async function newOpportunity(name: string): Promise<string> {
  const api = clientFor(sb);
  return (await api.create({ collection: 'opportunities', data: { name, estimatedvalue: 1200 } })) as string;
}

const row = async (id: string) => ((await control(sb, 'GET', '/records/opportunity')) as any[]).find((r) => r.opportunityid === id);
const closes = async (id: string) => ((await control(sb, 'GET', '/records/opportunityclose')) as any[]).filter((r) => r._opportunityid_value === id);

describe('Dataverse sandbox: opportunity states', () => {
  it('refuses a PATCH of statecode (or a closed status reason) with 0x80100005', async () => {
    const api = clientFor(sb);
    const id = await newOpportunity('Patch me');
    expect(await failure(api.update({ collection: 'opportunities', key: id, data: { statecode: 1, statuscode: 3 } }))).toEqual({
      status: 400,
      code: '0x80100005',
      message: 'This message can not be used to set the state of opportunity to Won. In order to set state of opportunity to Won, use the WinOpportunity message instead.',
    });
    expect((await failure(api.update({ collection: 'opportunities', key: id, data: { statuscode: 4 } })))?.code).toBe('0x80100005');
    expect((await row(id)).statecode).toBe(0);
  });

  it('wins with WinOpportunity: one opportunityclose, Won 3, actual value and close date; a second win is refused', async () => {
    const api = clientFor(sb);
    const id = await newOpportunity('Win me');
    const close = { subject: 'Offer accepted', actualrevenue: 1500, actualend: '2026-02-27', 'opportunityid@odata.bind': `/opportunities(${id})` };
    await api.callAction({ actionName: 'WinOpportunity', action: { Status: 3, OpportunityClose: close } });
    expect(await row(id)).toMatchObject({ statecode: 1, statuscode: 3, actualvalue: 1500, actualclosedate: '2026-02-27' });
    expect(await closes(id)).toMatchObject([{ subject: 'Offer accepted', actualrevenue: 1500, actualend: '2026-02-27', statecode: 1 }]);
    expect(await failure(api.callAction({ actionName: 'WinOpportunity', action: { Status: 3, OpportunityClose: close } }))).toMatchObject({ status: 400, message: 'The opportunity is already closed.' });
    expect(await closes(id)).toHaveLength(1);
    // Only the form of a closed opportunity is read-only: the API still updates its columns.
    await api.update({ collection: 'opportunities', key: id, data: { stepname: 'Won', estimatedvalue: 1600 } });
    expect(await row(id)).toMatchObject({ statecode: 1, statuscode: 3, stepname: 'Won', estimatedvalue: 1600 });
  });

  it('loses with LoseOpportunity (Status 4 or 5 only; -1 takes the default) and re-opens with PATCH statecode 0', async () => {
    const api = clientFor(sb);
    const id = await newOpportunity('Lose me');
    const close = { subject: 'Offer expired', 'opportunityid@odata.bind': `/opportunities(${id})` };
    expect((await failure(api.callAction({ actionName: 'LoseOpportunity', action: { Status: 3, OpportunityClose: close } })))?.status).toBe(400);
    await api.callAction({ actionName: 'LoseOpportunity', action: { Status: -1, OpportunityClose: close } });
    expect(await row(id)).toMatchObject({ statecode: 2, statuscode: 4, actualclosedate: '2026-03-01' });
    await api.update({ collection: 'opportunities', key: id, data: { statecode: 0 } });
    expect(await row(id)).toMatchObject({ statecode: 0, statuscode: 1 });
    expect(await closes(id)).toHaveLength(1);
  });

  it('runs the actions as parts of a $batch, each answered on its own', async () => {
    const api = clientFor(sb);
    const [a, b] = [await newOpportunity('Batch A'), await newOpportunity('Batch B')];
    await control(sb, 'DELETE', '/calls');
    api.startBatch();
    await api.callAction({ actionName: 'WinOpportunity', action: { Status: 3, OpportunityClose: { subject: 'A', 'opportunityid@odata.bind': `/opportunities(${a})` } } });
    await api.callAction({ actionName: 'WinOpportunity', action: { Status: 3, OpportunityClose: { subject: 'A again', 'opportunityid@odata.bind': `/opportunities(${a})` } } });
    await api.callAction({ actionName: 'LoseOpportunity', action: { Status: 5, OpportunityClose: { subject: 'B', 'opportunityid@odata.bind': `/opportunities(${b})` } } });
    const answers = await api.executeBatch({ continueOnError: true, inChangeSet: false });
    expect(answers.map((answer: any) => (answer instanceof Error || answer?.status ? 'error' : 'ok'))).toEqual(['ok', 'error', 'ok']);
    expect(await row(a)).toMatchObject({ statecode: 1, statuscode: 3 });
    expect(await row(b)).toMatchObject({ statecode: 2, statuscode: 5 });
    expect(await closes(a)).toHaveLength(1);
    // The closes are counted apart from the batch's other operations (the benchmarks' Dynamics floor counts them).
    const calls = (await control(sb, 'GET', '/calls')) as Record<string, number>;
    expect(calls).toMatchObject({ 'POST $batch': 1, '$batch operations': 3, '$batch close actions': 3 });
  });
});
