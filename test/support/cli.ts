// Running `crm-sync` as a process, as a person at a terminal would, against the test's PostgreSQL and
// Temporal: the environment it needs and a runner bound to it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

export const CRM_SYNC_BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const run = promisify(execFile);

/** The command's environment: this test's database and Temporal, no demo, secrets as a person exports them. */
export function cliEnv(options: { databaseUrl: string; secretKey: string; taskQueue: string; commerceClientSecret: string; salesforceClientSecret: string; logLevel?: string; output?: 'json' | 'human' }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: options.databaseUrl,
    CRM_SYNC_SECRET_KEY: options.secretKey,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    CRM_SYNC_TASK_QUEUE: options.taskQueue,
    CRM_SYNC_DEMO: 'off',
    // Scripts' output (one JSON document per command); tests of the tables ask for CRM_SYNC_OUTPUT=human.
    CRM_SYNC_OUTPUT: options.output ?? 'json',
    LOG_LEVEL: options.logLevel ?? 'silent',
    COMMERCE_CLIENT_SECRET: options.commerceClientSecret,
    SALESFORCE_CLIENT_SECRET: options.salesforceClientSecret,
  };
}

/** `crm-sync <args>` with `env` (plus extra variables); rejects with stdout/stderr on a non-zero exit. */
export function runCli(env: NodeJS.ProcessEnv, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return run(process.execPath, [CRM_SYNC_BIN, ...args], { env: { ...env, ...extraEnv } });
}

export type CliOutcome = { code: number; stdout: string; stderr: string };

/** `crm-sync <args>` with its exit code, stdout and stderr, whatever the code. */
export function cliOutcome(env: NodeJS.ProcessEnv, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliOutcome> {
  return runCli(env, args, extraEnv).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}
