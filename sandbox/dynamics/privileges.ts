// The application user's security role (issue #22 item 11). Every table has prv{Create, Read, Write,
// Delete, Append, AppendTo}{SchemaName}; the sandbox's user holds all of them at Global depth except the
// ones a test takes away (`missingPrivileges` start option, /_sandbox/privileges). An operation that
// needs a missing one is refused as Dataverse refuses it (403 0x80040220 "Principal user (...) is
// missing prvX privilege ..."), and `systemusers(<id>)/Microsoft.Dynamics.CRM.RetrieveUserPrivileges()`
// lists what the user holds. The user is the one WhoAmI names.
import { DataverseError, odataError } from './errors.ts';
import { json, type ApiRequest, type Reply } from './http.ts';
import type { KeySpec } from './keys.ts';
import { nameGuid, type EntityDef } from './schema.ts';
import type { SandboxState } from './state.ts';

export const RIGHTS = ['Create', 'Read', 'Write', 'Delete', 'Append', 'AppendTo'] as const;
export type Right = (typeof RIGHTS)[number];

export const privilegeName = (right: Right, entity: EntityDef) => `prv${right}${entity.SchemaName}`;
const privilegeId = (name: string) => nameGuid(`privilege:${name.toLowerCase()}`);
const STANDARD_OTC: Record<string, number> = { account: 1, contact: 2, opportunity: 3 };
/** The entity's object type code: the standard ones', and 10000 and up for custom tables. */
const objectTypeCode = (entity: EntityDef) => STANDARD_OTC[entity.LogicalName] ?? 10_000 + (parseInt(nameGuid(`otc:${entity.LogicalName}`).slice(0, 4), 16) % 900);

export const userIdOf = (state: SandboxState) => nameGuid(`user:${state.config.credentials.clientId}`);
const businessUnitOf = (state: SandboxState) => nameGuid(`bu:${state.config.credentials.tenantId}`);

export function createPrivileges(missing: string[] = []) {
  let taken = new Set(missing.map((name) => name.toLowerCase()));
  return {
    missing: () => [...taken],
    setMissing(names: string[]) {
      taken = new Set(names.map((name) => name.toLowerCase()));
    },
    holds: (name: string) => !taken.has(name.toLowerCase()),
  };
}

/** Every privilege the user holds on the environment's tables. */
function held(state: SandboxState) {
  return state.store.entities().flatMap((entity) => RIGHTS.map((right) => privilegeName(right, entity))).filter((name) => state.privileges.holds(name));
}

/** Refuses the operation when the user lacks `right` on the table, in Dataverse's words [doc code, message from reports]. */
export function requirePrivilege(state: SandboxState, entity: EntityDef, right: Right) {
  const name = privilegeName(right, entity);
  if (state.privileges.holds(name)) return;
  const user = userIdOf(state);
  throw new DataverseError(
    403,
    '0x80040220',
    `Principal user (Id=${user}, type=8, roleCount=1, privilegeCount=${held(state).length}, accessMode=0), is missing ${name} privilege (Id=${privilegeId(name)}) on OTC=${objectTypeCode(entity)} for entity '${entity.LogicalName}' (LocalizedName='${entity.DisplayName}'). context.Caller=${user}`,
  );
}

/** `systemusers(<id>)/Microsoft.Dynamics.CRM.RetrieveUserPrivileges()`. */
export function handleSystemUsers(req: ApiRequest, key: KeySpec | undefined, rest: string): Reply {
  const user = userIdOf(req.state);
  if (!key || !('guid' in key)) throw odataError('The sandbox models systemusers(<guid>)/Microsoft.Dynamics.CRM.RetrieveUserPrivileges() only.');
  if (key.guid !== user) throw new DataverseError(404, '0x80040217', `systemuser With Id = ${key.guid} Does Not Exist`);
  if (req.method !== 'GET' || !/^\/Microsoft\.Dynamics\.CRM\.RetrieveUserPrivileges(\(\))?$/.test(rest)) {
    throw odataError(`The sandbox models systemusers(<guid>)/Microsoft.Dynamics.CRM.RetrieveUserPrivileges() only, not ${req.method} ${rest}.`);
  }
  const businessUnit = businessUnitOf(req.state);
  const RolePrivileges = held(req.state).map((name) => ({ Depth: 'Global', PrivilegeId: privilegeId(name), BusinessUnitId: businessUnit, PrivilegeName: name }));
  return json(200, { '@odata.context': `${req.base}$metadata#Microsoft.Dynamics.CRM.RetrieveUserPrivilegesResponse`, RolePrivileges });
}
