// Ordered shutdown on SIGINT/SIGTERM: steps run last-registered first (worker, then Temporal, then
// PostgreSQL), each once, and a second signal while stopping forces the exit.
import type { Logger } from '../config/logger.ts';

export type Shutdown = {
  /** Register a cleanup step; steps run in reverse order of registration. */
  add(name: string, step: () => Promise<void>): void;
  /** Resolves when a signal arrived (or run() was called). */
  requested: Promise<NodeJS.Signals | 'done'>;
  run(reason?: NodeJS.Signals | 'done'): Promise<void>;
};

export function createShutdown(logger: Logger, signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): Shutdown {
  const steps: { name: string; step: () => Promise<void> }[] = [];
  let resolveRequested!: (reason: NodeJS.Signals | 'done') => void;
  const requested = new Promise<NodeJS.Signals | 'done'>((resolve) => (resolveRequested = resolve));
  let running: Promise<void> | undefined;

  const run = (reason: NodeJS.Signals | 'done' = 'done') => {
    if (running) return running;
    resolveRequested(reason);
    running = (async () => {
      for (const { name, step } of steps.reverse()) {
        try {
          logger.info(`Stopping ${name}`);
          await step();
        } catch (error) {
          logger.error({ err: error }, `Stopping ${name} failed`);
        }
      }
    })();
    return running;
  };

  for (const signal of signals) {
    process.on(signal, () => {
      if (running) {
        logger.warn(`${signal} again: exiting now`);
        process.exit(130);
      }
      logger.info(`${signal} received: shutting down`);
      void run(signal);
    });
  }
  return { add: (name, step) => steps.push({ name, step }), requested, run };
}
