// Thin adapter: the heartbeat activity writes through the injected store; it is safe to run twice.
import type { HeartbeatStore } from '../store/heartbeats.ts';

export type HeartbeatActivityDeps = { heartbeats: HeartbeatStore; workerIdentity: string };

export function createHeartbeatActivities({ heartbeats, workerIdentity }: HeartbeatActivityDeps) {
  return {
    async recordHeartbeat(input: { beatId: string; workflowStart: string }): Promise<{ beatId: string; recorded: boolean }> {
      const recorded = await heartbeats.record({ beatId: input.beatId, workflowStart: new Date(input.workflowStart), workerIdentity });
      return { beatId: input.beatId, recorded };
    },
  };
}

export type HeartbeatActivities = ReturnType<typeof createHeartbeatActivities>;
