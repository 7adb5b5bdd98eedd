// The schedule's pause as `connections`, `show` and the console read it: one dropped call is asked again,
// a missing schedule is no pause to show, and an error that persists goes up (shown as unknown).
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { schedulePause } from '../../ops/schedule-pause.ts';

/** A client whose schedule describe answers each call from `answers` in turn (an Error is thrown). */
function clientAnswering(answers: (boolean | Error)[]) {
  const asked: string[] = [];
  const client = {
    schedule: {
      getHandle: (id: string) => ({
        describe: async () => {
          asked.push(id);
          const answer = answers.shift();
          if (answer instanceof Error) throw answer;
          return { state: { paused: answer } };
        },
      }),
    },
  } as unknown as Client;
  return { client, asked };
}

describe('schedulePause', () => {
  it('asks once more when Temporal drops the first call, and says paused', async () => {
    const { client, asked } = clientAnswering([new Error('14 UNAVAILABLE: Connection dropped'), true]);
    await expect(schedulePause(client, 'c-1', 1)).resolves.toEqual({ paused: true });
    // Both times the connection's own schedule.
    expect(asked).toEqual(['crm-sync-connection-c-1', 'crm-sync-connection-c-1']);
  });

  it('a connection without a schedule has no pause to show; an error twice goes up', async () => {
    await expect(schedulePause(clientAnswering([new ScheduleNotFoundError('not found', 'x')]).client, 'c-1', 1)).resolves.toBeUndefined();
    await expect(schedulePause(clientAnswering([new Error('deadline'), new Error('deadline again')]).client, 'c-1', 1)).rejects.toThrow('deadline again');
    await expect(schedulePause(clientAnswering([false]).client, 'c-1', 1)).resolves.toEqual({ paused: false });
  });
});
