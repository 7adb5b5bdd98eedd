// Every log line an activity writes (the SDK's "Activity failed" included) carries the connection it
// works for, beside the workflow id, run id and activity the SDK adds. The connection id is the first
// argument's, as every activity of this project takes it.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

export const connectionLogAttributes: ActivityInterceptorsFactory = () => {
  let connectionId: string | undefined;
  return {
    inbound: {
      async execute(input, next) {
        const first = input.args[0] as { connectionId?: unknown } | undefined;
        if (typeof first?.connectionId === 'string') connectionId = first.connectionId;
        return next(input);
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        return next(connectionId ? { ...input, connectionId } : input);
      },
    },
  };
};
