// Recognising records nobody changed since the sync last had them, its own write-backs included (issue
// #29: a no-op must cost nothing). Writing CRM ids back onto a commerce record moves its lastUpdateTime
// (A9), so the next incremental run finds every record it wrote back in its window (and the look-back
// brings the last minutes' records again), and would read each entitlement's terms again (one call
// each) to learn that nothing changed. The link keeps the record's stamp and a hash of the rest as the
// CRM is known to be in step with it: as read when written or found unchanged, or as the write-back's
// answer showed it (the PATCH answers the whole record as our write left it, A9). A record read later
// with that very stamp and hash was changed by nobody since: nothing to read or write for it.
//
// The answer counts only when it shows our write alone on top of the record we synced. Someone else's
// change that landed between our read and our write-back (or, on a service that answered from a later
// read, between our write and the answer) shows in the answer's content, which then differs from what
// we synced: no stamp is kept, and the next run reads and writes that record as it would anyway.
// Pure: no I/O.
import { createHash } from 'node:crypto';
import { toDate } from '../commerce/index.ts';
import { canonicalJson } from './hash.ts';

/** Bookkeeping every write moves by itself (when and by whom), not content: left out of comparisons and hashes. */
const WRITE_BOOKKEEPING = ['lastUpdateTime', 'lastUpdatedBy'];
/** metaInfo's own note of the last writer (§2.6 lastModifiedBy): our PATCH may set it to us. */
const META_BOOKKEEPING = ['lastModifiedBy'];

type SourceRecord = { id?: unknown; lastUpdateTime?: unknown; metaInfo?: unknown; [field: string]: unknown };

/** The record without its write bookkeeping and without `leaveOut` fields (on the record or its metaInfo). */
function content(record: SourceRecord, leaveOut: readonly string[] = []): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...record };
  for (const field of [...WRITE_BOOKKEEPING, ...leaveOut]) delete rest[field];
  if (rest.metaInfo && typeof rest.metaInfo === 'object') {
    const meta: Record<string, unknown> = { ...(rest.metaInfo as Record<string, unknown>) };
    for (const field of [...META_BOOKKEEPING, ...leaveOut]) delete meta[field];
    rest.metaInfo = meta;
  }
  return rest;
}

/** A hash of what a record holds besides its write bookkeeping: the same record as answered and as read later hashes alike. */
export function stampHash(record: SourceRecord): string {
  return createHash('sha256').update(canonicalJson(content(record))).digest('base64url');
}

export type OwnStamp = { version: Date; hash: string };

/**
 * The stamp a write-back's answer gives the record, when the answer is of our write alone: the same
 * record, carrying the CRM ids we sent where the flow keeps them (`holder`: its metaInfo unless the
 * flow says otherwise), its content otherwise what we synced it from (`read`), and a stamp no older
 * than the one we read. Anything else (an answer without a readable stamp, another party's change in
 * it) gives none.
 */
export function ownWriteBackStamp(
  read: SourceRecord,
  patch: Record<string, string>,
  answer: unknown,
  holder: (record: any) => Record<string, unknown> | undefined = (record) => record?.metaInfo,
): OwnStamp | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const answered = answer as SourceRecord;
  if (answered.id !== read.id) return undefined;
  const version = toDate(answered.lastUpdateTime as string | undefined);
  if (!version) return undefined;
  const readVersion = toDate(read.lastUpdateTime as string | undefined);
  if (readVersion && version < readVersion) return undefined;
  const carried = holder(answered);
  if (!carried || Object.entries(patch).some(([field, value]) => carried[field] !== value)) return undefined;
  // Our patch's fields may have held anything before (another writer's id our write replaced): compared without them.
  const ours = Object.keys(patch);
  if (canonicalJson(content(read, ours)) !== canonicalJson(content(answered, ours))) return undefined;
  return { version, hash: stampHash(answered) };
}

/** The stamp of a record as read (when its lastUpdateTime is readable): what the CRM is in step with once it is written or found unchanged. */
export function readStamp(record: SourceRecord): OwnStamp | undefined {
  const version = toDate(record.lastUpdateTime as string | undefined);
  return version && { version, hash: stampHash(record) };
}

/**
 * Whether a record read now is exactly the one the CRM is known to be in step with: the stamp and hash
 * its link keeps (as last written or found unchanged, or as our write-back's answer left it).
 */
export function isAsLastKnown(record: SourceRecord, link: { crmId?: string | null; knownVersion?: Date | null; knownHash?: string | null } | undefined): boolean {
  if (!link?.crmId || !link.knownVersion || !link.knownHash) return false;
  const version = toDate(record.lastUpdateTime as string | undefined);
  return version !== undefined && version.getTime() === link.knownVersion.getTime() && stampHash(record) === link.knownHash;
}
