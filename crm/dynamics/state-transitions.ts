// States Dataverse changes only through its own messages (docs/crm-wire-behaviour.md, issue #22 item 8).
// A mapping names the state a row should be in as a value of one field (opportunity: `statecode`,
// 'Open' | 'Won' | 'Lost'); that field is never written as a column. Before a write the connector reads
// the rows' current states, then:
// - a closed row whose target is another state is re-opened in the same PATCH (statecode 0 is a plain
//   Update, documented as the way to re-open);
// - a row whose target is a closed state it is not in is closed after the write, with the table's close
//   action (WinOpportunity / LoseOpportunity, one close activity each), in $batches of its own;
// - a row already in its target state is only updated (a closed opportunity still takes column updates).
// So a replayed write (a retried activity, a lost answer) finds the row already closed and calls nothing;
// an action Dataverse refuses because another call closed the row first is taken as done once a re-read
// shows the row in its target state. A $batch of actions that got no answer is never sent again as it
// is: the rows' states are read again and only the rows not yet in their target state are closed
// (no-answer.ts). That Dataverse refuses a second close is reported, not documented
// (docs/crm-wire-behaviour.md, [inf]), so nothing here relies on it to avoid a second opportunityclose.
// One row, one close per call: records of one call naming the same row (offers of one opportunity,
// sharing its GUID) get one target between them when they disagree on how it closes, the first of the
// table's closed states (a win over a loss), and the row is closed once.
import type { CrmRecord, UpsertResult } from '../connector.ts';
import { dataverseErrorInfo } from './errors.ts';
import type { TableInfo } from './metadata.ts';
import { afterNoAnswer } from './no-answer.ts';
import { ID } from './reads.ts';
import { codeOf, type DynamicsTransport } from './transport.ts';
import { BATCH_LIMIT } from './writes.ts';

/** How a closed state is reached: a table's close action (opportunity), or a plain Update of statecode and statuscode (SetState as an Update: task). */
type CloseAction = { action: string; statecode: number; status: number } | { update: true; statecode: number; status: number };

export type TableStates = {
  /** The mapped field naming the target state. */
  field: string;
  /** The state an Update reaches, and the columns that re-open a closed row. */
  open: { name: string; statecode: number; columns: Record<string, number> };
  /**
   * The closed states, each reached only through its action (with the status reason it sets), listed in
   * the order that decides when records of one call name the same row with different closed states.
   */
  closed: Record<string, CloseAction>;
  /** The action's activity parameter, its lookup to the row, its subject, and the column its revenue comes from (wins only); none where closes are updates. */
  activity?: { parameter: string; lookup: string; subject: (state: string) => string; revenueFrom?: string; revenueOn?: string };
};

/** Tables whose states are declared here; Microsoft's opportunity: Open 0 (In Progress 1), Won 1 (3), Lost 2 (Canceled 4). */
export const STATE_TRANSITIONS: Record<string, TableStates> = {
  opportunity: {
    field: 'statecode',
    open: { name: 'Open', statecode: 0, columns: { statecode: 0, statuscode: 1 } },
    closed: { Won: { action: 'WinOpportunity', statecode: 1, status: 3 }, Lost: { action: 'LoseOpportunity', statecode: 2, status: 4 } },
    activity: { parameter: 'OpportunityClose', lookup: 'opportunityid', subject: (state) => `${state} (closed by crm-sync from the marketplace)`, revenueFrom: 'estimatedvalue', revenueOn: 'Won' },
  },
  // The timeline's task activities (issue #27 section 1): Open 0 (Not Started 2), Completed 1 (5); a task
  // is made Open (statecode is not valid for create) and completed by an Update of statecode/statuscode
  // after the write (docs/crm-wire-behaviour.md).
  task: {
    field: 'statecode',
    open: { name: 'Open', statecode: 0, columns: { statecode: 0, statuscode: 2 } },
    closed: { Completed: { update: true, statecode: 1, status: 5 } },
  },
};

/** What a write item carries that the plan needs (upserts, updates). */
type Item = { sourceId: string; fields: CrmRecord; crmId?: string; externalIdField?: string; externalId?: string };
type Close = { state: string; fields: CrmRecord };
export type StatePlan<T extends Item> = {
  /** The items to write: the target field removed, re-open columns added where needed. */
  items: T[];
  /** The closes to make once the write gave each record its GUID, by source id. */
  closes: Map<string, Close>;
  /** Records whose target names no state of the table. */
  refused: UpsertResult[];
};

type Reader = { whereIn(object: string, field: string, values: string[], fields: string[], signal?: AbortSignal): Promise<CrmRecord[]> };

export function createStateTransitions(transport: DynamicsTransport, reader: Reader) {
  /** The statecode of each row of `guids` that exists, by its GUID in lower case (one read). */
  async function statesByGuid(table: TableInfo, guids: string[], signal?: AbortSignal): Promise<Map<string, number>> {
    const states = new Map<string, number>();
    if (guids.length === 0) return states;
    for (const row of await reader.whereIn(table.name, ID, guids, ['statecode'], signal)) {
      if (typeof row.statecode === 'number') states.set(String(row[ID]).toLowerCase(), row.statecode);
    }
    return states;
  }

  /** Each record's current statecode, read by GUID (linked) or by its key (one query per kind of lookup). */
  async function currentStates(table: TableInfo, all: Item[], signal?: AbortSignal, known?: ReadonlyMap<string, number | null>): Promise<Map<string, number>> {
    const states = new Map<string, number>();
    // States a read of this write already found (a row's statecode, or null for no row) are not read again.
    for (const item of all) {
      const state = known?.get(item.sourceId);
      if (typeof state === 'number') states.set(item.sourceId, state);
    }
    const items = known ? all.filter((item) => !known.has(item.sourceId)) : all;
    const byGuid = items.filter((item) => item.crmId);
    const rows = await statesByGuid(table, byGuid.map((item) => item.crmId!), signal);
    for (const item of byGuid) {
      const state = rows.get(item.crmId!.toLowerCase());
      if (state !== undefined) states.set(item.sourceId, state);
    }
    const byKey = new Map<string, Item[]>();
    for (const item of items) if (!item.crmId && item.externalIdField && item.externalId) byKey.set(item.externalIdField, [...(byKey.get(item.externalIdField) ?? []), item]);
    for (const [column, keyed] of byKey) {
      const rows = new Map((await reader.whereIn(table.name, column, keyed.map((item) => item.externalId!), ['statecode', column], signal)).map((row) => [String(row[column]), row.statecode]));
      for (const item of keyed) {
        const state = rows.get(item.externalId!);
        if (typeof state === 'number') states.set(item.sourceId, state);
      }
    }
    return states;
  }

  /** Splits each record's target state from its columns and decides what the write and the actions do. */
  async function prepare<T extends Item>(table: TableInfo, items: T[], signal?: AbortSignal, known?: ReadonlyMap<string, number | null>): Promise<StatePlan<T>> {
    const declared = STATE_TRANSITIONS[table.name];
    const plan: StatePlan<T> = { items, closes: new Map(), refused: [] };
    if (!declared || !items.some((item) => item.fields[declared.field] !== undefined)) return plan;
    const names = [declared.open.name, ...Object.keys(declared.closed)];
    const targeted = items.filter((item) => typeof item.fields[declared.field] === 'string' && names.includes(item.fields[declared.field] as string));
    const current = await currentStates(table, targeted, signal, known);
    // Records naming the same row with different closed states: the first of the table's closed states
    // for all of them (a win over a loss), so the row is neither re-opened nor closed twice by this call.
    const closedOrder = Object.keys(declared.closed);
    const isClosed = (name: unknown): name is string => typeof name === 'string' && Object.hasOwn(declared.closed, name);
    const rowClose = new Map<string, string>();
    for (const item of targeted) {
      const target = item.fields[declared.field];
      if (!item.crmId || !isClosed(target)) continue;
      const row = item.crmId.toLowerCase();
      const before = rowClose.get(row);
      if (before === undefined || closedOrder.indexOf(target) < closedOrder.indexOf(before)) rowClose.set(row, target);
    }
    plan.items = [];
    for (const item of items) {
      const { [declared.field]: asked, ...fields } = item.fields;
      const target = isClosed(asked) && item.crmId ? rowClose.get(item.crmId.toLowerCase())! : asked;
      if (target === undefined || target === null) {
        plan.items.push({ ...item, fields });
        continue;
      }
      if (typeof target !== 'string' || !names.includes(target)) {
        plan.refused.push({ sourceId: item.sourceId, ok: false, error: { code: 'INVALID_STATE', message: `${JSON.stringify(target)} is not a state of Dataverse's ${table.name} (${names.join(', ')}): fix the connection's ${declared.field} picklist map` } });
        continue;
      }
      const now = current.get(item.sourceId);
      const close = declared.closed[target];
      const closedNow = now !== undefined && now !== declared.open.statecode;
      const arrived = close ? now === close.statecode : !closedNow;
      // A closed row that must reach another state is re-opened by the write itself.
      plan.items.push({ ...item, fields: closedNow && !arrived ? { ...fields, ...declared.open.columns } : fields });
      if (close && !arrived) plan.closes.set(item.sourceId, { state: target, fields });
    }
    return plan;
  }

  /** After the write: closes each written record that must be closed; a close Dataverse refuses makes its record fail. */
  async function finish(table: TableInfo, plan: StatePlan<Item>, results: Map<string, UpsertResult>, signal?: AbortSignal): Promise<void> {
    for (const refused of plan.refused) results.set(refused.sourceId, refused);
    const declared = STATE_TRANSITIONS[table.name];
    if (!declared || plan.closes.size === 0) return;
    type Call = { sourceIds: string[]; crmId: string; state: string; action: string; body: Record<string, unknown>; update?: boolean };
    // One close per row: records of this call that reached the same row (by GUID, or one by its key and
    // one by the GUID) share the first of the table's closed states among theirs, and its outcome.
    const closedOrder = Object.keys(declared.closed);
    const byRow = new Map<string, { sourceIds: string[]; crmId: string; close: Close }>();
    for (const [sourceId, close] of plan.closes) {
      const result = results.get(sourceId);
      if (!result?.ok || !result.crmId) continue;
      const row = result.crmId.toLowerCase();
      const before = byRow.get(row);
      if (!before) byRow.set(row, { sourceIds: [sourceId], crmId: result.crmId, close });
      else {
        before.sourceIds.push(sourceId);
        if (closedOrder.indexOf(close.state) < closedOrder.indexOf(before.close.state)) before.close = close;
      }
    }
    const calls: Call[] = [];
    for (const { sourceIds, crmId, close } of byRow.values()) {
      const how = declared.closed[close.state]!;
      if ('update' in how) {
        calls.push({ sourceIds, crmId, state: close.state, action: 'Update', body: { statecode: how.statecode, statuscode: how.status }, update: true });
        continue;
      }
      const described = declared.activity!;
      const revenue = described.revenueFrom && close.state === described.revenueOn ? close.fields[described.revenueFrom] : undefined;
      const activity = {
        subject: described.subject(close.state),
        [`${described.lookup}@odata.bind`]: `/${table.entitySetName}(${crmId})`,
        ...(typeof revenue === 'number' && { actualrevenue: revenue }),
      };
      calls.push({ sourceIds, crmId, state: close.state, action: how.action, body: { Status: how.status, [described.parameter]: activity } });
    }
    const inTarget = (states: Map<string, number>, call: Call) => states.get(call.crmId.toLowerCase()) === declared.closed[call.state]!.statecode;
    const refused: { call: Call; code: string; message: string }[] = [];
    // $batches as large as the measured pace allows (the transport's batchSize, as writes.ts). One that
    // got no answer is not sent again as it is (no-answer.ts): its rows' states are read again and only
    // the rows not yet in their target state are closed, so none is closed twice even where Dataverse
    // would take a second close.
    let pending = calls;
    let unanswered = 0;
    while (pending.length) {
      signal?.throwIfAborted();
      const group = pending.slice(0, Math.max(1, Math.min(BATCH_LIMIT, transport.batchSize())));
      try {
        const answers = await transport.call(
          `closing ${group.length} ${table.entitySetName}`,
          async (client) => {
            client.startBatch();
            for (const call of group) {
              if (call.update) await client.update({ collection: table.entitySetName, key: call.crmId, data: call.body, ifmatch: '*' });
              else await client.callAction({ actionName: call.action, action: call.body });
            }
            return client.executeBatch({ continueOnError: true, inChangeSet: false });
          },
          { signal, operations: group.length, writes: true },
        );
        group.forEach((call, index) => {
          const answer = answers?.[index];
          if (answer instanceof Error || (answer && typeof answer === 'object' && 'status' in answer)) {
            const info = dataverseErrorInfo(answer);
            refused.push({ call, code: codeOf(info), message: info.message });
          }
        });
        pending = pending.slice(group.length);
        unanswered = 0;
      } catch (error) {
        unanswered += 1;
        const again = await afterNoAnswer(error, unanswered, async () => {
          const now = await statesByGuid(table, group.map((call) => call.crmId), signal);
          return group.filter((call) => !inTarget(now, call));
        }, signal);
        pending = [...again, ...pending.slice(group.length)];
      }
    }
    if (refused.length === 0) return;
    // Closed meanwhile (a replay, a person): done when the row is now in its target state.
    const now = await statesByGuid(table, refused.map(({ call }) => call.crmId), signal);
    for (const { call, code, message } of refused) {
      if (inTarget(now, call)) continue;
      for (const sourceId of call.sourceIds) {
        results.set(sourceId, { sourceId, ok: false, error: { code, message: `the ${table.name} was written but Dataverse refused to close it as ${call.state} (${call.action}): ${message}` } });
      }
    }
  }

  return { prepare, finish };
}
