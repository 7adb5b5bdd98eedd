// Row locks, when asked (README "Row locks"). Saving a child record locks its parent: an Opportunity
// or Contact locks its Account, a record with a lookup locks the record it looks up [doc: Record
// Locking Cheatsheet; Record-Level Locking]. A save that cannot get a lock within 10 seconds fails with
// UNABLE_TO_LOCK_ROW "unable to obtain exclusive access to this record or N records: <ids>" [doc:
// Apex Locking Statements; issue: jsforce#1018].
//
// Two ways to meet it, both off unless started or steered so:
// - a share of child rows (`failureRate`, drawn from a seeded PRNG: the same seed fails the same rows)
//   fail as if other work had held their parent past the wait;
// - real contention (`contention`): a save is a transaction that holds its rows' parents until it
//   ends; a REST save (sObject Collections) holds them `holdMs` before it answers, and a save
//   touching a parent another open transaction holds fails those rows (the holder outlasts the 10 s
//   wait, [inf]). A Bulk API 2.0 job's rows are cut in internal batches of `batchSize` (10,000 in
//   Salesforce [doc: Understanding Bulk API 2.0 Ingest]) processed in parallel, 200-row chunk by chunk:
//   chunks of one round are open together, so a parent in two batches' chunks of a round fails the
//   later batch's rows [doc: Organize Data to Minimize Lock Contention].
import type { RecordError } from './errors.ts';
import { canonicalId } from './ids.ts';
import type { SandboxObject } from './schema.ts';
import type { StoredRecord } from './store.ts';
import { createRandom } from '../commerce/prng.ts';

export type RowLockSettings = {
  /** Share of rows that lock a parent which fail as if it were held by other work: 0 (never) to 1. */
  failureRate: number;
  /** Seed of the PRNG that draws those rows. */
  seed: number;
  /** Model transactions holding their parents (REST saves for holdMs, Bulk batches in parallel). */
  contention: boolean;
  /** How long a REST save holds its parents before it answers, with contention. */
  holdMs: number;
  /** Rows in one internal Bulk API 2.0 batch, with contention. */
  batchSize: number;
};

export const DEFAULT_ROW_LOCKS: RowLockSettings = { failureRate: 0, seed: 1, contention: false, holdMs: 50, batchSize: 10_000 };

/** What a save asks for each row: the parents it could not lock (none: the row goes on). */
export type RowLockTaker = { take(parentIds: string[]): string[] };

export type RowLockTransaction = RowLockTaker & {
  /** The transaction ends: REST saves hold what they took for holdMs first. */
  end(options?: { hold: boolean }): Promise<void>;
};

/** Salesforce's per-record answer for a row whose lock wait ran out. */
export const unableToLockRow = (ids: string[]): RecordError => ({
  statusCode: 'UNABLE_TO_LOCK_ROW',
  message: `unable to obtain exclusive access to this record or ${ids.length} records: ${ids.join(',')}`,
  fields: [],
});

/** The parents saving this row locks: every lookup it sets, or else already holds. */
export function parentsOf(object: SandboxObject, existing: StoredRecord | undefined, changes: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const field of object.fields) {
    // The owner is a User, not a parent the save locks: Salesforce's lock contention is on parent records
    // of lookups and master-detail (docs/crm-wire-behaviour.md, row locks), and every record has an owner.
    if (field.type !== 'reference' || field.system || field.name === 'OwnerId') continue;
    const value = field.name in changes ? changes[field.name] : existing?.[field.name];
    const id = canonicalId(value);
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** A reproducible sequence from a seed (the sandboxes' shared mulberry32). */
const seeded = (seed: number): (() => number) => createRandom(seed).next;

/** Checked settings; a bad value names itself and what it expects. */
export function rowLockSettings(input: Partial<Record<keyof RowLockSettings, unknown>>, base: RowLockSettings = DEFAULT_ROW_LOCKS): RowLockSettings {
  const merged = { ...base, ...Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) } as Record<keyof RowLockSettings, unknown>;
  const { failureRate, seed, contention, holdMs, batchSize } = merged;
  if (typeof failureRate !== 'number' || !(failureRate >= 0 && failureRate <= 1)) throw new Error(`row locks: failureRate must be a number from 0 to 1, not ${String(failureRate)}`);
  if (typeof seed !== 'number' || !Number.isInteger(seed)) throw new Error(`row locks: seed must be a whole number, not ${String(seed)}`);
  if (typeof contention !== 'boolean') throw new Error(`row locks: contention must be true or false, not ${String(contention)}`);
  if (typeof holdMs !== 'number' || !(holdMs >= 0 && holdMs <= 60_000)) throw new Error(`row locks: holdMs must be a number of milliseconds from 0 to 60000, not ${String(holdMs)}`);
  if (typeof batchSize !== 'number' || !Number.isInteger(batchSize) || batchSize < 1) throw new Error(`row locks: batchSize must be a whole number of at least 1, not ${String(batchSize)}`);
  return { failureRate, seed, contention, holdMs, batchSize };
}

export function createRowLocks(initial: Partial<RowLockSettings> = {}) {
  const configured = rowLockSettings(initial);
  let settings = configured;
  let random = seeded(settings.seed);
  // Parent id -> the transaction holding it.
  const held = new Map<string, number>();
  let lastTransaction = 0;
  // How many rows each way of failing answered, so a test can compare with what its client retried.
  const failed = { drawn: 0, contended: 0 };

  return {
    settings: (): RowLockSettings => ({ ...settings }),
    snapshot: () => ({ ...settings, failed: failed.drawn + failed.contended, failedDrawn: failed.drawn, failedContended: failed.contended, held: held.size }),
    /** Changes some settings; a new seed starts its sequence again. */
    set(change: Partial<Record<keyof RowLockSettings, unknown>>): RowLockSettings {
      settings = rowLockSettings(change, settings);
      if (change.seed !== undefined) random = seeded(settings.seed);
      return { ...settings };
    },
    /** Back to the start options: counts cleared, the PRNG at the seed's first draw, nothing held. */
    reset() {
      settings = configured;
      random = seeded(settings.seed);
      held.clear();
      failed.drawn = 0;
      failed.contended = 0;
    },
    /** One transaction: a REST save, or one chunk of a Bulk API batch. */
    begin(): RowLockTransaction {
      const id = ++lastTransaction;
      const mine: string[] = [];
      return {
        take(parentIds) {
          if (parentIds.length === 0) return [];
          if (settings.contention) {
            const busy = parentIds.filter((parent) => held.has(parent) && held.get(parent) !== id);
            if (busy.length > 0) {
              failed.contended += 1;
              return busy;
            }
          }
          if (settings.failureRate > 0 && random() < settings.failureRate) {
            failed.drawn += 1;
            return parentIds.slice(0, 1);
          }
          if (settings.contention) {
            for (const parent of parentIds) {
              if (held.get(parent) === id) continue;
              held.set(parent, id);
              mine.push(parent);
            }
          }
          return [];
        },
        async end(options = { hold: true }) {
          if (options.hold && mine.length > 0 && settings.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.holdMs));
          for (const parent of mine) if (held.get(parent) === id) held.delete(parent);
        },
      };
    },
  };
}

export type RowLocks = ReturnType<typeof createRowLocks>;
