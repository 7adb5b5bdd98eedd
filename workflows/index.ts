// Every workflow the worker runs. This module is bundled by Temporal into its deterministic sandbox:
// import only workflow code and types here, never activities or Node modules.
export { heartbeatWorkflow } from './heartbeat.ts';
export { backfillWorkflow, incrementalSyncWorkflow, reconcileWorkflow } from './sync.ts';
export { realtimeSyncWorkflow } from './realtime.ts';
export { cosellWorkflow } from './cosell.ts';
