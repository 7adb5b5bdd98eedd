// Open dead letters as a person sees them: the record, the reason in the CRM's or the commerce side's own
// words, attempts and the next retry, and on request the mapped payload. Redacted again on the way out:
// letters recorded before redaction existed may still hold secrets.
import type pg from 'pg';
import { createDeadLetterStore } from '../store/dead-letters.ts';
import { redactSecrets, redactText } from '../store/redact.ts';

export type DeadLetterView = {
  id: number;
  entity: string;
  sourceId: string;
  reason: string;
  crmError?: unknown;
  payload?: unknown;
  attempts: number;
  firstFailedAt: Date;
  lastFailedAt: Date;
  nextRetryAt: Date | null;
};

export async function openDeadLetters(pool: pg.Pool, connectionId: string, filter: { entity?: string; sourceIds?: string[]; withPayload?: boolean; limit?: number } = {}): Promise<DeadLetterView[]> {
  const open = (await createDeadLetterStore(pool).listOpen(connectionId, filter.entity)).filter((letter) => !filter.sourceIds?.length || filter.sourceIds.includes(letter.sourceId));
  return open.slice(0, filter.limit ?? open.length).map((letter) => ({
    id: letter.id,
    entity: letter.entity,
    sourceId: letter.sourceId,
    reason: redactText(letter.reason),
    ...(letter.crmError !== undefined && { crmError: redactSecrets(letter.crmError) }),
    ...(filter.withPayload && letter.payload !== undefined && { payload: redactSecrets(letter.payload) }),
    attempts: letter.attempts,
    firstFailedAt: letter.firstFailedAt,
    lastFailedAt: letter.lastFailedAt,
    nextRetryAt: letter.nextRetryAt,
  }));
}
