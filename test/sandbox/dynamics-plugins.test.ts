// The Dataverse sandbox's refusing plug-ins (issue #24 defect 1), driven with dynamics-web-api itself: a
// synchronous plug-in on Update of a table cancels the save of the rows it names with its own message and
// the IsvAborted code 0x80040265, alone or as a part of a $batch (the other parts are saved); rows it does
// not name, and creates, are saved; once removed, the row saves again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor } from './dynamics-helpers.ts';

let sb: DynamicsSandbox;
beforeAll(async () => {
  sb = await startDynamicsSandbox({ now: () => new Date('2026-03-01T10:00:00Z'), seed: 9 });
});
afterAll(async () => {
  await sb.stop();
});

const MESSAGE = 'Opportunities under legal review cannot change stage';
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: any) => ({ status: error.status, code: error.code, message: error.message }));
const stepOf = async (id: string) => ((await control(sb, 'GET', '/records/opportunity')) as any[]).find((row) => row.opportunityid === id)?.stepname;

describe('Dataverse sandbox: a plug-in refusing a save', () => {
  it('refuses the rows it names with its message and 0x80040265, saves the others, and stops when removed', async () => {
    const api = clientFor(sb);
    const held = (await api.create({ collection: 'opportunities', data: { name: 'Held', stepname: '1-Qualify' } })) as string;
    const free = (await api.create({ collection: 'opportunities', data: { name: 'Free', stepname: '1-Qualify' } })) as string;
    await control(sb, 'POST', '/plugins', { table: 'opportunity', ids: [held.toUpperCase()], message: MESSAGE });

    expect(await failure(api.update({ collection: 'opportunities', key: held, data: { stepname: '4-Close' } }))).toEqual({ status: 400, code: '0x80040265', message: MESSAGE });
    expect(await stepOf(held)).toBe('1-Qualify');

    // In a $batch outside a change set, with continue-on-error (as the connector sends it), each part stands alone.
    const batch = clientFor(sb);
    batch.startBatch();
    await batch.update({ collection: 'opportunities', key: held, data: { stepname: '4-Close' } });
    await batch.update({ collection: 'opportunities', key: free, data: { stepname: '4-Close' } });
    const answers = await batch.executeBatch({ inChangeSet: false, continueOnError: true });
    expect((answers[0] as any)?.error?.code ?? (answers[0] as any)?.code).toBe('0x80040265');
    expect(await stepOf(held)).toBe('1-Qualify');
    expect(await stepOf(free)).toBe('4-Close');

    // A create is no Update.
    expect(await api.create({ collection: 'opportunities', data: { name: 'New', stepname: '1-Qualify' } })).toBeTruthy();

    expect(await control(sb, 'GET', '/plugins')).toEqual({ plugins: [{ table: 'opportunity', ids: [held.toLowerCase()], message: MESSAGE }] });
    await control(sb, 'DELETE', '/plugins');
    await api.update({ collection: 'opportunities', key: held, data: { stepname: '4-Close' } });
    expect(await stepOf(held)).toBe('4-Close');
  });
});
