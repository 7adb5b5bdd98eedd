// Console sign-in: the admin token typed once on the login page buys a session (a random id in an
// HttpOnly, SameSite=Strict cookie, Secure when the admin server speaks TLS) that lasts a working day. Each session has its own CSRF token, which
// every form carries and every POST must return. Kept in memory: a restart signs everyone out.
import { randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'crm_sync_session';
const LIFETIME_MS = 12 * 3600_000;

export type Session = { id: string; csrf: string; expiresAt: number; flash?: string };

export function createSessionStore(clock: () => number = Date.now) {
  const sessions = new Map<string, Session>();
  const sweep = () => {
    for (const [id, session] of sessions) if (session.expiresAt <= clock()) sessions.delete(id);
  };
  return {
    create(): Session {
      sweep();
      const session = { id: randomBytes(24).toString('base64url'), csrf: randomBytes(24).toString('base64url'), expiresAt: clock() + LIFETIME_MS };
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

/** `secure`: under TLS the browser must never send the cookie over plain HTTP. */
export function sessionCookie(session: Session, options: { secure?: boolean } = {}): string {
  return `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(LIFETIME_MS / 1000)}${options.secure ? '; Secure' : ''}`;
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
