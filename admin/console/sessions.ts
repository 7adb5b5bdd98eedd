// Console sessions: a random id in an HttpOnly, SameSite=Strict cookie (Secure when the admin server
// speaks TLS), bought by signing in, either through the organization's identity provider (the session
// then keeps the person and the role their groups give) or locally with the admin token (admin rights,
// no person). A session lasts as long as the session lifetime setting says (12 h by default,
// CRM_SYNC_ADMIN_SESSION_LIFETIME), whatever the ID token's own expiry: the provider is asked only at sign-in.
// Once it ends the browser is sent back to sign in. Each session has its own CSRF
// token, which every form carries and every POST must return. Kept in memory: a restart signs everyone out.
import { randomBytes } from 'node:crypto';
import type { Role } from '../permissions.ts';

export const SESSION_COOKIE = 'crm_sync_session';
export const DEFAULT_SESSION_LIFETIME_MS = 12 * 3600_000;

/** Who a session is: a person from the identity provider, or whoever holds the admin token. */
export type SessionIdentity = { via: 'oidc'; role: Role; person: { subject: string; name: string; email?: string } } | { via: 'token'; role: 'admin' };

export type Session = { id: string; csrf: string; expiresAt: number; flash?: string; identity: SessionIdentity };

export const TOKEN_IDENTITY: SessionIdentity = { via: 'token', role: 'admin' };

export function createSessionStore(options: { clock?: () => number; lifetimeMs?: number } = {}) {
  const clock = options.clock ?? Date.now;
  const lifetimeMs = options.lifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS;
  const sessions = new Map<string, Session>();
  const sweep = () => {
    for (const [id, session] of sessions) if (session.expiresAt <= clock()) sessions.delete(id);
  };
  return {
    clock,
    create(identity: SessionIdentity = TOKEN_IDENTITY): Session {
      sweep();
      const expiresAt = clock() + lifetimeMs;
      const session = { id: randomBytes(24).toString('base64url'), csrf: randomBytes(24).toString('base64url'), expiresAt, identity };
      sessions.set(session.id, session);
      return session;
    },
    get(id: string | undefined): Session | undefined {
      if (!id) return undefined;
      const session = sessions.get(id);
      if (!session || session.expiresAt <= clock()) return undefined;
      return session;
    },
    end(id: string): void {
      sessions.delete(id);
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

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
