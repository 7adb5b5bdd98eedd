// Who may do what in the console and the admin API, in one table consulted by the admin server before a
// request is routed. Three roles, each including the ones below it: a viewer reads; an operator also runs
// the day's work (retry, pause and resume, backfill, co-sell queue actions); an admin also changes what
// the sync does (connections, mappings, alert routes, setup). Anything not listed here that changes state
// needs an admin, so a new form is safe until someone decides it may be opened wider; reads need a viewer.
// The pages hide the buttons a role cannot use by asking the same table (allows()).

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export type Permission = { method: string; path: RegExp; role: Role; /** What the rule allows, as a refusal names it. */ what: string };

/** A connection's action, on its page's form (/connections/<id>/...) or the API (/api/connections/<id>/...). */
const connection = (rest: string) => new RegExp(`^/(?:api/)?connections/[^/]+/${rest}$`);

export const PERMISSIONS: readonly Permission[] = [
  { method: 'POST', path: /^\/logout$/, role: 'viewer', what: 'signing out' },
  { method: 'POST', path: connection('retry'), role: 'operator', what: 'retrying dead letters' },
  { method: 'POST', path: connection('(?:pause|resume)'), role: 'operator', what: 'pausing and resuming a sync' },
  { method: 'POST', path: connection('backfill'), role: 'operator', what: 'starting a backfill' },
  { method: 'POST', path: connection('cosell(?:/.+)?'), role: 'operator', what: 'co-sell queue actions' },
];

const READS = new Set(['GET', 'HEAD']);

/** The rule for a request: the listed one, else viewer for reads and admin for anything else. */
export function permissionFor(method: string, path: string): Permission {
  const upper = method.toUpperCase();
  const listed = PERMISSIONS.find((rule) => rule.method === upper && rule.path.test(path));
  if (listed) return listed;
  return READS.has(upper) ? { method: upper, path: /.*/, role: 'viewer', what: 'reading the console' } : { method: upper, path: /.*/, role: 'admin', what: 'changing settings' };
}

export function roleIncludes(held: Role, needed: Role): boolean {
  return RANK[held] >= RANK[needed];
}

/** Whether `role` may send `method` to `path` (the server's check, and the pages' test before showing a button). */
export function allows(role: Role, method: string, path: string): boolean {
  return roleIncludes(role, permissionFor(method, path).role);
}

/** The highest of the roles given (a person in several groups gets the most their groups allow). */
export function highestRole(roles: Iterable<Role>): Role | undefined {
  let best: Role | undefined;
  for (const role of roles) if (!best || RANK[role] > RANK[best]) best = role;
  return best;
}

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);
