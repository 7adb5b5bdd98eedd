// A benchmark's child process and its driver talk over Node's IPC channel, so stdout stays the
// driver's alone (one JSON line). The child says `ready` (with what the driver needs from it), then
// answers `mark` (start of the measured phase), `report` (its memory since the mark) and `stop` (its
// memory report, then it cleans up and exits). A child whose driver goes away stops on its own.
import { fork, type ChildProcess } from 'node:child_process';
import { createMemoryTracker, type MemoryReport } from './memory.ts';

type ToChild = { type: 'mark' } | { type: 'report' } | { type: 'stop' };
type FromChild<T> = { type: 'ready'; info: T } | { type: 'marked' } | { type: 'memory'; report: MemoryReport } | { type: 'failed'; message: string };

/**
 * In the child: reports `info` as ready, serves mark/stop, runs `cleanUp` before exiting. `phase` hooks
 * run at mark and before the report (for profilers that should see the measured phase only).
 */
export function serveDriver<T>(info: T, cleanUp: () => Promise<void>, phase: { start?: () => Promise<void>; end?: () => Promise<void> } = {}): void {
  const memory = createMemoryTracker();
  const send = (message: FromChild<T>) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
  let stopping = false;
  const stop = async (report: boolean) => {
    if (stopping) return;
    stopping = true;
    if (report) {
      const measured = memory.report();
      await phase.end?.();
      await send({ type: 'memory', report: measured });
    }
    await cleanUp();
    // Whatever a library keeps open (the Temporal runtime's threads) must not keep the child alive.
    process.exit(0);
  };
  process.on('message', (message: ToChild) => {
    if (message.type === 'mark') {
      void (phase.start?.() ?? Promise.resolve()).then(() => {
        memory.mark();
        return send({ type: 'marked' });
      });
    } else if (message.type === 'report') {
      void send({ type: 'memory', report: memory.report() });
    } else if (message.type === 'stop') {
      void stop(true);
    }
  });
  process.on('disconnect', () => void stop(false));
  void send({ type: 'ready', info });
}

/** In the child: a failure before ready goes to the driver as a message, so it fails with the reason. */
export async function failToDriver(error: unknown): Promise<never> {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await new Promise<void>((resolve) => (process.send ? process.send({ type: 'failed', message }, () => resolve()) : resolve()));
  process.exit(1);
}

export type BenchChild<T> = {
  pid: number;
  info: T;
  mark(): Promise<void>;
  /** `work`, unless the child exits first (then that is the error: a dead worker must not hang the bench). */
  whileAlive<R>(work: Promise<R>): Promise<R>;
  /** The memory report since the last mark, the child running on. */
  report(): Promise<MemoryReport>;
  /** Asks for the memory report, then waits for the child to exit. */
  stop(): Promise<MemoryReport>;
  kill(): void;
};

/**
 * In the driver: starts `script` under this Node, its stdout and stderr both on the driver's stderr,
 * and resolves when it is ready.
 */
export async function startChild<T>(script: string, options: { args?: string[]; env?: Record<string, string>; execArgv?: string[] } = {}): Promise<BenchChild<T>> {
  const child: ChildProcess = fork(script, options.args ?? [], {
    env: { ...process.env, ...options.env },
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = <K extends FromChild<T>['type']>(type: K) =>
    new Promise<Extract<FromChild<T>, { type: K }>>((resolve, reject) => {
      const onMessage = (message: FromChild<T>) => {
        if (message.type === 'failed') reject(new Error(`${script} failed: ${message.message}`));
        else if (message.type === type) resolve(message as Extract<FromChild<T>, { type: K }>);
        else return;
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      void exited.then((code) => reject(new Error(`${script} exited (code ${code}) while the driver waited for '${type}'`)));
    });
  const ready = await next('ready');
  return {
    pid: child.pid!,
    info: ready.info,
    async mark() {
      const marked = next('marked');
      child.send({ type: 'mark' } satisfies ToChild);
      await marked;
    },
    whileAlive(work) {
      const died = exited.then((code) => {
        throw new Error(`${script} exited (code ${code}) before the work was done`);
      });
      died.catch(() => {});
      return Promise.race([work, died]);
    },
    async report() {
      const memory = next('memory');
      child.send({ type: 'report' } satisfies ToChild);
      return (await memory).report;
    },
    async stop() {
      const memory = next('memory');
      child.send({ type: 'stop' } satisfies ToChild);
      const { report } = await memory;
      await exited;
      return report;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
