// Access tokens: one private-app token (never expires) and OAuth access tokens from the refresh_token
// grant (expire after expires_in, or at once by /_sandbox/tokens/expire, whose `next` also makes the next
// tokens issued expired from the start: a token that died while its call waited). 401 bodies as HubSpot's.
// Revocation (/_sandbox/tokens/revoke) is what an admin does in the account: the OAuth app uninstalled
// (its refresh token refused and every access token issued from it gone) or the private app's token
// rotated with "expire now" (refused from then on); /_sandbox/tokens/restore makes both work again.
import { randomBytes, randomUUID } from 'node:crypto';
import type { BearerRefusal } from '../auth-ledger.ts';
import { HubSpotError } from './errors.ts';

export const OAUTH_TOKEN_SECONDS = 1800;

export type Credentials = { accessToken: string; clientId: string; clientSecret: string; refreshToken: string };

export function defaultCredentials(): Credentials {
  return {
    accessToken: `pat-na1-${randomUUID()}`,
    clientId: randomUUID(),
    clientSecret: randomUUID(),
    refreshToken: `na1-${randomBytes(4).toString('hex')}-${randomUUID()}`,
  };
}

const notFound = () =>
  new HubSpotError(
    401,
    'INVALID_AUTHENTICATION',
    'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
  );

export type RevocableApp = 'oauth' | 'private-app';

export function createTokens(credentials: Credentials, now: () => Date) {
  const issued = new Map<string, number>(); // OAuth access token -> expiry (epoch ms)
  const revoked = new Set<RevocableApp>();
  let deadOnIssue = 0;
  return {
    /** A new OAuth access token for the refresh token; undefined when the refresh token is not ours or was revoked. */
    refresh(refreshToken: string) {
      if (refreshToken !== credentials.refreshToken || revoked.has('oauth')) return undefined;
      const token = `CO${randomBytes(24).toString('base64url')}`;
      const dead = deadOnIssue > 0;
      if (dead) deadOnIssue -= 1;
      issued.set(token, dead ? now().getTime() - 1 : now().getTime() + OAUTH_TOKEN_SECONDS * 1000);
      return { access_token: token, refresh_token: credentials.refreshToken, expires_in: OAUTH_TOKEN_SECONDS, token_type: 'bearer' };
    },
    /** Throws HubSpot's 401 for a missing, unknown or expired bearer token. */
    check(authorization: string | undefined) {
      const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      if (!token) throw notFound();
      if (token === credentials.accessToken) {
        if (revoked.has('private-app')) throw notFound();
        return;
      }
      const expiry = issued.get(token);
      if (expiry === undefined) throw notFound();
      const late = now().getTime() - expiry;
      if (late >= 0) {
        const minutes = Math.floor(late / 60_000);
        throw new HubSpotError(401, 'EXPIRED_AUTHENTICATION', `The OAuth token used to make this call expired ${minutes} minute(s) ago.`, {
          context: { 'expire time': [new Date(expiry).toISOString()] },
        });
      }
    },
    /** Why check() refuses a header: no token, one not known here (never issued, or forgotten at revocation), or one issued here that no longer works. */
    refusal(authorization: string | undefined): BearerRefusal {
      const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      if (!token) return 'missing';
      return token === credentials.accessToken || issued.has(token) ? 'expired' : 'unknown';
    },
    /** Whether a bearer token is an OAuth access token issued here (HubSpot leaves the Daily rate-limit headers out of their answers). */
    isOAuth(authorization: string | undefined): boolean {
      const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      return token !== undefined && issued.has(token);
    },
    /** Every OAuth access token issued so far is expired from now on (the private-app token is not), and so are the `next` ones issued. */
    expireAll(next = 0) {
      deadOnIssue = next;
      const at = now().getTime() - 1;
      for (const token of issued.keys()) issued.set(token, at);
      return issued.size;
    },
    /** The apps named stop working: the OAuth app's access tokens are forgotten (as HubSpot forgets them at uninstall). */
    revoke(apps: RevocableApp[]) {
      for (const app of apps) revoked.add(app);
      if (apps.includes('oauth')) issued.clear();
      return [...revoked].sort();
    },
    /** Revoked credentials work again (access tokens forgotten at revocation stay forgotten). */
    restore: () => revoked.clear(),
    clear() {
      deadOnIssue = 0;
      issued.clear();
      revoked.clear();
    },
  };
}

export type Tokens = ReturnType<typeof createTokens>;
