// `crm-sync schedules`: the schedules `crm-sync start` asserts before its worker runs (the heartbeat and
// every stored connection's syncs), then exit. On a cluster the workers run `crm-sync worker`, which
// creates no schedules; a deployment's setup Job (Helm) or one-shot service (compose) runs this after
// `crm-sync migrate`, so schedules lost with a Temporal namespace, or a new version's schedule options
// (priority), reach every connection without waiting for a `connect`.
import type { Client } from '@temporalio/client';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { connectionSettingsSchema } from '../sync/connection-settings.ts';
import { ensureHeartbeatSchedule, HEARTBEAT_SCHEDULE_ID } from '../temporal/schedules.ts';
import { connectionScheduleIds, ensureConnectionSchedules } from '../temporal/sync-schedules.ts';
import { ScheduleNotFoundError } from '@temporalio/client';
import { openCommandContext } from './context.ts';

/** The heartbeat schedule and every stored connection's schedules, created or brought up to date. */
export async function ensureAllSchedules(client: Client, connections: ConnectionStore, config: AppConfig, logger: Logger): Promise<{ heartbeat: 'created' | 'updated'; connections: string[] }> {
  const heartbeat = await ensureHeartbeatSchedule(client, { taskQueue: config.temporal.taskQueue, every: config.heartbeatEvery });
  logger.info({ scheduleId: HEARTBEAT_SCHEDULE_ID, every: config.heartbeatEvery, outcome: heartbeat }, 'Heartbeat schedule ready');
  const stored = await connections.list();
  for (const connection of stored) {
    const settings = connectionSettingsSchema.parse(connection.settings);
    await ensureConnectionSchedules(client, {
      // A paused connection's state lives in its schedules: one put back after a loss starts paused too,
      // or it would start syncing a connection someone paused.
      paused: await anyPaused(client, connectionScheduleIds(connection.id)),
      connectionId: connection.id,
      every: settings.schedule.every,
      realtimeEvery: settings.schedule.realtimeEvery,
      reconcileEvery: settings.schedule.reconcileEvery,
      cosellEvery: settings.schedule.cosellEvery,
      taskQueue: config.temporal.taskQueue,
    });
  }
  if (stored.length) logger.info({ connections: stored.map((c) => c.name) }, 'Sync schedules ready');
  return { heartbeat, connections: stored.map((c) => c.name) };
}

/** Whether any of these schedules exists and is paused (the missing ones say nothing). */
async function anyPaused(client: Client, scheduleIds: string[]): Promise<boolean> {
  for (const id of scheduleIds) {
    try {
      if ((await client.schedule.getHandle(id).describe()).state.paused) return true;
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }
  return false;
}

/** Reaches PostgreSQL and Temporal as the other short-lived commands do (their unreachable errors and exit codes). */
export async function schedulesCommand(config: AppConfig, logger: Logger): Promise<{ heartbeat: 'created' | 'updated'; connections: string[] }> {
  const context = await openCommandContext(config, logger);
  try {
    return await ensureAllSchedules(await context.temporalClient(), context.connections, config, logger);
  } finally {
    await context.close();
  }
}
