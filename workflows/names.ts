// Workflow type names as data, for clients and schedules that start workflows without importing their code.
export const WORKFLOW_TYPES = {
  heartbeat: 'heartbeatWorkflow',
  incrementalSync: 'incrementalSyncWorkflow',
  backfill: 'backfillWorkflow',
  realtimeSync: 'realtimeSyncWorkflow',
  reconcile: 'reconcileWorkflow',
  cosell: 'cosellWorkflow',
} as const;
