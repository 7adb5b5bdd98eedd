// `crm-sync doctor`: every part a sync needs, checked in turn, each answered in one line saying what is
// wrong and what to do. PostgreSQL, Temporal and its workers, then per connection: both sides'
// credentials and the CRM schema against the mappings (the same test connect makes), the CRM user's
// privileges on what the connection writes (Dataverse: its security role), the schedules, the
// re-authorisation mark and the API budget. A check that cannot run says why; the others still run.
import type { Client } from '@temporalio/client';
import { ScheduleNotFoundError } from '@temporalio/client';
import type pg from 'pg';
import { CRM_NAMES, type AccessProblem, type SecretsVault } from '../crm/connector.ts';
import { createConnector, mappingsFor } from '../crm/registry.ts';
import type { ConnectionStore } from '../store/connections.ts';
import { connectionSecretsSchema, connectionSettingsSchema, type ConnectionSecrets, type ConnectionSettings } from '../sync/connection-settings.ts';
import { verifyConnection } from '../sync/verify-connection.ts';
import { storedRefreshTokenVault } from '../sync/refresh-token-handover.ts';
import { connectionScheduleIds } from '../temporal/sync-schedules.ts';
import { readConnectionHealth } from './connection-health.ts';

export type Check = { check: string; ok: boolean; message: string; fix?: string };

export type DoctorDeps = {
  pool: pg.Pool;
  connections: ConnectionStore;
  temporal: () => Promise<Client>;
  taskQueue: string;
  /** Tests: the connection check (verifyConnection by default). */
  verify?: typeof verifyConnection;
};

// Problems that setup fixes (a field, column, property or key the mappings write is missing).
const SETUP_FIXES = /has no (field|column|property|alternate key|key)|not an external id|no such (field|table|object)|is missing|does not exist/i;

async function checkPostgres(pool: pg.Pool): Promise<Check> {
  try {
    const { rows } = await pool.query(`SELECT current_setting('server_version') AS version, (SELECT count(*)::int FROM schema_migrations) AS migrations`);
    return { check: 'PostgreSQL', ok: true, message: `reachable (version ${rows[0].version}, ${rows[0].migrations} migrations applied)` };
  } catch (error) {
    return { check: 'PostgreSQL', ok: false, message: (error as Error).message, fix: 'set DATABASE_URL to a reachable database, or unset it to use the embedded one' };
  }
}

async function checkTemporal(temporal: () => Promise<Client>, taskQueue: string): Promise<{ check: Check; client?: Client }> {
  let client: Client;
  try {
    client = await temporal();
    await client.workflowService.getSystemInfo({});
  } catch (error) {
    return { check: { check: 'Temporal', ok: false, message: (error as Error).message, fix: 'start it with crm-sync start, or set TEMPORAL_ADDRESS to your cluster' } };
  }
  try {
    const described = await client.workflowService.describeTaskQueue({ namespace: client.options.namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 });
    const pollers = described.pollers?.length ?? 0;
    if (pollers === 0) {
      return { client, check: { check: 'Temporal', ok: false, message: `reachable, but no worker polls the task queue ${taskQueue}: nothing will run`, fix: 'start a worker: crm-sync start (or crm-sync worker against a cluster)' } };
    }
    return { client, check: { check: 'Temporal', ok: true, message: `reachable; ${pollers} worker${pollers === 1 ? '' : 's'} polling ${taskQueue}` } };
  } catch (error) {
    return { client, check: { check: 'Temporal', ok: false, message: `reachable, but its task queue could not be described: ${(error as Error).message}` } };
  }
}

async function checkSchedules(client: Client | undefined, connectionId: string, name: string): Promise<Check> {
  const check = `${name}: schedules`;
  if (!client) return { check, ok: false, message: 'not checked: Temporal is not reachable' };
  const missing: string[] = [];
  const paused: string[] = [];
  for (const id of connectionScheduleIds(connectionId)) {
    try {
      if ((await client.schedule.getHandle(id).describe()).state.paused) paused.push(id);
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) missing.push(id);
      else throw error;
    }
  }
  if (missing.length) return { check, ok: false, message: `missing: ${missing.join(', ')}`, fix: `crm-sync edit ${name} (or crm-sync start) creates them` };
  if (paused.length) return { check, ok: false, message: `paused: ${paused.join(', ')}`, fix: `crm-sync resume ${name}` };
  return { check, ok: true, message: 'all four present and running' };
}

type AccessOutcome = { checks: Check[]; problems: AccessProblem[] };

/**
 * What the CRM user may not do on, or see of, the objects the connection writes, where the connector can
 * tell (Dataverse: privileges; Salesforce: field-level security). The fix is the connector's own.
 */
async function checkPrivileges(settings: ConnectionSettings, secrets: ConnectionSecrets, name: string, refreshTokens?: SecretsVault): Promise<AccessOutcome> {
  const crmName = CRM_NAMES[settings.crm.kind];
  const check = `${name}: ${crmName} ${settings.crm.kind === 'salesforce' ? 'field access' : 'privileges'}`;
  let crm: ReturnType<typeof createConnector>;
  try {
    crm = createConnector(settings, secrets, { refreshTokens });
  } catch {
    return { checks: [], problems: [] }; // the credentials check above already says what is wrong
  }
  if (!crm.checkAccess) return { checks: [], problems: [] };
  try {
    const mappings = mappingsFor(settings.crm.kind, settings.crm);
    const objects = [...new Set(settings.entities.flatMap((entity) => (mappings[entity] ? [mappings[entity].object] : [])))];
    const problems = await crm.checkAccess(objects);
    if (problems.length === 0) return { checks: [{ check, ok: true, message: `the ${settings.crm.kind === 'salesforce' ? 'integration' : 'app'} user may create, read and write ${objects.join(', ')}` }], problems };
    const checks = problems.map((problem) => ({ check, ok: false, message: problem.message, fix: crm.accessFix?.(name, problem) ?? 'grant what is named, then crm-sync doctor again' }));
    return { checks, problems };
  } catch (error) {
    return { checks: [{ check, ok: false, message: `not checked: ${(error as Error).message}` }], problems: [] };
  }
}

/** The access check after the mapping check failed: its problems only (unreadable settings are the mapping line's to report). */
async function accessChecks(storedSettings: unknown, storedSecrets: unknown, name: string, refreshTokens: SecretsVault): Promise<AccessOutcome> {
  const settings = connectionSettingsSchema.safeParse(storedSettings);
  const secrets = connectionSecretsSchema.safeParse(storedSecrets);
  if (!settings.success || !secrets.success) return { checks: [], problems: [] };
  const outcome = await checkPrivileges(settings.data, secrets.data, name, refreshTokens);
  return { checks: outcome.checks.filter((check) => !check.ok && !check.message.startsWith('not checked')), problems: outcome.problems };
}

/** A mapping-check sentence an access problem explains: the field or object is there, the user is not given it. */
function explainedByAccess(problem: string, access: AccessProblem[]): boolean {
  return access.some(({ kind, object, field }) => kind === 'not-granted' && (field ? problem.includes(`${object} has no field '${field}'`) : problem.includes(`${object} does not exist`)));
}

export async function runDoctor(deps: DoctorDeps): Promise<{ ok: boolean; checks: Check[] }> {
  const checks: Check[] = [await checkPostgres(deps.pool)];
  const temporal = await checkTemporal(deps.temporal, deps.taskQueue);
  checks.push(temporal.check);
  const verify = deps.verify ?? verifyConnection;
  const all = await deps.connections.list();
  if (all.length === 0) checks.push({ check: 'Connections', ok: false, message: 'none saved yet', fix: 'crm-sync connect (see crm-sync connect --help)' });
  const health = await readConnectionHealth(deps.pool, all);
  for (const connection of all) {
    const { name } = connection;
    const crmName = CRM_NAMES[connection.crmKind];
    const stored = await deps.connections.getWithSecrets(connection.id);
    try {
      const settings = connectionSettingsSchema.parse(stored!.settings);
      const secrets = connectionSecretsSchema.parse(stored!.secrets);
      const refreshTokens = storedRefreshTokenVault(deps.connections, connection.id); // a rotated refresh token goes back into the connection
      await verify(settings, secrets, { refreshTokens });
      checks.push({ check: `${name}: credentials and mapping`, ok: true, message: `commerce and ${crmName} accept the credentials; the mappings fit the ${crmName} schema` });
      checks.push(...(await checkPrivileges(settings, secrets, name, refreshTokens)).checks);
    } catch (error) {
      // A Salesforce field or object the integration user is not granted looks missing to the mapping
      // check: the access check tells which, and its line replaces the mapping's for it.
      const looksMissing = ((error as { problems?: string[] }).problems ?? []).some((problem) => /has no field|does not exist/.test(problem));
      const access = looksMissing ? await accessChecks(stored!.settings, stored!.secrets, name, storedRefreshTokenVault(deps.connections, connection.id)) : { checks: [], problems: [] };
      checks.push(...access.checks);
      const problems = ((error as { problems?: string[] }).problems ?? [(error as Error).message]).filter((problem) => !explainedByAccess(problem, access.problems));
      for (const problem of problems) {
        const fix = SETUP_FIXES.test(problem)
          ? `crm-sync setup ${name} creates what the mappings need (or change the mapping: crm-sync mapping ${name} --edit FILE)`
          : /credential|secret|token|unauthori|invalid_client|invalid_grant|AADSTS|expired|revoked|refused/i.test(problem)
            ? `save working secrets: crm-sync edit ${name}`
            : undefined;
        checks.push({ check: `${name}: credentials and mapping`, ok: false, message: problem, ...(fix && { fix }) });
      }
    }
    checks.push(await checkSchedules(temporal.client, connection.id, name));
    const state = health.find((entry) => entry.id === connection.id)!;
    if (state.needsReauthorisation) checks.push({ check: `${name}: re-authorisation`, ok: false, message: state.needsReauthorisation.reason, fix: `crm-sync edit ${name} with working secrets` });
    if (state.apiBudget) {
      const percent = Math.round(state.apiBudget.share * 100);
      const high = state.apiBudget.share >= 0.8;
      checks.push({
        check: `${name}: API budget`,
        ok: !high,
        message: `${state.apiBudget.used} of ${state.apiBudget.limit} daily ${crmName} API calls used (${percent}%)`,
        ...(high && { fix: `lengthen the interval (crm-sync edit ${name} --every 15m) or ask for a higher limit; syncing parks at the reserved share` }),
      });
    }
  }
  return { ok: checks.every((check) => check.ok), checks };
}
