// The worker's activities, built from their dependencies (pattern of temporalio/samples-typescript).
import type pg from 'pg';
import { createHeartbeatStore } from '../store/heartbeats.ts';
import { createHeartbeatActivities } from './heartbeat.ts';

export type ActivityDeps = { pool: pg.Pool; workerIdentity: string };

export function createActivities({ pool, workerIdentity }: ActivityDeps) {
  return {
    ...createHeartbeatActivities({ heartbeats: createHeartbeatStore(pool), workerIdentity }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
