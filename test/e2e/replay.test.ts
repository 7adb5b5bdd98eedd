// Determinism: recorded histories (test/fixtures/histories, as `temporal workflow show -o json` prints
// them) must replay against today's workflow code. Re-record with RECORD_HISTORIES=1 npm test only when
// a change is meant to be incompatible (and then version the workflow with patched()).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_PATH } from '../../worker.ts';

const HISTORIES_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'histories');

async function* recordedHistories() {
  for (const file of readdirSync(HISTORIES_DIR).filter((name) => name.endsWith('.json'))) {
    yield { workflowId: file, history: JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) };
  }
}

describe('workflow determinism', () => {
  it('replays every recorded history against the current workflow code', async () => {
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, recordedHistories())) results.push(result);
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result.error, `${result.workflowId} failed to replay`).toBeUndefined();
  });

  it('would catch an incompatible change to a workflow', async () => {
    const changed = path.join(import.meta.dirname, '..', 'fixtures', 'changed-workflows', 'index.ts');
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: changed }, recordedHistories())) results.push(result);
    expect(results[0]?.error).toBeInstanceOf(DeterminismViolationError);
  });
});
