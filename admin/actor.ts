// Who made a request to the admin server, for the audit trail (store/audit.ts): a person signed in
// through the identity provider, or "token" for the admin token (a script's bearer token, or the local
// sign-in that typed it). The server records each signed-in request's identity here before routing it,
// so an action's handler can name its actor from the request (or from its session) alone.
import type { IncomingMessage } from 'node:http';
import type { AuditActor } from '../store/audit.ts';
import type { Session, SessionIdentity } from './console/sessions.ts';

const identities = new WeakMap<IncomingMessage, SessionIdentity>();

/** Called by the admin server once a request is signed in (bearer token or session). */
export function rememberIdentity(request: IncomingMessage, identity: SessionIdentity): void {
  identities.set(request, identity);
}

export function identityActor(identity: SessionIdentity): AuditActor {
  if (identity.via === 'token') return { kind: 'token' };
  const { name, email } = identity.person;
  return { kind: 'person', name, ...(email && { email }) };
}

/** The actor of a signed-in request. A request that was never signed in has none: that is a bug, not "token". */
export function requestActor(request: IncomingMessage): AuditActor {
  const identity = identities.get(request);
  if (!identity) throw new Error('requestActor: this request was not signed in to the admin server, so it has no actor');
  return identityActor(identity);
}

/** The same, from the session a console route is given. */
export function sessionActor(session: Session): AuditActor {
  return identityActor(session.identity);
}
