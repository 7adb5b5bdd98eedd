// CRM_SYNC_WORKFLOW_BUNDLE: a bundle built ahead of time is used for the workflows path it was made
// from, and only for that one; a file that is no bundle is named in a clear error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { bundleWorkflowsInChild, PREBUILT_WORKFLOW_BUNDLE_ENV } from '../../temporal/workflow-bundle.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-prebuilt-'));
const file = path.join(dir, 'bundle.json');
let saved: string | undefined;
beforeEach(() => {
  saved = process.env[PREBUILT_WORKFLOW_BUNDLE_ENV];
  process.env[PREBUILT_WORKFLOW_BUNDLE_ENV] = file;
});
afterEach(() => {
  if (saved === undefined) delete process.env[PREBUILT_WORKFLOW_BUNDLE_ENV];
  else process.env[PREBUILT_WORKFLOW_BUNDLE_ENV] = saved;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('gives the prebuilt code for the path it was made from, without bundling', async () => {
  const workflowsPath = path.join(dir, 'made-from', 'index.ts'); // does not exist: bundling it would fail
  writeFileSync(file, JSON.stringify({ workflowsPath, code: '/* prebuilt marker */' }));
  await expect(bundleWorkflowsInChild(workflowsPath)).resolves.toEqual({ code: '/* prebuilt marker */' });
  // The same path written another way is the same path.
  await expect(bundleWorkflowsInChild(path.join(dir, 'made-from', '..', 'made-from', 'index.ts'))).resolves.toEqual({ code: '/* prebuilt marker */' });
});

it('bundles another path itself (here a missing one, so the bundler says so)', async () => {
  writeFileSync(file, JSON.stringify({ workflowsPath: path.join(dir, 'made-from', 'index.ts'), code: '/* prebuilt marker */' }));
  await expect(bundleWorkflowsInChild(path.join(dir, 'other', 'index.ts'))).rejects.toThrow(/Could not bundle the workflows in .*other/);
});

it('names the variable and the file when the file is not a bundle', async () => {
  writeFileSync(file, 'not json');
  await expect(bundleWorkflowsInChild(path.join(dir, 'x.ts'))).rejects.toThrow(`${PREBUILT_WORKFLOW_BUNDLE_ENV} names ${file}, which is not a readable workflow bundle`);
  writeFileSync(file, JSON.stringify({ code: 42 }));
  await expect(bundleWorkflowsInChild(path.join(dir, 'x.ts'))).rejects.toThrow(`${PREBUILT_WORKFLOW_BUNDLE_ENV} names ${file}, which is not a workflow bundle`);
});
