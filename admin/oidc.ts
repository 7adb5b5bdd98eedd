// Console sign-in through the organization's identity provider with OpenID Connect (openid-client):
// the authorization code flow with PKCE, state and nonce, the provider found by discovery from its issuer
// URL, this console a confidential client (client id and secret; the secret only ever goes to the
// provider's token endpoint). The person's role comes from a claim of their ID token (or of the UserInfo
// answer when the ID token leaves it out): the groups listed for admin, operator and viewer, or, with no
// lists configured, the claim's values read as role names. Someone in none of them gets no session.
//
// What a sign-in needs between leaving for the provider and coming back (state, nonce, where to go after)
// is kept in a PendingSignInStore, found again by a random id in a short-lived cookie: in PostgreSQL
// (store/oidc-pending-sign-ins.ts) under the id's SHA-256, so the callback may land on any replica; in
// memory only for an admin server without a database (tests). The PKCE verifier is kept nowhere: it is an
// HMAC of that id, computed again at the callback from the cookie. So the one secret of the exchange
// exists only where the browser's cookie is, a database reader cannot redeem a stolen code, and no
// encryption key has to be the same on every replica for a sign-in to finish.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as client from 'openid-client';
import { ConfigError, type OidcConfig } from '../config/config.ts';
import { redactText } from '../store/redact.ts';
import { isLoopback } from './loopback.ts';
import { highestRole, isRole, type Role } from './permissions.ts';

export const SIGN_IN_COOKIE = 'crm_sync_sign_in';
export const CALLBACK_PATH = '/auth/callback';
export const START_PATH = '/auth/sign-in';
const PENDING_MS = 10 * 60_000;
const MAX_PENDING = 1000;
const DISCOVERY_RETRY_MS = 30_000;

export type OidcSettings = Omit<OidcConfig, 'clientSecret' | 'redirectUrl'> & { clientSecret: string; redirectUrl: string };

export type Person = { subject: string; name: string; email?: string };

export type SignInOutcome =
  | { ok: true; person: Person; role: Role; next: string }
  | { ok: false; person: Person; /** The groups that would have given a role, to tell the person whom to ask. */ groups: string[] };

/** A sign-in that could not complete (the provider refused, the link was stale): the message is shown as is. */
export class SignInFailed extends Error {
  override name = 'SignInFailed';
}

/** A sign-in between leaving for the provider and its callback: nothing in it is a secret. */
export type PendingSignIn = { state: string; nonce: string; next: string; expiresAt: number };

/** Where pending sign-ins wait, by the sign-in cookie's id; every replica sharing the store may finish any of them. */
export type PendingSignInStore = {
  put(pendingId: string, entry: PendingSignIn): Promise<void>;
  /** The entry, removed so that a callback is used once; undefined when unknown. */
  take(pendingId: string): Promise<PendingSignIn | undefined>;
};

/** The PKCE code verifier of a sign-in, derived from its cookie's id (32 random bytes): 43 characters, as RFC 7636 asks. */
export function pkceVerifierFor(pendingId: string): string {
  return createHmac('sha256', pendingId).update('crm-sync OIDC PKCE verifier').digest('base64url');
}

/** What a store keys a pending sign-in by: the cookie's id never reaches it. */
export function pendingIdHash(pendingId: string): Buffer {
  return createHash('sha256').update(pendingId, 'utf8').digest();
}

/** For an admin server with no database (tests): this process only, at most MAX_PENDING (the oldest go first). */
export function createMemoryPendingSignIns(clock: () => number = Date.now): PendingSignInStore {
  const pending = new Map<string, PendingSignIn>();
  return {
    async put(pendingId, entry) {
      for (const [key, waiting] of pending) if (waiting.expiresAt <= clock()) pending.delete(key);
      while (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
      pending.set(pendingIdHash(pendingId).toString('hex'), entry);
    },
    async take(pendingId) {
      const key = pendingIdHash(pendingId).toString('hex');
      const entry = pending.get(key);
      pending.delete(key);
      return entry;
    },
  };
}

export type OidcSignIn = {
  /** How the login page names the provider: its host. */
  label: string;
  redirectUrl: string;
  /** Where to send the browser, and the id for the sign-in cookie. */
  begin(next: string): Promise<{ location: string; pendingId: string }>;
  finish(pendingId: string | undefined, query: URLSearchParams): Promise<SignInOutcome>;
};

export function createOidcSignIn(settings: OidcSettings, pending: PendingSignInStore, clock: () => number = Date.now): OidcSignIn {
  const issuer = new URL(settings.issuer);
  let configuration: Promise<client.Configuration> | undefined;
  let failedAt: number | undefined;

  // Discovered on first use and kept. A failure is kept too, for DISCOVERY_RETRY_MS: while the provider
  // is down, every sign-in started is told so at once instead of each sending the provider a request.
  const discover = () => {
    if (failedAt !== undefined && clock() - failedAt >= DISCOVERY_RETRY_MS) {
      configuration = undefined;
      failedAt = undefined;
    }
    return (configuration ??= client
      .discovery(issuer, settings.clientId, settings.clientSecret, client.ClientSecretBasic(settings.clientSecret), {
        // Plain http only for a provider on this machine (config/config.ts refuses it elsewhere).
        ...(issuer.protocol === 'http:' && isLoopback(issuer.hostname) && { execute: [client.allowInsecureRequests] }),
        timeout: 15,
      })
      .catch((error: Error) => {
        failedAt = clock();
        throw new SignInFailed(`The identity provider at ${settings.issuer} could not be reached or is not an OpenID Connect provider (${redactText(error.message)}).`);
      }));
  };

  return {
    label: issuer.host,
    redirectUrl: settings.redirectUrl,
    async begin(next) {
      const config = await discover();
      const entry: PendingSignIn = { state: client.randomState(), nonce: client.randomNonce(), next, expiresAt: clock() + PENDING_MS };
      const pendingId = randomBytes(32).toString('base64url');
      await pending.put(pendingId, entry);
      const location = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUrl,
        scope: settings.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(pkceVerifierFor(pendingId)),
        code_challenge_method: 'S256',
        state: entry.state,
        nonce: entry.nonce,
      });
      return { location: location.href, pendingId };
    },
    async finish(pendingId, query) {
      const entry = pendingId ? await pending.take(pendingId) : undefined;
      if (!pendingId || !entry || entry.expiresAt <= clock()) {
        throw new SignInFailed('This sign-in link is stale or was opened in another browser: start again from the sign-in page.');
      }
      const config = await discover();
      // The address the provider sent the browser to, as registered (the request may have come through a proxy).
      const current = new URL(settings.redirectUrl);
      current.search = query.toString();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pkceVerifierFor(pendingId),
          expectedState: entry.state,
          expectedNonce: entry.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new SignInFailed(`The identity provider did not sign you in: ${describe(error)}`);
      }
      let claims: Record<string, unknown> = { ...tokens.claims() };
      if (claimValues(claims, settings.rolesClaim) === undefined && config.serverMetadata().userinfo_endpoint) {
        // Many providers leave groups (and name, email) out of the ID token: UserInfo has them.
        try {
          claims = { ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))), ...claims };
        } catch (error) {
          throw new SignInFailed(`The identity provider's UserInfo answer could not be read: ${describe(error)}`);
        }
      }
      const person = personOf(claims);
      const role = roleOf(claimValues(claims, settings.rolesClaim) ?? [], settings.groups);
      if (!role) return { ok: false, person, groups: allGroups(settings.groups) };
      // The ID token's exp is not the session's end: it proves the sign-in just happened, and providers
      // keep it short (Keycloak: five minutes). The session lasts CRM_SYNC_ADMIN_SESSION_LIFETIME.
      return { ok: true, person, role, next: entry.next };
    },
  };
}

function describe(error: unknown): string {
  const { message, error: code, error_description: said } = error as { message: string; error?: string; error_description?: string };
  return redactText(said ? `${said} (${code})` : code ? `${code}: ${message}` : message);
}

function personOf(claims: Record<string, unknown>): Person {
  const text = (key: string) => (typeof claims[key] === 'string' && claims[key] ? (claims[key] as string) : undefined);
  const subject = String(claims.sub);
  const email = text('email');
  return { subject, name: text('name') ?? text('preferred_username') ?? email ?? subject, ...(email && { email }) };
}

/** The claim's values: a list, or one string of names separated by spaces or commas; a dotted name reaches into objects (realm_access.roles). */
export function claimValues(claims: Record<string, unknown>, name: string): string[] | undefined {
  let value: unknown = claims[name];
  if (value === undefined && name.includes('.')) value = name.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), claims);
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return undefined;
}

/** The role a person's groups give (the highest), or undefined for none. With no group lists, the values are role names. */
export function roleOf(values: string[], groups: OidcConfig['groups']): Role | undefined {
  if (allGroups(groups).length === 0) return highestRole(values.filter(isRole));
  const held = new Set(values);
  return highestRole((['admin', 'operator', 'viewer'] as const).filter((role) => groups[role].some((group) => held.has(group))));
}

const allGroups = (groups: OidcConfig['groups']) => [...groups.admin, ...groups.operator, ...groups.viewer];

/**
 * With no group lists, a claim value that happens to be a role's name gives that role: whoever can make
 * a group called "admin" at the provider administers the console. Kept (a provider that releases role
 * names in a dedicated claim needs no lists), but said at start.
 */
export function rolesFromNamesWarning(settings: Pick<OidcConfig, 'groups' | 'rolesClaim' | 'issuer'>): string | undefined {
  if (allGroups(settings.groups).length > 0) return undefined;
  return (
    `No group lists are set (CRM_SYNC_OIDC_ADMIN_GROUPS, CRM_SYNC_OIDC_OPERATOR_GROUPS, CRM_SYNC_OIDC_VIEWER_GROUPS): a person's role is the value of their "${settings.rolesClaim}" claim named admin, operator or viewer, ` +
    `so anyone in a group literally named "admin" at ${new URL(settings.issuer).host} is a console admin. Set the group lists to decide who gets which role`
  );
}

export function signInCookie(pendingId: string, options: { secure?: boolean } = {}): string {
  // Lax, not Strict: the provider sends the browser back with a cross-site navigation, which must carry it.
  return `${SIGN_IN_COOKIE}=${pendingId}; HttpOnly; SameSite=Lax; Path=/auth; Max-Age=${PENDING_MS / 1000}${options.secure ? '; Secure' : ''}`;
}

export function endSignInCookie(options: { secure?: boolean } = {}): string {
  return `${SIGN_IN_COOKIE}=; HttpOnly; SameSite=Lax; Path=/auth; Max-Age=0${options.secure ? '; Secure' : ''}`;
}

/** The client secret: CRM_SYNC_OIDC_CLIENT_SECRET, else the data directory's oidc-client-secret file (kept like the admin token). */
export function resolveOidcClientSecret(fromEnvironment: string | undefined, dataDir: string): string {
  if (fromEnvironment) return fromEnvironment;
  const file = path.join(dataDir, 'oidc-client-secret');
  const saved = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (saved) return saved;
  throw new ConfigError(
    `Invalid configuration:\n  CRM_SYNC_OIDC_CLIENT_SECRET: expected the client secret the identity provider gave this console whenever CRM_SYNC_OIDC_ISSUER is set (or write it into ${file}, readable by the worker's user only); neither is set`,
  );
}

/** The address people come back to: the setting, else this server's own (which must then name a host a browser can reach). */
export function checkRedirectSetting(redirectUrl: string | undefined, host: string): void {
  if (redirectUrl) return;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare === '0.0.0.0' || bare === '::') {
    throw new ConfigError(
      `Invalid configuration:\n  CRM_SYNC_OIDC_REDIRECT_URL: expected the console's /auth/callback address as people's browsers reach it (e.g. https://crm-sync.example.com/auth/callback) when the admin server listens on ${host}; it is not set`,
    );
  }
}
