// The asynchronous system job that builds an alternate key's index (issue #22 item 9): a new key is
// Pending, InProgress after half the build time, then Active, or Failed when existing rows hold
// duplicate values (the definition stays). `ReactivateEntityKey` queues the job again. The build time
// is `keyActivationMs` (start option, /_sandbox/keys), counted in real time so a test's frozen `now`
// never holds a key back (or on the start option `keyClock`, so a test sees each status whatever the
// machine's speed). Jobs advance lazily, at the start of each Web API request.
import { DataverseError, odataError } from './errors.ts';
import { json, type ApiRequest, type Reply } from './http.ts';
import type { EntityDef, KeyDef } from './schema.ts';
import type { SandboxState } from './state.ts';
import type { Lookup, Row } from './store.ts';

const norm = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v && typeof v === 'object' && 'id' in v ? (v as Lookup).id : v);

/** True when two rows of the table hold the same values for every column of the key. */
function hasDuplicates(rows: Row[], key: KeyDef): boolean {
  const seen = new Set<string>();
  for (const row of rows) {
    const values = key.KeyAttributes.map((a) => row[a]);
    if (values.some((v) => v === null || v === undefined)) continue;
    const signature = JSON.stringify(values.map(norm));
    if (seen.has(signature)) return true;
    seen.add(signature);
  }
  return false;
}

/** Moves every queued key job on as far as the time since it was queued allows. */
export function settleKeys(state: SandboxState, now = state.keyJobs.now()) {
  const buildMs = state.keyJobs.activationMs;
  for (const entity of state.store.entities()) {
    let changed = false;
    const keys = entity.Keys.map((key) => {
      if (key.EntityKeyIndexStatus === 'Active' || key.EntityKeyIndexStatus === 'Failed') return key;
      const elapsed = now - (key.buildStartedAt ?? 0);
      let status: KeyDef['EntityKeyIndexStatus'] = key.EntityKeyIndexStatus;
      if (elapsed >= buildMs) status = hasDuplicates(state.store.rows(entity.LogicalName), key) ? 'Failed' : 'Active';
      else if (elapsed >= buildMs / 2) status = 'InProgress';
      if (status === key.EntityKeyIndexStatus) return key;
      changed = true;
      return { ...key, EntityKeyIndexStatus: status };
    });
    if (changed) state.store.putEntity({ ...entity, Keys: keys });
  }
}

/** `POST ReactivateEntityKey {EntityLogicalName, EntityKeyLogicalName}`: queues the index job again. */
export function reactivateEntityKey(req: ApiRequest): Reply {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(req.body || '{}') as Record<string, unknown>;
  } catch {
    throw odataError('The ReactivateEntityKey parameters are not a JSON object.');
  }
  const entityName = String(body.EntityLogicalName ?? '').toLowerCase();
  const keyName = String(body.EntityKeyLogicalName ?? '').toLowerCase();
  const entity: EntityDef | undefined = req.state.store.entity(entityName);
  if (!entity) throw new DataverseError(404, '0x80040217', `Could not find entity with name '${body.EntityLogicalName ?? ''}'.`);
  const key = entity.Keys.find((k) => k.LogicalName === keyName);
  if (!key) throw new DataverseError(404, '0x80040217', `Could not find entity key '${body.EntityKeyLogicalName ?? ''}' of entity '${entity.LogicalName}'.`);
  // [inf] An Active key's index exists: nothing to rebuild.
  if (key.EntityKeyIndexStatus === 'Active') throw odataError(`The entity key ${key.SchemaName} of entity '${entity.LogicalName}' is already active.`);
  const queued: KeyDef = { ...key, EntityKeyIndexStatus: 'Pending', buildStartedAt: req.state.keyJobs.now() };
  req.state.store.putEntity({ ...entity, Keys: entity.Keys.map((k) => (k === key ? queued : k)) });
  return json(200, { '@odata.context': `${req.base}$metadata#Microsoft.Dynamics.CRM.ReactivateEntityKeyResponse`, EntityKeyIndexStatus: 'Pending' });
}

/** `now`: the milliseconds the build time is counted in (real time unless a test gives its own clock). */
export function createKeyJobs(activationMs: number, now: () => number = Date.now) {
  return { activationMs, now };
}
