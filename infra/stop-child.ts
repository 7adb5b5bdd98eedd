// Stops a child process we started (a Temporal server, a dev server): SIGTERM so it shuts down in order,
// then SIGKILL once `graceMs` has passed without it exiting, so a stuck child never holds up a shutdown.
import type { ChildProcess } from 'node:child_process';

export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
