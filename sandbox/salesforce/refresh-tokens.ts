// The org's refresh token, one authorisation (one token family), with Salesforce's refresh token
// rotation when asked (docs/crm-wire-behaviour.md, "Rotating refresh tokens"): each refresh_token grant
// hands out a new refresh token and invalidates the one used, at once (no grace period); presenting a
// rotated-out token revokes the current one and every access token the family was issued, so only a new
// authorisation (the `authorize` control) gets the org back.
import { randomBytes } from 'node:crypto';

export type Redemption = { ok: true; rotatedTo?: string } | { ok: false; reuse: boolean };

export function createRefreshTokens(options: { initial: string; rotate: boolean; revokeSessions: (accessTokens: string[]) => void }) {
  let rotate = options.rotate;
  let current: string | undefined = options.initial;
  const rotatedOut = new Set<string>();
  // Access tokens issued to the family: revoked with it on reuse.
  const familySessions: string[] = [];
  let rotations = 0;
  let reuses = 0;

  const newToken = () => `5Aep861${randomBytes(48).toString('base64url')}`; // shaped like Salesforce's ("5Aep…")

  return {
    /** The refresh_token grant presenting `token`: granted (with the token to hand back when rotating) or refused. */
    redeem(token: string | null): Redemption {
      if (token !== null && current !== undefined && token === current) {
        if (!rotate) return { ok: true };
        rotatedOut.add(token);
        current = newToken();
        rotations += 1;
        return { ok: true, rotatedTo: current };
      }
      if (token !== null && rotatedOut.has(token)) {
        // Reuse of a rotated-out token: Salesforce treats it as theft and revokes the whole family.
        reuses += 1;
        current = undefined;
        options.revokeSessions(familySessions.splice(0));
        return { ok: false, reuse: true };
      }
      return { ok: false, reuse: false };
    },
    /** An access token issued by the refresh_token grant: it dies with the family. */
    issued(accessToken: string) {
      familySessions.push(accessToken);
    },
    status: () => ({ rotate, current: current ?? null, rotations, reuses }),
    setRotation(on: boolean) {
      rotate = on;
    },
    /** A new authorisation (a person completing the web server flow again): a fresh family. */
    authorize(): string {
      // The old family's tokens are simply unknown from now on (invalid_grant, no reuse alarm).
      rotatedOut.clear();
      current = newToken();
      familySessions.length = 0;
      return current;
    },
    reset() {
      rotate = options.rotate;
      current = options.initial;
      rotatedOut.clear();
      familySessions.length = 0;
      rotations = 0;
      reuses = 0;
    },
  };
}

export type RefreshTokens = ReturnType<typeof createRefreshTokens>;
