// Progress heartbeats come once per record on a large page; the SDK serializes every call's details
// before its own throttle, so createBeat drops beats closer than a second to the last one sent. What
// must survive a retry (`keep`) is always sent at once. Run inside a real activity context.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createBeat } from '../../activities/activity-context.ts';

function heartbeatsOf(work: (env: MockActivityEnvironment) => void) {
  const env = new MockActivityEnvironment();
  const sent: unknown[] = [];
  env.on('heartbeat', (details: unknown) => sent.push(details));
  return env.run(async () => work(env)).then(() => sent);
}

describe('activity heartbeats', () => {
  it('sends the first beat, drops beats within the interval, sends again once it has passed', async () => {
    let clock = 0;
    const sent = await heartbeatsOf(() => {
      const beat = createBeat({}, { now: () => clock });
      for (let record = 1; record <= 500; record++) {
        clock += 3; // a record every 3 ms: 1.5 s in all
        beat({ phase: 'read', done: record });
      }
    });
    expect(sent).toEqual([
      { phase: 'read', done: 1 }, // at 3 ms
      { phase: 'read', done: 335 }, // at 1,005 ms: the first one a second after 3 ms
    ]);
  });

  it('sends kept facts at once, whatever the interval, and carries them on every later beat', async () => {
    let clock = 0;
    const sent = await heartbeatsOf(() => {
      const beat = createBeat<{ bulkJobId: string }>({}, { now: () => clock });
      beat({ phase: 'write' });
      beat.keep({ bulkJobId: '750xx0000000001' });
      clock += 1_000;
      beat({ phase: 'poll' });
    });
    expect(sent).toEqual([{ phase: 'write' }, { bulkJobId: '750xx0000000001' }, { bulkJobId: '750xx0000000001', phase: 'poll' }]);
  });
});
