// The CLI's side of the audit trail (issue #26 section 2): every command that changes something records
// who ran it ("cli as <OS user>"), what it did and on which connection. A change made in one database
// transaction records its event in that transaction (pass the transaction's client), so both land or
// neither does; any other change (a Temporal schedule, the CRM's schema) is recorded right after it
// succeeded. A change that failed records nothing: its error and exit code say so, and nothing changed.
// Settings and mappings go in with their value before and after; never pass secrets (the store redacts
// whatever looks like one, but the settings objects handed here carry none in the first place).
import os from 'node:os';
import type pg from 'pg';
import { createAuditStore, type AuditActor, type AuditEntry } from '../store/audit.ts';

/** The person at the terminal, as the operating system names them. */
export function cliActor(): AuditActor {
  let osUser: string | undefined;
  try {
    osUser = os.userInfo().username;
  } catch {
    // A container user with no passwd entry: the environment's name, else the numeric id.
    osUser = undefined;
  }
  return { kind: 'cli', osUser: osUser || process.env.USER || process.env.LOGNAME || `uid ${process.getuid?.() ?? 'unknown'}` };
}

/** Records one CLI action in the audit trail; `db` is the pool, or the client of the change's transaction. */
export async function recordAudit(db: pg.Pool | pg.PoolClient, entry: Omit<AuditEntry, 'actor' | 'via'>): Promise<void> {
  await createAuditStore(db).record({ actor: cliActor(), via: 'cli', ...entry });
}
