// What a query costs the org, as Salesforce's query optimizer decides it (README "Query cost"): a
// filter on an indexed field that matches fewer rows than the index's selectivity threshold is read
// through the index (only its matching rows are scanned); anything else scans every row of the object.
// The cost is simulated time (a configurable cost per 1,000 rows scanned, default 0), and a query past
// the time limit (default Salesforce's 120 s) answers QUERY_TIMEOUT. Following a query locator
// (queryMore) reads the result already found, so it costs nothing here.
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestError } from './errors.ts';
import type { SandboxField } from './schema.ts';
import type { Condition, Path } from './soql-parser.ts';
import type { StoredRecord } from './store.ts';

export type QueryCostSettings = {
  /** Simulated milliseconds per 1,000 rows scanned; 0 (the default) makes every query free. */
  msPerThousandRows: number;
  /** A query whose simulated time passes this answers QUERY_TIMEOUT (Salesforce: 120 s). */
  timeoutMs: number;
  /** Share of the simulated time the sandbox really waits before answering (0..1, default 0). */
  realTimeShare: number;
};

export const DEFAULT_QUERY_COST: QueryCostSettings = { msPerThousandRows: 0, timeoutMs: 120_000, realTimeShare: 0 };

/** How the optimizer would read one query: through an index (`Index`) or every row (`TableScan`). */
export type QueryPlan = { object: string; leadingOperationType: 'Index' | 'TableScan'; rowsScanned: number; totalRows: number; simulatedMs: number };

/** What query-cost needs from a compiled query: the field a path names and a predicate per condition. */
export type PlanInput = {
  object: string;
  where: Condition | undefined;
  fieldOf(path: Path): { field: SandboxField; throughRelationship: boolean };
  predicateOf(condition: Condition): (record: StoredRecord) => boolean;
  /** The object's live rows, read only when the query has a price. */
  rows(): StoredRecord[];
};

const MILLION = 1_000_000;

/** The Query Optimizer's thresholds: standard indexes 30% of the first million rows and 15% beyond (at most 1,000,000); custom indexes 10% and 5% (at most 333,333). */
export function selectivityThreshold(kind: 'standard' | 'custom', totalRows: number): number {
  const first = Math.min(totalRows, MILLION);
  const beyond = Math.max(0, totalRows - MILLION);
  return kind === 'standard' ? Math.min(0.3 * first + 0.15 * beyond, MILLION) : Math.min(0.1 * first + 0.05 * beyond, 333_333);
}

/** Which index a field has: standard (Id, Name, CreatedDate, SystemModstamp, lookups), custom (external ids, unique fields), or none. LastModifiedDate has none. */
export function indexOf(field: SandboxField): 'standard' | 'custom' | undefined {
  if (['Id', 'Name', 'CreatedDate', 'SystemModstamp', 'RecordTypeId'].includes(field.name) || field.type === 'id' || field.type === 'reference') return 'standard';
  if (field.externalId || field.unique) return 'custom';
  return undefined;
}

/** Rows the optimizer reads for a condition through indexes, or undefined when it must scan the table. */
function indexedRows(condition: Condition, input: PlanInput, rows: StoredRecord[]): number | undefined {
  const totalRows = rows.length;
  switch (condition.kind) {
    case 'and': {
      // One selective filter is enough to drive the query; the others are checked on the rows it reads.
      const driven = condition.items.map((item) => indexedRows(item, input, rows)).filter((rows): rows is number => rows !== undefined);
      return driven.length ? Math.min(...driven) : undefined;
    }
    case 'or': {
      // Every branch must be read through an index, and together they must stay under the threshold.
      const branches = condition.items.map((item) => indexedRows(item, input, rows));
      if (branches.some((rows) => rows === undefined)) return undefined;
      const sum = (branches as number[]).reduce((total, rows) => total + rows, 0);
      return sum < selectivityThreshold('standard', totalRows) ? sum : undefined;
    }
    case 'not':
      return undefined; // negative filters cannot use an index
    case 'like':
      return undefined; // treated as unindexed here (a leading wildcard never uses one)
    case 'in':
    case 'compare': {
      if (condition.kind === 'in' && condition.negated) return undefined;
      if (condition.kind === 'compare' && (condition.op === '!=' || condition.value.kind === 'null')) return undefined;
      const { field, throughRelationship } = input.fieldOf(condition.path);
      const index = throughRelationship ? undefined : indexOf(field);
      if (!index) return undefined;
      const matches = rows.filter(input.predicateOf(condition)).length;
      return matches < selectivityThreshold(index, totalRows) ? matches : undefined;
    }
  }
}

export function planQuery(input: PlanInput, msPerThousandRows: number): QueryPlan {
  const rows = input.rows();
  const totalRows = rows.length;
  const viaIndex = input.where ? indexedRows(input.where, input, rows) : undefined;
  const rowsScanned = viaIndex ?? totalRows;
  return { object: input.object, leadingOperationType: viaIndex === undefined ? 'TableScan' : 'Index', rowsScanned, totalRows, simulatedMs: (rowsScanned / 1000) * msPerThousandRows };
}

export function createQueryCost(initial: Partial<QueryCostSettings> = {}) {
  let settings: QueryCostSettings = { ...DEFAULT_QUERY_COST, ...initial };
  const configured = settings;
  let ledger = { queries: 0, rowsScanned: 0, simulatedMs: 0, timeouts: 0, tableScans: 0 };
  let last: QueryPlan | undefined;
  return {
    settings: () => settings,
    /** New prices from now on, and a new count of what queries cost. */
    set(changes: Partial<QueryCostSettings>) {
      settings = { ...settings, ...changes };
      ledger = { queries: 0, rowsScanned: 0, simulatedMs: 0, timeouts: 0, tableScans: 0 };
      last = undefined;
      return settings;
    },
    /** Charges one query; throws QUERY_TIMEOUT past the limit (after the time it ran, as Salesforce does). */
    async charge(input: PlanInput): Promise<QueryPlan> {
      // Free queries need no plan: other tests with thousands of rows stay fast.
      if (settings.msPerThousandRows === 0) return { object: input.object, leadingOperationType: 'TableScan', rowsScanned: 0, totalRows: 0, simulatedMs: 0 };
      const plan = planQuery(input, settings.msPerThousandRows);
      last = plan;
      const timedOut = plan.simulatedMs > settings.timeoutMs;
      const spent = timedOut ? settings.timeoutMs : plan.simulatedMs;
      ledger = {
        queries: ledger.queries + 1,
        rowsScanned: ledger.rowsScanned + plan.rowsScanned,
        simulatedMs: ledger.simulatedMs + spent,
        timeouts: ledger.timeouts + (timedOut ? 1 : 0),
        tableScans: ledger.tableScans + (plan.leadingOperationType === 'TableScan' ? 1 : 0),
      };
      if (settings.realTimeShare > 0 && spent > 0) await sleep(spent * settings.realTimeShare);
      if (timedOut) throw new RequestError(400, 'QUERY_TIMEOUT', 'Your query request was running for too long.');
      return plan;
    },
    snapshot: () => ({ ...settings, ...ledger, last: last ?? null }),
    reset() {
      settings = configured;
      ledger = { queries: 0, rowsScanned: 0, simulatedMs: 0, timeouts: 0, tableScans: 0 };
      last = undefined;
    },
  };
}

export type QueryCost = ReturnType<typeof createQueryCost>;

/** A start option or control body, checked: each a number in range, naming itself when it is not. */
export function queryCostSettings(input: Record<string, unknown>, where: string): Partial<QueryCostSettings> {
  const out: Partial<QueryCostSettings> = {};
  const number = (key: keyof QueryCostSettings, max: number) => {
    const value = input[key];
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) throw new Error(`${where}: ${key} must be a number from 0 to ${max}, not ${JSON.stringify(value)}`);
    out[key] = value;
  };
  number('msPerThousandRows', 3_600_000);
  number('timeoutMs', 3_600_000);
  number('realTimeShare', 1);
  return out;
}
