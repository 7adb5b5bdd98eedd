// Whether a connection's sync schedule is paused, as Temporal says: shared by `connections`/`show` and the
// console, which show a pause as the most urgent thing about a connection (ops/connection-health.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { syncScheduleId } from '../temporal/sync-schedules.ts';
import type { ScheduleState } from './connection-health.ts';

/**
 * The schedule's pause; undefined when the connection has no schedule. A busy server can drop one call (a
 * deadline, a reset stream): it is asked once more before the error goes up and the pause is shown as
 * unknown, since a pause that goes unshown is what revenue ops would act on wrongly.
 */
export async function schedulePause(client: Client, connectionId: string, retryAfterMs = 500): Promise<ScheduleState> {
  const ask = async () => ({ paused: (await client.schedule.getHandle(syncScheduleId(connectionId)).describe()).state.paused });
  try {
    return await ask();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    await sleep(retryAfterMs);
    try {
      return await ask();
    } catch (again) {
      if (again instanceof ScheduleNotFoundError) return undefined;
      throw again;
    }
  }
}
