// Test controls under /_sandbox (JSON, no token, never counted nor rate limited): call counts, the
// auth ledger, injected faults, token expiry, client secret revocation, limits, a full reset, row dumps, and the
// change driver for opportunities (salespeople's edits).
import { DataverseError } from './errors.ts';
import { seeded } from './faults.ts';
import { json, type Reply } from './http.ts';
import type { LimitSettings } from './limits.ts';
import { resetState, type SandboxState } from './state.ts';
import type { Row } from './store.ts';
import { columnsOf, updateRow } from './writes.ts';
import { refuseSecondClose } from './opportunity-states.ts';

const ok = (extra: Record<string, unknown> = {}): Reply => json(200, { ok: true, ...extra });
const bad = (message: string) => new DataverseError(400, '0x80040203', message);

function bodyObject(body: string): Record<string, unknown> {
  if (!body.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw bad('the control body is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('the control body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** A stored row with lookups as `_x_value` (plus `_x_value@lookuplogicalname`). */
function dump(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v && typeof v === 'object' && 'id' in (v as object)) {
      out[`_${k}_value`] = (v as { id: string }).id;
      out[`_${k}_value@Microsoft.Dynamics.CRM.lookuplogicalname`] = (v as { table: string }).table;
    } else out[k] = v;
  }
  return out;
}

const SALES_EDITS: ((r: () => number) => Record<string, unknown>)[] = [
  (r) => ({ stepname: ['1-Qualify', '2-Develop', '3-Propose', '4-Close'][Math.floor(r() * 4)] }),
  (r) => ({ salesstage: Math.floor(r() * 4) }),
  (r) => ({ closeprobability: Math.floor(r() * 101) }),
  (r) => ({ estimatedvalue: Math.round(r() * 100_000_00) / 100 }),
  (r) => ({ description: `Call notes ${Math.floor(r() * 1e6)}` }),
];

function changeOpportunities(state: SandboxState, ids: string[] | undefined, input: Record<string, unknown>): Reply {
  const entity = state.store.entity('opportunity')!;
  const count = input.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) throw bad('count must be a whole number of at least 1');
  const fields = input.fields;
  if (fields !== undefined && (!fields || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0)) throw bad('fields must name at least one opportunity column to set, e.g. {"stepname": "3-Propose"}');
  const random = seeded(typeof input.seed === 'number' ? input.seed : 1);
  const open = state.store.rows('opportunity').filter((r) => r.statecode === 0);
  let chosen: Row[];
  if (ids) chosen = ids.map((id) => state.store.get('opportunity', id.toLowerCase()) ?? (() => { throw new DataverseError(404, '0x80040217', `opportunity With Id = ${id} Does Not Exist`); })());
  else {
    const pool = [...open];
    chosen = [];
    while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  }
  const changed = state.store.transaction(() =>
    chosen.map((row) => {
      const edit = (fields as Record<string, unknown> | undefined) ?? SALES_EDITS[Math.floor(random() * SALES_EDITS.length)]!(random);
      const columns = columnsOf(state, entity, edit, false);
      const after = updateRow(state, entity, row, columns);
      return { opportunityid: after.opportunityid, fields: edit, modifiedon: after.modifiedon, versionnumber: after.versionnumber };
    }),
  );
  return json(200, { changed });
}

export async function handleControl(state: SandboxState, method: string, path: string, body: string): Promise<Reply> {
  try {
    const route = `${method} ${path.replace(/\/+$/, '')}`;
    switch (route) {
      case 'GET calls': return json(200, state.calls.snapshot());
      case 'GET auth': return json(200, state.auth.snapshot());
      case 'DELETE calls': state.calls.reset(); return ok();
      case 'GET faults': return json(200, { rules: state.faults.list(), injected: state.faults.injected() });
      case 'POST faults': return json(200, { rules: state.faults.add(bodyObject(body)) });
      case 'DELETE faults': state.faults.clear(); return ok();
      case 'POST tokens/expire': return ok({ expired: state.tokens.expireAll() });
      case 'POST clients/revoke': state.tokens.revoke(true); return ok();
      case 'POST clients/restore': state.tokens.revoke(false); return ok();
      case 'GET limits': return json(200, state.limits.snapshot());
      case 'POST limits': {
        const input = bodyObject(body);
        for (const [k, v] of Object.entries(input)) {
          if (!['requestsPer300s', 'executionMsPer300s', 'concurrency', 'operationMs', 'requestTimeoutMs'].includes(k)) throw bad(`unknown limit ${k}; the limits are requestsPer300s, executionMsPer300s, concurrency, operationMs, requestTimeoutMs`);
          if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw bad(`${k} must be a whole number of at least 0`);
        }
        state.limits.set(input as Partial<LimitSettings>);
        return json(200, state.limits.snapshot());
      }
      case 'POST reset': resetState(state); return ok();
      case 'GET plugins': return json(200, { plugins: state.plugins.list() });
      case 'DELETE plugins': state.plugins.clear(); return ok();
      case 'POST plugins': {
        const { table, ids, message } = bodyObject(body);
        if (typeof table !== 'string' || typeof message !== 'string' || !message) throw bad('a refusing plug-in needs the table (logical name) and the message it throws, e.g. {"table": "opportunity", "message": "…"}');
        if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))) throw bad('ids must list the GUIDs of the rows it refuses');
        return json(200, { plugins: state.plugins.add({ table, message, ...(ids !== undefined && { ids: ids as string[] }) }) });
      }
      case 'GET privileges': return json(200, { missing: state.privileges.missing() });
      case 'POST privileges': {
        const { missing } = bodyObject(body);
        if (!Array.isArray(missing) || !missing.every((name) => typeof name === 'string')) throw bad('missing must list privilege names, e.g. ["prvWriteccs_marketplaceentitlement"]');
        state.privileges.setMissing(missing as string[]);
        return json(200, { missing: state.privileges.missing() });
      }
      case 'GET currencies': return json(200, { base: state.currencies.base().isocurrencycode });
      case 'POST currencies': {
        const { base } = bodyObject(body);
        if (typeof base !== 'string' || !/^[A-Z]{3}$/.test(base)) throw bad('base must be an ISO currency code of three capital letters, e.g. {"base": "EUR"}');
        state.currencies.setBase(base);
        return json(200, { base });
      }
      case 'GET keys': return json(200, { activationMs: state.keyJobs.activationMs });
      case 'POST keys': {
        const { activationMs } = bodyObject(body);
        if (typeof activationMs !== 'number' || !Number.isInteger(activationMs) || activationMs < 0) throw bad('activationMs must be a whole number of milliseconds, at least 0');
        state.keyJobs.activationMs = activationMs;
        return json(200, { activationMs });
      }
      case 'POST opportunities/change': return changeOpportunities(state, undefined, bodyObject(body));
      case 'POST opportunities/second-close': {
        const { refused } = bodyObject(body);
        if (typeof refused !== 'boolean') throw bad('refused must be true (a close of a closed opportunity is refused, the default) or false (tests only: it closes it again)');
        refuseSecondClose(state, refused);
        return ok({ refused });
      }
      default: break;
    }
    const records = /^GET records\/([\w]+)$/.exec(route);
    if (records) {
      const entity = state.store.entityBySet(records[1]!) ?? state.store.entity(records[1]!);
      if (!entity) throw new DataverseError(404, '0x80060888', `no table or entity set ${records[1]} in the sandbox`);
      return json(200, state.store.rows(entity.LogicalName).map(dump));
    }
    const one = /^POST opportunities\/([0-9a-fA-F-]{36})$/.exec(route);
    if (one) {
      const input = bodyObject(body);
      if (!input.fields) throw bad('fields must name the opportunity columns to set');
      return changeOpportunities(state, [one[1]!], input);
    }
    throw new DataverseError(404, '0x80060888', `No sandbox control ${method} /_sandbox/${path}`);
  } catch (error) {
    if (error instanceof DataverseError) return { status: error.status, json: error.body() };
    throw error;
  }
}
