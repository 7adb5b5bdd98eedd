// Which org, as which user, the request being served sees. A sandbox instance is one org whose schema
// the Tooling API changes, and whose integration user sees only what its permission sets grant
// (field-access.ts). The schema's readers (SOQL, writes, describe, Bulk API) are many and deep; rather
// than pass the org to each, the router runs every handler inside the view it serves (AsyncLocalStorage
// follows the handler into its timers and promises), and schema.ts's lookups read it from here.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { OrgSchema } from './org-schema.ts';
import type { SandboxObject } from './schema.ts';

export type OrgView = {
  readonly objects: readonly SandboxObject[];
  /** By API name in lower case (names are case-insensitive on the wire). */
  readonly byName: ReadonlyMap<string, SandboxObject>;
  /** The org's whole schema, hidden parts too (what the Tooling API and permission rules look at). */
  readonly schema?: OrgSchema;
};

const current = new AsyncLocalStorage<() => OrgView>();

/** Runs `fn` as a request of the org seen through `view` (built on first use: most requests need no schema). */
export function runInOrgView<T>(view: () => OrgView, fn: () => T): T {
  let built: OrgView | undefined;
  return current.run(() => (built ??= view()), fn);
}

/** The view of the request being served; undefined outside a request (start-up, journal replay, the change driver). */
export const currentOrgView = (): OrgView | undefined => current.getStore()?.();

export function orgViewOf(objects: readonly SandboxObject[], schema?: OrgSchema): OrgView {
  return { objects, byName: new Map(objects.map((o) => [o.name.toLowerCase(), o])), schema };
}
