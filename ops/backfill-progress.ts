// A running sync's progress as a person watches it: which entity (2 of 5), how many of its records are
// read out of how many the commerce side counts, records per second since watching began, and an ETA for
// the entity. Pure: the CLI's progress bar and the console's live panel both draw it from the workflow's
// progress query.
import type { SyncProgress } from '../workflows/sync.ts';

export type ProgressView = {
  entity: string | null;
  index: number;
  of: number;
  /** Records of the current entity read so far, and how many it is expected to have (null: not counted). */
  entityRecords: number;
  entityExpected: number | null;
  records: number;
  written: number;
  unchanged: number;
  failed: number;
  /** Records per second since the watch began (null until two readings apart in time). */
  perSecond: number | null;
  etaSeconds: number | null;
  finished: boolean;
};

export type Reading = { at: number; records: number };

/** `first`: the first reading of this watch, so the rate is this watch's, not the run's whole life. */
export function progressView(progress: SyncProgress, now: number, first: Reading): ProgressView {
  const planned = progress.planned ?? (Object.keys(progress.entities) as string[]);
  const entity = progress.entity ?? null;
  const state = entity ? progress.entities[entity as keyof typeof progress.entities] : undefined;
  const seconds = (now - first.at) / 1000;
  const perSecond = seconds >= 1 && progress.totals.records > first.records ? (progress.totals.records - first.records) / seconds : null;
  const entityExpected = state?.expected ?? null;
  const left = entityExpected !== null && state ? Math.max(0, entityExpected - state.records) : null;
  return {
    entity,
    index: entity ? planned.indexOf(entity as never) + 1 : planned.length,
    of: planned.length,
    entityRecords: state?.records ?? 0,
    entityExpected,
    records: progress.totals.records,
    written: progress.totals.created + progress.totals.updated,
    unchanged: progress.totals.unchanged,
    failed: progress.totals.failed,
    perSecond,
    etaSeconds: left !== null && perSecond ? left / perSecond : null,
    finished: progress.finished,
  };
}
