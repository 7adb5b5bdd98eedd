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
// shows the row in its target state.
import type { CrmRecord, UpsertResult } from '../connector.ts';
import { dataverseErrorInfo } from './errors.ts';
import type { TableInfo } from './metadata.ts';
import { ID } from './reads.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { codeOf, DynamicsUnansweredError, type DynamicsTransport } from './transport.ts';
import { BATCH_LIMIT } from './writes.ts';

/** Rounds of no answer in a row before the closes fail (the gather is then retried; states are read again). */
const MAX_UNANSWERED_ROUNDS = 5;

type CloseAction = { action: string; statecode: number; status: number };

export type TableStates = {
  /** The mapped field naming the target state. */
  field: string;
  /** The state an Update reaches, and the columns that re-open a closed row. */
  open: { name: string; statecode: number; columns: Record<string, number> };
  /** The closed states, each reached only through its action (with the status reason it sets). */
  closed: Record<string, CloseAction>;
  /** The action's activity parameter, its lookup to the row, its subject, and the column its revenue comes from (wins only). */
  activity: { parameter: string; lookup: string; subject: (state: string) => string; revenueFrom?: string; revenueOn?: string };
};

/** Tables whose states are declared here; Microsoft's opportunity: Open 0 (In Progress 1), Won 1 (3), Lost 2 (Canceled 4). */
export const STATE_TRANSITIONS: Record<string, TableStates> = {
  opportunity: {
    field: 'statecode',
    open: { name: 'Open', statecode: 0, columns: { statecode: 0, statuscode: 1 } },
    closed: { Won: { action: 'WinOpportunity', statecode: 1, status: 3 }, Lost: { action: 'LoseOpportunity', statecode: 2, status: 4 } },
    activity: { parameter: 'OpportunityClose', lookup: 'opportunityid', subject: (state) => `${state} (closed by crm-sync from the marketplace)`, revenueFrom: 'estimatedvalue', revenueOn: 'Won' },
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
  /** Each record's current statecode, read by GUID (linked) or by its key (one query per kind of lookup). */
  async function currentStates(table: TableInfo, items: Item[], signal?: AbortSignal): Promise<Map<string, number>> {
    const states = new Map<string, number>();
    const byGuid = items.filter((item) => item.crmId);
    if (byGuid.length) {
      const rows = new Map((await reader.whereIn(table.name, ID, byGuid.map((item) => item.crmId!), ['statecode'], signal)).map((row) => [String(row[ID]).toLowerCase(), row.statecode]));
      for (const item of byGuid) {
        const state = rows.get(item.crmId!.toLowerCase());
        if (typeof state === 'number') states.set(item.sourceId, state);
      }
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
  async function prepare<T extends Item>(table: TableInfo, items: T[], signal?: AbortSignal): Promise<StatePlan<T>> {
    const declared = STATE_TRANSITIONS[table.name];
    const plan: StatePlan<T> = { items, closes: new Map(), refused: [] };
    if (!declared || !items.some((item) => item.fields[declared.field] !== undefined)) return plan;
    const names = [declared.open.name, ...Object.keys(declared.closed)];
    const targeted = items.filter((item) => typeof item.fields[declared.field] === 'string' && names.includes(item.fields[declared.field] as string));
    const current = await currentStates(table, targeted, signal);
    plan.items = [];
    for (const item of items) {
      const { [declared.field]: target, ...fields } = item.fields;
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
    const calls: { sourceId: string; crmId: string; state: string; action: string; body: Record<string, unknown> }[] = [];
    for (const [sourceId, close] of plan.closes) {
      const result = results.get(sourceId);
      if (!result?.ok || !result.crmId) continue;
      const how = declared.closed[close.state]!;
      const revenue = declared.activity.revenueFrom && close.state === declared.activity.revenueOn ? close.fields[declared.activity.revenueFrom] : undefined;
      const activity = {
        subject: declared.activity.subject(close.state),
        [`${declared.activity.lookup}@odata.bind`]: `/${table.entitySetName}(${result.crmId})`,
        ...(typeof revenue === 'number' && { actualrevenue: revenue }),
      };
      calls.push({ sourceId, crmId: result.crmId, state: close.state, action: how.action, body: { Status: how.status, [declared.activity.parameter]: activity } });
    }
    const refused: { call: (typeof calls)[number]; code: string; message: string }[] = [];
    // $batches as large as the measured pace allows (the transport's batchSize, as writes.ts). One that
    // got no answer is sent again as it is: a close Dataverse already made is refused the second time
    // ("already closed") and counted as done by the re-read below, so none is made twice.
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
            for (const call of group) await client.callAction({ actionName: call.action, action: call.body });
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
        if (!(error instanceof DynamicsUnansweredError)) throw error;
        unanswered += 1;
        if (unanswered >= MAX_UNANSWERED_ROUNDS) throw error;
        await sleep(250 * 2 ** unanswered, undefined, { signal });
      }
    }
    if (refused.length === 0) return;
    // Closed meanwhile (a replay, a person): done when the row is now in its target state.
    const now = new Map((await reader.whereIn(table.name, ID, refused.map(({ call }) => call.crmId), ['statecode'], signal)).map((row) => [String(row[ID]).toLowerCase(), row.statecode]));
    for (const { call, code, message } of refused) {
      if (now.get(call.crmId.toLowerCase()) === declared.closed[call.state]!.statecode) continue;
      results.set(call.sourceId, { sourceId: call.sourceId, ok: false, error: { code, message: `the ${table.name} was written but Dataverse refused to close it as ${call.state} (${call.action}): ${message}` } });
    }
  }

  return { prepare, finish };
}
