// Console sessions: a random id in an HttpOnly, SameSite=Strict cookie (Secure when the admin server
// speaks TLS), bought by signing in, either through the organization's identity provider (the session
// then keeps the person and the role their groups give) or locally with the admin token (admin rights,
// no person). A session lasts as long as the session lifetime setting says (12 h by default,
// CRM_SYNC_ADMIN_SESSION_LIFETIME), whatever the ID token's own expiry: the provider is asked only at sign-in.
// Once it ends the browser is sent back to sign in. Each session has its own CSRF token, which every form
// carries and every POST must return.
//
// Kept in PostgreSQL (store/console-sessions.ts) by `crm-sync start` and `worker`: every replica behind a
// load balancer knows every session, signing out on one ends it on all, and a restart or a deploy signs
// nobody out. The table holds a SHA-256 hash of the cookie's id, never the id: the cookie is a bearer
// credential, and whoever reads the database must not be able to use it. The CSRF token is not stored at
// all: it is an HMAC of the id (so every replica computes the same one and a database reader cannot).
// An admin server without a database (tests) is given the in-memory store below, by name; there a restart
// signs everyone out.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Role } from '../permissions.ts';

export const SESSION_COOKIE = 'crm_sync_session';
export const DEFAULT_SESSION_LIFETIME_MS = 12 * 3600_000;

/** Who a session is: a person from the identity provider, or whoever holds the admin token. */
export type SessionIdentity = { via: 'oidc'; role: Role; person: { subject: string; name: string; email?: string } } | { via: 'token'; role: 'admin' };

/** `flash`: the routes set it on a POST and clear it on the next GET; the admin server saves what they changed. */
export type Session = { id: string; csrf: string; expiresAt: number; flash?: string; identity: SessionIdentity };

export const TOKEN_IDENTITY: SessionIdentity = { via: 'token', role: 'admin' };

/** Where sessions live: every method answers for every replica sharing the store. An ended or expired session is never returned. */
export type SessionStore = {
  /** The sessions' clock (tests move it). */
  clock: () => number;
  create(identity?: SessionIdentity): Promise<Session>;
  get(id: string | undefined): Promise<Session | undefined>;
  saveFlash(id: string, flash: string | undefined): Promise<void>;
  end(id: string): Promise<void>;
};

export type SessionStoreOptions = { clock?: () => number; lifetimeMs?: number };

export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

/** What a store keys a session by: the id itself never reaches it. */
export function sessionIdHash(id: string): Buffer {
  return createHash('sha256').update(id, 'utf8').digest();
}

/** The session's CSRF token, derived from its id: nothing to store, and useless without the cookie. */
export function csrfTokenFor(id: string): string {
  return createHmac('sha256', id).update('crm-sync console CSRF token').digest('base64url');
}

/** For an admin server with no database (tests): this process only, and a restart signs everyone out. */
export function createMemorySessionStore(options: SessionStoreOptions = {}): SessionStore {
  const clock = options.clock ?? Date.now;
  const lifetimeMs = options.lifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS;
  const sessions = new Map<string, { expiresAt: number; flash?: string; identity: SessionIdentity }>();
  const key = (id: string) => sessionIdHash(id).toString('hex');
  const sweep = () => {
    for (const [hash, session] of sessions) if (session.expiresAt <= clock()) sessions.delete(hash);
  };
  return {
    clock,
    async create(identity = TOKEN_IDENTITY) {
      sweep();
      const id = newSessionId();
      const expiresAt = clock() + lifetimeMs;
      sessions.set(key(id), { expiresAt, identity });
      return { id, csrf: csrfTokenFor(id), expiresAt, identity };
    },
    async get(id) {
      if (!id) return undefined;
      const session = sessions.get(key(id));
      if (!session || session.expiresAt <= clock()) return undefined;
      return { id, csrf: csrfTokenFor(id), ...session };
    },
    async saveFlash(id, flash) {
      const session = sessions.get(key(id));
      if (session) session.flash = flash;
    },
    async end(id) {
      sessions.delete(key(id));
    },
  };
}

/** `secure`: under TLS the browser must never send the cookie over plain HTTP. The cookie lives as long as the session. */
export function sessionCookie(session: Session, options: { secure?: boolean; now?: number } = {}): string {
  const seconds = Math.max(1, Math.ceil((session.expiresAt - (options.now ?? Date.now())) / 1000));
  return `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${seconds}${options.secure ? '; Secure' : ''}`;
}

export function endSessionCookie(options: { secure?: boolean } = {}): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${options.secure ? '; Secure' : ''}`;
}

export const endedSessionCookie = endSessionCookie();

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
