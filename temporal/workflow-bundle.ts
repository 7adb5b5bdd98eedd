// The workflow bundle, built in a short-lived child process. Bundling inside Worker.create runs
// webpack in the worker's own process and leaves ~130 MB of RSS behind for the worker's whole life
// (a worker thread does not give it back either); a child process returns it all when it exits.
// Temporal gets `workflowBundle: { code }` instead of a path: the same bundle. A process that creates
// several workers (the tests, one per case or CRM) bundles each path once and shares the code.
//
// A bundle can also be built ahead of time and named by CRM_SYNC_WORKFLOW_BUNDLE (Temporal's advice for
// production: bundle at build time, start workers without webpack). The file says which workflows
// path it was made from and is used only for that path. `npm test` builds one per run (test/support/
// global-setup.ts), so the hundreds of workers and commands a run starts do not each bundle again.
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type WorkflowBundle = { code: string };
type BundlerReply = { code: string; messages: { level: 'warn' | 'error'; message: string }[] };

/** The environment variable naming a prebuilt bundle file (writeWorkflowBundleFile's). */
export const PREBUILT_WORKFLOW_BUNDLE_ENV = 'CRM_SYNC_WORKFLOW_BUNDLE';

type BundleFile = { workflowsPath: string; code: string };

const bundles = new Map<string, Promise<WorkflowBundle>>();

export function bundleWorkflowsInChild(workflowsPath: string, log?: (level: 'warn' | 'error', message: string) => void): Promise<WorkflowBundle> {
  let prebuilt: WorkflowBundle | undefined;
  try {
    prebuilt = prebuiltBundle(workflowsPath);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  if (prebuilt) return Promise.resolve(prebuilt);
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

/** Bundles `workflowsPath` and writes it to `file`, for CRM_SYNC_WORKFLOW_BUNDLE. */
export async function writeWorkflowBundleFile(workflowsPath: string, file: string, log?: (level: 'warn' | 'error', message: string) => void): Promise<void> {
  const { code } = await bundleOnce(workflowsPath, log);
  const content: BundleFile = { workflowsPath: path.resolve(workflowsPath), code };
  writeFileSync(file, JSON.stringify(content), { mode: 0o644 });
}

/** The prebuilt bundle CRM_SYNC_WORKFLOW_BUNDLE names, when it was made from `workflowsPath`. */
function prebuiltBundle(workflowsPath: string): WorkflowBundle | undefined {
  const file = process.env[PREBUILT_WORKFLOW_BUNDLE_ENV];
  if (!file) return undefined;
  let content: Partial<BundleFile>;
  try {
    content = JSON.parse(readFileSync(file, 'utf8')) as Partial<BundleFile>;
  } catch (error) {
    throw new Error(`${PREBUILT_WORKFLOW_BUNDLE_ENV} names ${file}, which is not a readable workflow bundle (${(error as Error).message}); unset it to bundle at start`, { cause: error });
  }
  if (typeof content.code !== 'string' || typeof content.workflowsPath !== 'string') {
    throw new Error(`${PREBUILT_WORKFLOW_BUNDLE_ENV} names ${file}, which is not a workflow bundle (no code or workflowsPath); unset it to bundle at start`);
  }
  // Another path's workers (a test's own workflows) bundle their own.
  return content.workflowsPath === path.resolve(workflowsPath) ? { code: content.code } : undefined;
}
