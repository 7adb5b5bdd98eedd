// The workflow bundle, built in a short-lived child process. Bundling inside Worker.create runs
// webpack in the worker's own process and leaves ~130 MB of RSS behind for the worker's whole life
// (a worker thread does not give it back either); a child process returns it all when it exits.
// Temporal gets `workflowBundle: { code }` instead of a path: the same bundle. A process that creates
// several workers (the tests, one per case or CRM) bundles each path once and shares the code.
import { fork } from 'node:child_process';

export type WorkflowBundle = { code: string };
type BundlerReply = { code: string; messages: { level: 'warn' | 'error'; message: string }[] };

const bundles = new Map<string, Promise<WorkflowBundle>>();

export function bundleWorkflowsInChild(workflowsPath: string, log?: (level: 'warn' | 'error', message: string) => void): Promise<WorkflowBundle> {
  let bundle = bundles.get(workflowsPath);
  if (!bundle) {
    bundle = bundleOnce(workflowsPath, log);
    bundles.set(workflowsPath, bundle);
    // A failed bundling is not kept: the next worker tries again.
    bundle.catch(() => bundles.delete(workflowsPath));
  }
  return bundle;
}

function bundleOnce(workflowsPath: string, log?: (level: 'warn' | 'error', message: string) => void): Promise<WorkflowBundle> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./workflow-bundle-process.ts', import.meta.url), [workflowsPath], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    let reply: BundlerReply | undefined;
    child.once('message', (message) => (reply = message as BundlerReply));
    child.once('error', (error) => reject(new Error(`Could not start the workflow bundler: ${error.message}`, { cause: error })));
    child.once('exit', (code) => {
      if (!reply) return reject(new Error(`Could not bundle the workflows in ${workflowsPath} (bundler exit code ${code}):\n${stderr.trim()}`));
      for (const { level, message } of reply.messages) log?.(level, message);
      resolve({ code: reply.code });
    });
  });
}
