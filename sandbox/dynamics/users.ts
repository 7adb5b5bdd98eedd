// The organisation's users (systemuser rows), which own records: the application user the sandbox's
// client signs in as (WhoAmI's UserId, the owner of what it creates, as Dataverse makes the caller the
// owner) and the sellers a test assigns records to. Seeded at start and after a reset; readable as
// `GET systemusers`, bindable as `ownerid@odata.bind: "/systemusers(<guid>)"` (docs/crm-wire-behaviour.md,
// issue #27 section 1).
import { userIdOf } from './privileges.ts';
import { nameGuid } from './schema.ts';
import type { SandboxState } from './state.ts';

export type SandboxUser = { id: string; fullname: string; email: string };

/** The sellers every organisation starts with besides the application user. */
export const SELLERS: readonly SandboxUser[] = [
  { id: nameGuid('user:seller:ada'), fullname: 'Ada Seller', email: 'ada.seller@example.com' },
  { id: nameGuid('user:seller:ben'), fullname: 'Ben Rep', email: 'ben.rep@example.com' },
];

export function seedUsers(state: SandboxState) {
  const users: SandboxUser[] = [{ id: userIdOf(state), fullname: '# commerce-crm-sync (application user)', email: '' }, ...SELLERS];
  for (const user of users) {
    state.store.put('systemuser', user.id, { systemuserid: user.id, fullname: user.fullname, internalemailaddress: user.email || null, statecode: 0, statuscode: 1, createdon: '2020-01-01T00:00:00Z', modifiedon: '2020-01-01T00:00:00Z', versionnumber: state.store.nextVersion() });
  }
}
