// A task's states, as Dataverse keeps them (docs/crm-wire-behaviour.md, issue #27 section 1): statecode
// 0 Open (status reasons 2 Not Started, 3 In Progress, 4 Waiting on someone else, 7 Deferred), 1 Completed
// (5), 2 Canceled (6). statecode is not valid for create, so a new task is Open (Not Started unless an
// Open status reason is given) whatever the body says; SetState is an Update (PATCH) of statecode and
// statuscode, a status reason of another state than the one asked for is refused (0x80040203), and a
// state without a status reason takes its default. Completing an open task, re-opening a completed one
// and completing it again are all plain updates. A completed or canceled task is read-only: an update
// of its columns that does not name its state (statecode/statuscode: a re-open, or the state it is in)
// is refused, "Cannot update Closed or Cancelled Activity" (docs/crm-wire-behaviour.md, issue #27 gaps).
import { DataverseError } from './errors.ts';
import type { EntityDef } from './schema.ts';
import type { Row } from './store.ts';

const STATUS_OF: Record<number, number[]> = { 0: [2, 3, 4, 7], 1: [5], 2: [6] };
const STATE_NAME: Record<number, string> = { 0: 'Open', 1: 'Completed', 2: 'Canceled' };
const stateOfStatus = (status: number) => Number(Object.entries(STATUS_OF).find(([, reasons]) => reasons.includes(status))?.[0] ?? NaN);

const invalidStatus = (status: unknown, state: number) =>
  new DataverseError(400, '0x80040203', `${String(status)} is not a valid status code for state code TaskState.${STATE_NAME[state] ?? state} on task.`);

// [inf] The message is Dataverse's (quoted where people met it); the code is the sandbox's, the real one is not published in what was searched.
const closedActivity = () => new DataverseError(400, '0x80040203', 'Cannot update Closed or Cancelled Activity');

/** The state columns a create or update of a task ends with (other tables: `columns` as they are). */
export function taskStateColumns(entity: EntityDef, body: Record<string, unknown>, existing: Row | undefined, columns: Row): Row {
  if (entity.LogicalName !== 'task') return columns;
  const status = typeof body.statuscode === 'number' ? body.statuscode : undefined;
  if (!existing) {
    // statecode is ignored on create (not valid for create): the task starts Open.
    if (status !== undefined && !STATUS_OF[0]!.includes(status)) throw invalidStatus(status, 0);
    return { ...columns, statecode: 0, statuscode: status ?? 2 };
  }
  const askedState = typeof body.statecode === 'number' ? body.statecode : status !== undefined ? stateOfStatus(status) : undefined;
  if (askedState === undefined) {
    if (existing.statecode !== 0 && Object.keys(body).length > 0) throw closedActivity();
    return columns;
  }
  const reasons = STATUS_OF[askedState];
  if (!reasons) throw new DataverseError(400, '0x80040203', `${String(body.statecode)} is not a valid state code on task.`);
  const reason = status ?? (existing.statecode === askedState ? (existing.statuscode as number) : reasons[0]!);
  if (!reasons.includes(reason)) throw invalidStatus(reason, askedState);
  return { ...columns, statecode: askedState, statuscode: reason };
}
