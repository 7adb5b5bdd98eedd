// What the application user may not do on the tables the sync writes (issue #22 item 11). Dataverse
// names each table's privileges prv{Create,Read,Write,Delete,Append,AppendTo}<SchemaName> and refuses an
// operation whose privilege no role of the user grants (0x80040220 "Principal user ... is missing
// prvWrite... privilege"). `WhoAmI` names the user, and `systemusers(<id>)/Microsoft.Dynamics.CRM.
// RetrieveUserPrivileges()` lists what its roles and teams grant; a missing one is said with the role to give.
import type { AccessProblem } from '../connector.ts';
import type { DynamicsTransport } from './transport.ts';

/** What writing a table needs: create and update rows, read them back, set lookups on them and point lookups at them. */
export const WRITE_RIGHTS = ['Create', 'Read', 'Write', 'Append', 'AppendTo'] as const;
const SPOKEN: Record<(typeof WRITE_RIGHTS)[number], string> = { Create: 'Create', Read: 'Read', Write: 'Write', Append: 'Append', AppendTo: 'Append To' };

type RolePrivilege = { PrivilegeName?: string; Depth?: string | number };

/** The privileges of `rights` the user lacks on `table`. Pure. Privilege names compare without case (SchemaName vs logical name). */
export function lacking(held: Iterable<string>, table: string, rights: readonly (typeof WRITE_RIGHTS)[number][] = WRITE_RIGHTS): string[] {
  const names = new Set([...held].map((name) => name.toLowerCase()));
  return rights.filter((right) => !names.has(`prv${right}${table}`.toLowerCase())).map((right) => `prv${right}${table}`);
}

/** One sentence per table with privileges missing, naming them and the role to give. */
export function privilegeProblems(held: Iterable<string>, tables: string[]): string[] {
  return privilegeAccessProblems(held, tables).map((problem) => problem.message);
}

/** The same, as the connector's access problems (kind 'privilege', by table). */
export function privilegeAccessProblems(held: Iterable<string>, tables: string[]): AccessProblem[] {
  const heldOnce = [...held];
  return [...new Set(tables)].flatMap((table): AccessProblem[] => {
    const missing = lacking(heldOnce, table);
    if (missing.length === 0) return [];
    const rights = WRITE_RIGHTS.map((right) => SPOKEN[right]);
    return [
      {
        object: table,
        kind: 'privilege',
        message: `the application user lacks ${missing.join(', ')} on the ${table} table, so Dataverse refuses the sync's ${table} writes: give it a security role with ${rights.slice(0, -1).join(', ')} and ${rights.at(-1)} on ${table} at Organization level (Power Platform admin center > Environments > this environment > Settings > Users + permissions > Application users > the app > Edit security roles), then run crm-sync doctor again`,
      },
    ];
  });
}

/** Asks Dataverse what the connection's application user holds and says what it lacks on `tables`. */
export async function missingPrivileges(transport: DynamicsTransport, tables: string[]): Promise<AccessProblem[]> {
  const whoAmI = (await transport.call('asking who the app is (WhoAmI)', (client) => client.callFunction({ name: 'WhoAmI' }))) as { UserId?: string };
  if (!whoAmI.UserId) return [{ object: tables.join(', '), kind: 'privilege', message: 'Dataverse did not say which user the app is (WhoAmI gave no UserId): its privileges could not be checked' }];
  const answer = (await transport.call("reading the app user's privileges (RetrieveUserPrivileges)", (client) =>
    client.callFunction({ collection: 'systemusers', key: whoAmI.UserId, name: 'Microsoft.Dynamics.CRM.RetrieveUserPrivileges' }),
  )) as { RolePrivileges?: RolePrivilege[] };
  const held = (answer.RolePrivileges ?? []).map((privilege) => privilege.PrivilegeName ?? '').filter(Boolean);
  return privilegeAccessProblems(held, tables);
}
