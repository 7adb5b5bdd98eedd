// "Retry" from the CLI and the console: the chosen open dead letters get fresh attempts and are due now,
// and the connection's sync starts now to retry them (unless one is running: it retries them after each
// entity's pass). Says in one sentence what happened.
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { createDeadLetterStore, MAX_DEAD_LETTER_ATTEMPTS, type RetryFilter } from '../store/dead-letters.ts';
import type { Connection } from '../store/connections.ts';
import { syncScheduleId, triggerSync } from '../temporal/sync-schedules.ts';

export type RetryOutcome = { due: number; hadUsedAllAttempts: number; syncStarted: boolean; alreadyRunning: boolean; message: string };

export async function retryDeadLetters(pool: pg.Pool, temporal: () => Promise<Client>, connection: Connection, filter: RetryFilter): Promise<RetryOutcome> {
  const { due, hadUsedAllAttempts } = await createDeadLetterStore(pool).retryByHand(connection.id, filter);
  const scope = [filter.entity && `entity ${filter.entity}`, filter.sourceIds?.length && `id ${filter.sourceIds.join(', ')}`].filter(Boolean).join(', ');
  if (due === 0) {
    return { due, hadUsedAllAttempts, syncStarted: false, alreadyRunning: false, message: `No open dead letters${scope ? ` (${scope})` : ''} for ${connection.name}: nothing to retry` };
  }
  const client = await temporal();
  const running = (await client.schedule.getHandle(syncScheduleId(connection.id)).describe()).info.runningActions.length > 0;
  if (!running) await triggerSync(client, connection.id);
  const used = hadUsedAllAttempts ? ` (${hadUsedAllAttempts} had used all ${hadUsedAllAttempts === 1 ? 'its' : 'their'} ${MAX_DEAD_LETTER_ATTEMPTS} attempts)` : '';
  const what = `${due} dead letter${due === 1 ? '' : 's'}${used} ${due === 1 ? 'is' : 'are'} due now`;
  const how = running ? `a sync of ${connection.name} is already running: it retries them after each entity's pass, or the next run does` : `the sync starts now and retries them`;
  const blocked = connection.needsReauthorisation
    ? `; but the connection needs re-authorisation (${connection.needsReauthorisation.reason}): no sync runs until crm-sync edit saves working secrets`
    : '';
  return { due, hadUsedAllAttempts, syncStarted: !running, alreadyRunning: running, message: `${what}; ${how}${blocked}` };
}
