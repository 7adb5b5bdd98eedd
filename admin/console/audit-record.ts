// The console's and the API's side of the audit trail (issue #26 section 2): an action from a signed-in
// request is recorded as its person (or "token"), via 'console' for a browser's session and via 'api' for
// a script's Bearer request (the admin server gives a Bearer request a session of its own with no id:
// it is never stored, no cookie names it). Recorded right after the action succeeded; a failed action
// records nothing.
import type pg from 'pg';
import { createAuditStore, type AuditEntry, type AuditVia } from '../../store/audit.ts';
import { sessionActor } from '../actor.ts';
import type { Session } from './sessions.ts';

export const sessionVia = (session: Session): AuditVia => (session.id ? 'console' : 'api');

export async function recordRequestAudit(pool: pg.Pool, session: Session, entry: Omit<AuditEntry, 'actor' | 'via'>): Promise<void> {
  await createAuditStore(pool).record({ actor: sessionActor(session), via: sessionVia(session), ...entry });
}
