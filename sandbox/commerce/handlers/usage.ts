// Usage metering reads (issue #25 section 4; A16): the daily aggregates of usage record groups and of
// usage record reports, each a query-style page of rows keyed entitlement|dimension|date (q, s,
// page_size, page_number as §2.9), narrowed by entitlementId and an inclusive startDate/endDate.
import { runQuery } from '../paging.ts';
import type { SandboxState } from '../state.ts';
import { groupAggregate, reportAggregate } from '../usage.ts';
import { ok, type HandlerTable } from './common.ts';

function narrowed<T extends { entitlementID: string; date: string }>(rows: T[], query: URLSearchParams): T[] {
  const entitlements = query.getAll('entitlementId').filter(Boolean);
  const start = query.get('startDate') ?? '';
  const end = query.get('endDate') ?? '';
  return rows.filter((row) => (entitlements.length === 0 || entitlements.includes(row.entitlementID)) && (!start || row.date >= start) && (!end || row.date <= end));
}

const sorted = <T extends { id: string }>(rows: T[]) => rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export const usageHandlers: HandlerTable = {
  'GET /org/{orgId}/usageRecordGroup/aggregate': ({ state, query }: { state: SandboxState; query: URLSearchParams }) =>
    ok(runQuery(sorted(narrowed(groupAggregate(state), query)), query, state.settings.totalCountCap)),
  'GET /org/{orgId}/usageRecordReport/aggregate': ({ state, query }: { state: SandboxState; query: URLSearchParams }) =>
    ok(runQuery(sorted(narrowed(reportAggregate(state), query)), query, state.settings.totalCountCap)),
};
