// Creates the Temporal server's two PostgreSQL databases and brings their schemas to the version the
// server expects, with the server's own tool (temporal-sql-tool): `setup-schema -v 0.0` once, then
// `update-schema` from whatever version is there. Safe to run on every start: each step is a no-op
// when already done, and an upgrade of the server only adds the versions it lacks.
import { spawn } from 'node:child_process';
import pg from 'pg';
import type { Logger } from '../config/logger.ts';
import { childEnvironment, redacted } from './temporal-child-environment.ts';
import type { PostgresTarget } from './temporal-server-config.ts';

/** The schemas compiled into temporal-sql-tool (go.temporal.io/server schema/postgresql/v12). */
const SCHEMAS = { database: 'postgresql/v12/temporal', visibilityDatabase: 'postgresql/v12/visibility' } as const;

export async function setUpTemporalSchemas(sqlTool: string, target: PostgresTarget, adminUrl: string, logger: Logger): Promise<void> {
  for (const [key, schemaName] of Object.entries(SCHEMAS) as [keyof typeof SCHEMAS, string][]) {
    const database = target[key];
    if (!(await databaseExists(adminUrl, database))) {
      logger.info({ database }, 'Creating the Temporal database');
      await runSqlTool(sqlTool, target, database, ['create-database', '--defaultdb', new URL(adminUrl).pathname.slice(1) || 'postgres'], logger);
    }
    await runSqlTool(sqlTool, target, database, ['setup-schema', '-v', '0.0'], logger);
    await runSqlTool(sqlTool, target, database, ['update-schema', '--schema-name', schemaName], logger);
    logger.debug({ database, schemaName }, 'Temporal schema is up to date');
  }
}

async function databaseExists(adminUrl: string, database: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    return rowCount === 1;
  } finally {
    await client.end();
  }
}

function runSqlTool(sqlTool: string, target: PostgresTarget, database: string, command: string[], logger: Logger): Promise<void> {
  const args = ['--plugin', 'postgres12', '--endpoint', target.host, '--port', String(target.port), '--user', target.user, '--database', database];
  // The tool checks the certificate and host name whenever --tls is given; sslmode=require asks for
  // encryption only (as libpq has it, and as the server's config gets it), so it turns the check off.
  if (target.tls) args.push('--tls', ...(target.verifyCertificate ? ['--tls-server-name', target.host] : ['--tls-disable-host-verification']));
  // The password goes by environment (SQL_PASSWORD), so it never shows in a process list; none of our
  // own variables (secret key, admin token) go with it.
  const child = spawn(sqlTool, [...args, ...command], { env: childEnvironment({ SQL_PASSWORD: target.password }), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.trim()) continue;
      const safe = redacted(line, target.password);
      output.push(safe);
      logger.debug({ component: 'temporal-sql-tool' }, safe);
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => reject(new Error(`Could not run temporal-sql-tool (${sqlTool}): ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`temporal-sql-tool ${command[0]} on the database ${database} failed (exit code ${code}):\n${output.slice(-8).join('\n')}`));
    });
  });
}
