// Rows Salesforce refused with UNABLE_TO_LOCK_ROW are sent again, promptly, inside the same connector
// call. Saving a child locks its parent; another save under the same parent (another of our calls,
// a flow, a seller, another integration) that holds it longer than Salesforce's 10-second lock wait
// makes ours fail [doc: Record-Level Locking; Apex Locking Statements]. Salesforce's advice is to
// retry ("If you encounter only occasional locking errors, see if the addition of retry logic is
// sufficient"); a dead letter retried in 5 minutes would also hold back the record's children.
//
// Sending such a row again is safe: an upsert by external id and an update by Id are idempotent, and a
// create that failed saved nothing (sObject Collections with allOrNone false save each record on its
// own [doc: Create Records Using sObject Collections]; a failed row of a Bulk job is not saved).
import { setTimeout as sleep } from 'node:timers/promises';
import type { UpsertItem, UpsertResult } from '../connector.ts';
import { cancelledError } from './errors.ts';

export const LOCK_ERROR_CODE = 'UNABLE_TO_LOCK_ROW';

export type LockRetrySettings = {
  /** Re-sends of a locked row before it is given up to a dead letter. */
  attempts: number;
  /** The first wait; each next one doubles, up to maxDelayMs, each with jitter (between half and all of it). */
  minDelayMs: number;
  maxDelayMs: number;
};

export const DEFAULT_LOCK_RETRY: LockRetrySettings = { attempts: 4, minDelayMs: 500, maxDelayMs: 8000 };

export const isLocked = (result: UpsertResult | undefined): boolean => Boolean(result && !result.ok && result.error.code === LOCK_ERROR_CODE);

/** The wait before re-send `attempt` (1-based): exponential, with full jitter over its upper half so two writers drift apart. */
export function lockRetryDelay(settings: LockRetrySettings, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.minDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * `results` (one per item) with every locked row sent again through `resend` (the same kind of call,
 * only those rows) after a backoff, up to `attempts` times. A row still locked after the last keeps
 * Salesforce's code and message, with what was tried, for its dead letter.
 */
export async function retryLockedRows(
  items: UpsertItem[],
  results: UpsertResult[],
  resend: (items: UpsertItem[]) => Promise<UpsertResult[]>,
  options: Partial<LockRetrySettings> & { signal?: AbortSignal; onResent?: (count: number) => void } = {},
): Promise<UpsertResult[]> {
  const settings = { ...DEFAULT_LOCK_RETRY, ...definedOnly(options) };
  const settled = [...results];
  let pending = settled.flatMap((result, index) => (isLocked(result) ? [index] : []));
  let waitedMs = 0;
  for (let attempt = 1; attempt <= settings.attempts && pending.length > 0; attempt++) {
    const delay = lockRetryDelay(settings, attempt);
    try {
      await sleep(delay, undefined, { signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw cancelledError();
      throw error;
    }
    waitedMs += delay;
    options.onResent?.(pending.length);
    const again = await resend(pending.map((index) => items[index]!));
    pending.forEach((index, k) => {
      settled[index] = again[k]!;
    });
    pending = pending.filter((index) => isLocked(settled[index]));
  }
  for (const index of pending) settled[index] = givenUp(settled[index]!, settings.attempts, waitedMs);
  return settled;
}

function givenUp(result: UpsertResult, attempts: number, waitedMs: number): UpsertResult {
  if (result.ok) return result;
  const tried = attempts > 0 ? ` Sent again ${attempts} time${attempts === 1 ? '' : 's'} over ${(waitedMs / 1000).toFixed(1)} s, it was still locked.` : '';
  return {
    ...result,
    error: {
      ...result.error,
      message: `${result.error.message} (Salesforce could not lock the record or its parent, such as the Account: other work was saving under the same parent at the same time.${tried} The sync tries this record again later.)`,
    },
  };
}

function definedOnly(options: Partial<LockRetrySettings>): Partial<LockRetrySettings> {
  const { attempts, minDelayMs, maxDelayMs } = options;
  return Object.fromEntries(Object.entries({ attempts, minDelayMs, maxDelayMs }).filter(([, value]) => value !== undefined));
}

/**
 * The indexes of a Bulk job's own rows Salesforce could not lock. `jobResults[i]` is undefined for a row
 * the job did not hold (a resumed job): that row went by sObject Collections, whose locked rows were
 * retried there already; sending it again would double its retries (and its explanation).
 */
export function lockedJobRows(jobResults: readonly (UpsertResult | undefined)[], rows: number): number[] {
  const locked: number[] = [];
  for (let index = 0; index < rows; index += 1) if (isLocked(jobResults[index])) locked.push(index);
  return locked;
}
