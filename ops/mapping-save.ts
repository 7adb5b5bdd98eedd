// Saving mapping overrides (issue #26 section 3). One check for `crm-sync mapping --edit` and the
// console: the overrides are shaped as settings take them, then every mapping the connection runs (and
// the flow being edited) is checked against the CRM's described schema with them; a problem saves
// nothing. A console save also keeps a version (store/mapping-versions.ts) and an audit event, in the
// same transaction as the settings, so the three never disagree; a rollback saves an old version again
// through the same check, as a new version.
import type pg from 'pg';
import type { CrmConnector } from '../crm/connector.ts';
import { mappingsFor } from '../crm/registry.ts';
import { checkMappings, MappingConfigError } from '../mappings/check.ts';
import type { EntityOverrides, MappingOverrides } from '../mappings/overrides.ts';
import type { Entity } from '../mappings/types.ts';
import { createAuditStore, type AuditActor, type AuditVia, actorLabel } from '../store/audit.ts';
import type { Connection, ConnectionStore } from '../store/connections.ts';
import { createMappingVersionStore, type MappingVersion } from '../store/mapping-versions.ts';
import { connectionSettingsSchema, mappingOverridesSchema, type ConnectionSettings } from '../sync/connection-settings.ts';

/** The overrides do not fit: nothing was saved. Each problem names the field or value. */
export class MappingOverridesRefused extends Error {
  override name = 'MappingOverridesRefused';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The mapping does not fit the CRM; nothing was saved:\n- ${problems.join('\n- ')}`);
    this.problems = problems;
  }
}

/**
 * The check before any save of overrides: the settings they would make, or MappingOverridesRefused.
 * `flows`: flows to check besides the connection's entities (the one a person is editing).
 */
export async function checkMappingOverrides(crm: CrmConnector, settings: unknown, overrides: unknown, flows: Entity[] = []): Promise<ConnectionSettings> {
  const shaped = mappingOverridesSchema.safeParse(overrides);
  if (!shaped.success) throw new MappingOverridesRefused(shaped.error.issues.map((issue) => `${issue.path.join('.') || 'overrides'}: ${issue.message}`));
  const candidate = connectionSettingsSchema.parse({ ...(settings as object), overrides: shaped.data });
  const mappings = mappingsFor(candidate.crm.kind, candidate.crm);
  const checked = [...new Set([...candidate.entities, ...flows])].flatMap((entity) => (mappings[entity] ? [[entity, mappings[entity]]] : []));
  try {
    await checkMappings(crm, Object.fromEntries(checked), candidate.overrides);
  } catch (error) {
    if (error instanceof MappingConfigError) throw new MappingOverridesRefused(error.problems);
    throw error;
  }
  return candidate;
}

/** Overrides without empty lists and tables, so an untouched page saves `{}`. */
export function tidyOverrides(overrides: EntityOverrides): EntityOverrides {
  const tidy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (Array.isArray(value) ? value.length === 0 : !value || Object.keys(value).length === 0) continue;
    if (key === 'picklists') {
      const tables = Object.fromEntries(Object.entries(value as Record<string, object>).filter(([, table]) => Object.keys(table).length > 0));
      if (Object.keys(tables).length) tidy[key] = tables;
      continue;
    }
    tidy[key] = value;
  }
  return tidy as EntityOverrides;
}

export type SaveDeps = { pool: pg.Pool; connections: ConnectionStore; crm: CrmConnector };
export type SaveInput = { connection: Connection; flow: Entity; overrides: EntityOverrides; actor: AuditActor; via: AuditVia };

/** Checks and saves one flow's overrides; answers the version saved. */
export async function saveFlowOverrides(deps: SaveDeps, input: SaveInput & { rolledBackFrom?: number }): Promise<MappingVersion> {
  const settings = connectionSettingsSchema.parse(input.connection.settings);
  const after = tidyOverrides(input.overrides);
  const all: MappingOverrides = { ...settings.overrides, [input.flow]: after };
  if (Object.keys(after).length === 0) delete all[input.flow];
  await checkMappingOverrides(deps.crm, input.connection.settings, all, [input.flow]);

  const client = await deps.pool.connect();
  try {
    await client.query('BEGIN');
    // One save at a time per connection, versions numbered in order; and the settings written are those
    // read under the lock, with only this flow's overrides changed: another save, or `crm-sync edit`,
    // committed since this page was read is kept, not overwritten with the page's stale copy.
    const locked = await client.query('SELECT settings FROM connections WHERE id = $1 FOR UPDATE', [input.connection.id]);
    const current = (locked.rows[0]?.settings ?? input.connection.settings) as ConnectionSettings;
    const currentOverrides: MappingOverrides = { ...(current.overrides ?? {}), [input.flow]: after };
    if (Object.keys(after).length === 0) delete currentOverrides[input.flow];
    const before = current.overrides?.[input.flow] ?? {};
    const versions = createMappingVersionStore(client);
    // The first save keeps what was in effect before it as version 1, so it can be rolled back to.
    if ((await versions.list(input.connection.id, input.flow)).length === 0) {
      await versions.add({ connectionId: input.connection.id, flow: input.flow, overrides: before, savedBy: 'in effect before the first save here' });
    }
    await deps.connections.update(input.connection.id, { settings: { ...current, overrides: currentOverrides } }, client);
    const version = await versions.add({ connectionId: input.connection.id, flow: input.flow, overrides: after, savedBy: actorLabel(input.actor), rolledBackFrom: input.rolledBackFrom });
    await createAuditStore(client).record({
      actor: input.actor,
      via: input.via,
      action: input.rolledBackFrom === undefined ? 'mapping.edit' : 'mapping.rollback',
      connectionId: input.connection.id,
      target: input.flow,
      before,
      after,
      detail: { version: version.version, ...(input.rolledBackFrom !== undefined && { rolledBackFrom: input.rolledBackFrom }) },
    });
    await client.query('COMMIT');
    return version;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Saves an earlier version's overrides again, through the same check, as the newest version. */
export async function rollBackFlowOverrides(deps: SaveDeps, input: Omit<SaveInput, 'overrides'> & { version: number }): Promise<MappingVersion> {
  const old = await createMappingVersionStore(deps.pool).get(input.connection.id, input.flow, input.version);
  if (!old) throw new MappingOverridesRefused([`there is no version ${input.version} of the ${input.flow} mapping`]);
  return saveFlowOverrides(deps, { ...input, overrides: old.overrides, rolledBackFrom: input.version });
}
