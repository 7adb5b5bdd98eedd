// "Retry" from the CLI and the console: the chosen open dead letters get fresh attempts and are due now,
// and the connection's sync starts now to retry them (unless one is running: it retries them after each
// entity's pass). Says in one sentence what happened.
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type pg from 'pg';
import { createDeadLetterStore, MAX_DEAD_LETTER_ATTEMPTS, type RetryFilter } from '../store/dead-letters.ts';
import type { Connection } from '../store/connections.ts';
import { cosellScheduleId, syncScheduleId, triggerSync } from '../temporal/sync-schedules.ts';
import { CRM_FLOWS } from '../flows/index.ts';

export type RetryOutcome = { due: number; hadUsedAllAttempts: number; syncStarted: boolean; alreadyRunning: boolean; message: string };

export async function retryDeadLetters(pool: pg.Pool, temporal: () => Promise<Client>, connection: Connection, filter: RetryFilter): Promise<RetryOutcome> {
  const store = createDeadLetterStore(pool);
  // Refused co-sell write-backs are retried by the co-sell run, not the sync (issue #24 item 7).
  // Counted in SQL per entity: the letters themselves (payloads and all) are never loaded to retry them.
  const { byEntity } = await store.countOpen(connection.id, { ...(filter.sourceIds?.length && { sourceIds: filter.sourceIds }) });
  const cosellDue = Object.entries(byEntity).filter(([entity]) => entity in CRM_FLOWS && (!filter.entity || entity === filter.entity)).reduce((sum, [, open]) => sum + open, 0);
  const { due, hadUsedAllAttempts } = await store.retryByHand(connection.id, filter);
  const scope = [filter.entity && `entity ${filter.entity}`, filter.sourceIds?.length && `id ${filter.sourceIds.join(', ')}`].filter(Boolean).join(', ');
  if (due === 0) {
    return { due, hadUsedAllAttempts, syncStarted: false, alreadyRunning: false, message: `No open dead letters${scope ? ` (${scope})` : ''} for ${connection.name}: nothing to retry` };
  }
  const client = await temporal();
  const cosell = cosellDue > 0 ? await startCosellRun(client, connection.id) : undefined;
  if (cosellDue === due) {
    const what = `${due} refused co-sell write-back${due === 1 ? '' : 's'} ${due === 1 ? 'is' : 'are'} due now`;
    return { due, hadUsedAllAttempts, syncStarted: cosell === 'started', alreadyRunning: cosell === 'running', message: `${what}; ${COSELL_SENTENCE[cosell!]}` };
  }
  const running = (await client.schedule.getHandle(syncScheduleId(connection.id)).describe()).info.runningActions.length > 0;
  if (!running) await triggerSync(client, connection.id);
  const used = hadUsedAllAttempts ? ` (${hadUsedAllAttempts} had used all ${hadUsedAllAttempts === 1 ? 'its' : 'their'} ${MAX_DEAD_LETTER_ATTEMPTS} attempts)` : '';
  const what = `${due} dead letter${due === 1 ? '' : 's'}${used} ${due === 1 ? 'is' : 'are'} due now`;
  const how = running ? `a sync of ${connection.name} is already running: it retries them after each entity's pass, or the next run does` : `the sync starts now and retries them`;
  const blocked = connection.needsReauthorisation
    ? `; but the connection needs re-authorisation (${connection.needsReauthorisation.reason}): no sync runs until crm-sync edit saves working secrets`
    : '';
  const alsoCosell = cosell ? `; ${cosellDue} of them ${cosellDue === 1 ? 'is a' : 'are'} refused co-sell write-back${cosellDue === 1 ? '' : 's'}: ${COSELL_SENTENCE[cosell]}` : '';
  return { due, hadUsedAllAttempts, syncStarted: !running, alreadyRunning: running, message: `${what}; ${how}${alsoCosell}${blocked}` };
}

const COSELL_SENTENCE = {
  started: 'the co-sell run starts now and writes them again',
  running: 'a co-sell run is already running: the next one writes them again',
  unscheduled: 'co-sell is not scheduled for this connection, so nothing writes them until it is',
} as const;

/** Runs the connection's co-sell schedule now (SKIP, like the sync), or says why not. */
async function startCosellRun(client: Client, connectionId: string): Promise<keyof typeof COSELL_SENTENCE> {
  const handle = client.schedule.getHandle(cosellScheduleId(connectionId));
  let running: boolean;
  try {
    running = (await handle.describe()).info.runningActions.length > 0;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return 'unscheduled';
    throw error;
  }
  if (running) return 'running';
  await handle.trigger(ScheduleOverlapPolicy.SKIP);
  return 'started';
}
