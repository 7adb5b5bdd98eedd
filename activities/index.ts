// The worker's activities, built from their dependencies (pattern of temporalio/samples-typescript).
import type pg from 'pg';
import { createConnectionStore } from '../store/connections.ts';
import { createHeartbeatStore } from '../store/heartbeats.ts';
import type { SyncMetrics } from '../metrics/sync-metrics.ts';
import type { SecretBox } from '../store/secret-box.ts';
import { createRuntimeCache, type RuntimeOptions } from '../sync/runtime.ts';
import { createHeartbeatActivities } from './heartbeat.ts';
import { createCrmToCommerceActivities } from './crm-to-commerce.ts';
import { createCosellWindowActivities } from './cosell-window.ts';
import { createStageSyncActivities } from './stage-sync.ts';
import { createSyncActivities } from './sync.ts';
import { createAlertActivities } from './alerts.ts';

export type ActivityDeps = { pool: pg.Pool; secretBox: SecretBox; workerIdentity: string; runtime?: RuntimeOptions; metrics?: SyncMetrics; /** Where alerts link the console (CRM_SYNC_CONSOLE_URL). */ consoleUrl?: string };

export function createActivities({ pool, secretBox, workerIdentity, runtime, metrics, consoleUrl }: ActivityDeps) {
  const runtimeFor = createRuntimeCache(createConnectionStore(pool, secretBox), runtime);
  return {
    ...createHeartbeatActivities({ heartbeats: createHeartbeatStore(pool), workerIdentity }),
    ...createSyncActivities({ pool, runtimeFor, metrics }),
    ...createCrmToCommerceActivities({ pool, runtimeFor }),
    ...createStageSyncActivities({ pool, runtimeFor }),
    ...createCosellWindowActivities({ pool, runtimeFor }),
    ...createAlertActivities({ pool, secretBox, runtimeFor, consoleUrl }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
