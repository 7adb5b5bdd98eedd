// Which connection writes CRM ids back onto commerce records. Two connections of one commerce
// organization and one CRM kind (a UAT org and production) would overwrite each other's ids for ever,
// so only one of them does. Pure: the CLI shows it and the sync activity obeys it.

export type WriteBackCandidate = { id: string; name?: string; crmKind: string; settings: unknown };

type CommerceSide = { commerce?: { baseUrl?: unknown; organizationId?: unknown }; writeBack?: unknown };

/** A base URL compared as the service sees it: scheme and host in lower case, no trailing slash. */
export function normalizeBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.trim().replace(/\/+$/, '');
  }
}

/** "base URL + organization id", or undefined when the settings name no commerce organization. */
export function commerceOrganizationKey(settings: unknown): string | undefined {
  const commerce = (settings as CommerceSide | undefined)?.commerce;
  if (typeof commerce?.baseUrl !== 'string' || typeof commerce.organizationId !== 'string') return undefined;
  return `${normalizeBaseUrl(commerce.baseUrl)} ${commerce.organizationId}`;
}

/** The other connections of the same commerce organization and CRM kind. */
export function writeBackSiblings<C extends WriteBackCandidate>(connection: WriteBackCandidate, all: readonly C[]): C[] {
  const key = commerceOrganizationKey(connection.settings);
  if (key === undefined) return [];
  return all.filter((other) => other.id !== connection.id && other.crmKind === connection.crmKind && commerceOrganizationKey(other.settings) === key);
}

/**
 * Whether this connection writes CRM ids back. `writeBack: true` or `false` says so; unset (saved before
 * the rule) writes back unless another connection of its commerce organization and CRM kind is the
 * declared writer (`writeBack: true`).
 */
export function writesBack(connection: WriteBackCandidate, all: readonly WriteBackCandidate[]): boolean {
  const flag = (connection.settings as CommerceSide | undefined)?.writeBack;
  if (typeof flag === 'boolean') return flag;
  return !writeBackSiblings(connection, all).some((other) => (other.settings as CommerceSide | undefined)?.writeBack === true);
}

/** The connections of this one's commerce organization and CRM kind that write back (itself excluded). */
export function otherWriters<C extends WriteBackCandidate>(connection: WriteBackCandidate, all: readonly C[]): C[] {
  return writeBackSiblings(connection, all).filter((other) => writesBack(other, all));
}
