// What a CRM sandbox's token endpoint and bearer checks saw, for tests that show no credential crossed
// between two orgs of one kind (GET /_sandbox/auth): token requests by the client id they named, granted
// or refused, and requests refused for their bearer token, by why: `missing` (none sent), `unknown` (one
// this sandbox does not know: another org's, say, or one it forgot when its app was uninstalled) or
// `expired` (one it issued that no longer works: expired, or revoked). A 401 alone cannot tell them apart.

export type BearerRefusal = 'missing' | 'unknown' | 'expired';

export type AuthLedgerSnapshot = {
  tokenRequests: Record<string, { granted: number; refused: number }>;
  refusedBearer: Record<BearerRefusal, number>;
};

/** The client id key of a token request that named none. */
export const NO_CLIENT_ID = '(none)';

export function createAuthLedger() {
  const tokenRequests = new Map<string, { granted: number; refused: number }>();
  let refusedBearer: Record<BearerRefusal, number> = { missing: 0, unknown: 0, expired: 0 };
  return {
    tokenRequest(clientId: string | null | undefined, granted: boolean) {
      const key = clientId || NO_CLIENT_ID;
      const counts = tokenRequests.get(key) ?? { granted: 0, refused: 0 };
      counts[granted ? 'granted' : 'refused'] += 1;
      tokenRequests.set(key, counts);
    },
    refused(why: BearerRefusal) {
      refusedBearer[why] += 1;
    },
    snapshot(): AuthLedgerSnapshot {
      const sorted = [...tokenRequests].sort(([a], [b]) => a.localeCompare(b));
      return { tokenRequests: Object.fromEntries(sorted.map(([id, counts]) => [id, { ...counts }])), refusedBearer: { ...refusedBearer } };
    },
    reset() {
      tokenRequests.clear();
      refusedBearer = { missing: 0, unknown: 0, expired: 0 };
    },
  };
}

export type AuthLedger = ReturnType<typeof createAuthLedger>;
