// Bundled with the workflows (temporal/workflow-bundle-process.ts): every log line a workflow writes,
// the SDK's own included, carries the connection it works for beside the workflow and run ids the SDK
// adds. The connection id is the first argument's, as every workflow of this project takes it.
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => {
  let connectionId: string | undefined;
  return {
    inbound: [
      {
        async execute(input, next) {
          const first = input.args[0] as { connectionId?: unknown } | undefined;
          if (typeof first?.connectionId === 'string') connectionId = first.connectionId;
          return next(input);
        },
      },
    ],
    outbound: [
      {
        getLogAttributes(input, next) {
          return next(connectionId ? { ...input, connectionId } : input);
        },
      },
    ],
  };
};
