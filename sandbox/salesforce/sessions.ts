// Access tokens issued by the token endpoint. A session ends when its lifetime is over or when the
// tests expire every session at once; either way the API answers 401 INVALID_SESSION_ID.
import { randomBytes } from 'node:crypto';
import type { BearerRefusal } from '../auth-ledger.ts';
import { ORG_ID } from './ids.ts';

export type Session = { token: string; serial: number; issuedAt: number; expiresAt: number };

export function createSessions(options: { ttlSeconds: number; now: () => Date }) {
  const sessions = new Map<string, Session>();
  let serial = 0;
  let firstValidSerial = 1; // sessions numbered below this were expired by a test control

  return {
    issue(): Session {
      serial += 1;
      const issuedAt = options.now().getTime();
      // Shaped like Salesforce's: the org id, '!', then an opaque part.
      const token = `${ORG_ID.slice(0, 15)}!${randomBytes(40).toString('base64url')}`;
      const session = { token, serial, issuedAt, expiresAt: issuedAt + options.ttlSeconds * 1000 };
      sessions.set(token, session);
      return session;
    },
    /** The live session for an Authorization header value (`Bearer x` or `OAuth x`), if any. */
    check(authorization: string | undefined): Session | undefined {
      const m = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(authorization ?? '');
      return m ? this.checkToken(m[1]!) : undefined;
    },
    /** Why a header names no live session: no token, one never issued here, or an ended one. */
    refusal(authorization: string | undefined): BearerRefusal {
      const m = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(authorization ?? '');
      if (!m) return 'missing';
      return sessions.has(m[1]!) ? 'expired' : 'unknown';
    },
    checkToken(token: string): Session | undefined {
      const session = sessions.get(token);
      if (!session) return undefined;
      if (session.serial < firstValidSerial || options.now().getTime() >= session.expiresAt) return undefined;
      return session;
    },
    /** Ends these sessions at once (a revoked refresh token family takes its access tokens with it). */
    revoke(tokens: string[]) {
      for (const token of tokens) {
        const session = sessions.get(token);
        if (session) session.expiresAt = Math.min(session.expiresAt, session.issuedAt);
      }
    },
    expireAll() {
      firstValidSerial = serial + 1;
    },
    clear() {
      sessions.clear();
      firstValidSerial = serial + 1;
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
