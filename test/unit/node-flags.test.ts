// The worker's V8 settings and environment (config/node-flags.ts) reach a process only through its
// command line: the bin's shebang (`npx crm-sync worker`) and `npm start`. This keeps the three in step,
// runs the shebang's own command to see the process it makes, and runs the bin through its shebang as a
// shell would, so a line the kernel or env cannot read is caught here.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { WORKER_ENV_ASSIGNMENTS, WORKER_NODE_FLAGS } from '../../config/node-flags.ts';

const root = path.join(import.meta.dirname, '..', '..');
const bin = path.join(root, 'bin', 'crm-sync.ts');

describe('worker node flags', () => {
  it('are the ones the shebang and npm start pass', () => {
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe(`#!/usr/bin/env -S ${WORKER_ENV_ASSIGNMENTS.join(' ')} node ${WORKER_NODE_FLAGS.join(' ')}`);
    const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(scripts.start).toBe(`${WORKER_ENV_ASSIGNMENTS.join(' ')} node ${WORKER_NODE_FLAGS.join(' ')} bin/crm-sync.ts start`);
  });

  it("the shebang's command makes a process with two malloc arenas and a heap of about 1 GB", async () => {
    // As the kernel runs it: the interpreter, then the rest of the line as one argument.
    const [interpreter, argument] = readFileSync(bin, 'utf8').split('\n')[0]!.slice(2).split(/ (.*)/s);
    const env = { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}:${process.env.PATH}`, MALLOC_ARENA_MAX: '' };
    const { stdout } = await promisify(execFile)(interpreter!, [argument!, '-e', 'console.log(JSON.stringify({ arenas: process.env.MALLOC_ARENA_MAX, limit: require("node:v8").getHeapStatistics().heap_size_limit }))'], { env });
    const seen = JSON.parse(stdout) as { arenas: string; limit: number };
    expect(seen.arenas).toBe('2');
    expect(seen.limit / 1024 / 1024).toBeGreaterThanOrEqual(1024);
    expect(seen.limit / 1024 / 1024).toBeLessThan(1100);
  });

  it('give a process the heap they say: about 1 GB in all, not the machine-sized default', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...WORKER_NODE_FLAGS, '-e', 'console.log(require("node:v8").getHeapStatistics().heap_size_limit)']);
    const limitMb = Number(stdout) / 1024 / 1024;
    expect(limitMb).toBeGreaterThanOrEqual(1024);
    expect(limitMb).toBeLessThan(1100);
  });

  it('the bin runs through its shebang with the project node', async () => {
    const env = { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}:${process.env.PATH}` };
    const { stdout } = await promisify(execFile)(bin, ['--help'], { env });
    expect(stdout).toMatch(/Usage: crm-sync/);
  });
});
