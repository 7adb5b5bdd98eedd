// Reading usage from the commerce service (issue #25 section 4; assumptions A16): the daily aggregates
// of usage record groups (every group, whatever its state: each change of a day's usage shows there,
// so they are the flow's window) and of usage record reports (what the marketplace was billed: the
// reported quantity and amount), one row per entitlement, dimension key and date.
import { CommerceRecordError, toDate, type CommerceClient, type Page } from '../commerce/index.ts';

/** A day of usage record groups (A16). `pendingQuantity`: groups not yet reported; `failed*`: groups in REPORT_FAILED. */
export type UsageGroupDay = {
  id: string;
  entitlementID: string;
  dimensionKey: string;
  date: string;
  groupCount: number;
  quantity: number;
  pendingQuantity: number;
  failedCount: number;
  failedQuantity: number;
  lastUpdateTime: string;
};

/** A day of usage record reports (A16): what was reported to the marketplace, and its amount. */
export type UsageReportDay = { id: string; entitlementID: string; dimensionKey: string; date: string; reportCount: number; quantity: number; amount: number; currency?: string; lastUpdateTime: string };

/** A day of usage as the usage flow reads it: its groups, and its reports when anything of it was reported. */
export type UsageDay = UsageGroupDay & { reported?: UsageReportDay };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

/** What a day row lacks for the sync to use it, in words (empty: usable). */
function problemsOf(row: Record<string, unknown>, numbers: string[]): string[] {
  const problems: string[] = [];
  for (const field of ['id', 'entitlementID', 'dimensionKey']) if (typeof row[field] !== 'string' || row[field] === '') problems.push(`${field} is missing`);
  if (typeof row.date !== 'string' || !DATE.test(row.date)) problems.push(`date ${JSON.stringify(row.date)} is not a day (YYYY-MM-DD)`);
  if (!toDate(row.lastUpdateTime as string)) problems.push(`lastUpdateTime ${JSON.stringify(row.lastUpdateTime)} is not a time`);
  for (const field of numbers) if (!isNumber(row[field])) problems.push(`${field} is not a number`);
  return problems;
}

const GROUP_NUMBERS = ['groupCount', 'quantity', 'pendingQuantity', 'failedCount', 'failedQuantity'];
const REPORT_NUMBERS = ['reportCount', 'quantity', 'amount'];

function split<T>(resource: string, rows: unknown[], numbers: string[]): Pick<Page<T>, 'records' | 'rejected'> {
  const page: Pick<Page<T>, 'records' | 'rejected'> = { records: [], rejected: [] };
  for (const raw of rows) {
    const row = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const problems = problemsOf(row, numbers);
    if (problems.length === 0) page.records.push(row as T);
    else page.rejected.push({ raw, error: new CommerceRecordError(resource, typeof row.id === 'string' ? row.id : undefined, problems) });
  }
  return page;
}

type Envelope = { data?: unknown; total_count?: number; total_count_capped?: boolean };

/** Query-style pages of the group aggregate (q, s, page_size, page_number as §2.9). */
export async function* usageGroupDayPages(commerce: CommerceClient, orgId: string, query: { q?: string; s?: string; pageSize: number; startPage?: number; entitlementId?: string; startDate?: string; endDate?: string }): AsyncGenerator<Page<UsageGroupDay>> {
  for (let pageNumber = query.startPage ?? 1; ; pageNumber += 1) {
    const body = (await commerce.call('GET /org/{orgId}/usageRecordGroup/aggregate', { orgId }, {
      query: { q: query.q, s: query.s, page_size: query.pageSize, page_number: pageNumber, entitlementId: query.entitlementId, startDate: query.startDate, endDate: query.endDate },
    })) as Envelope;
    const rows = Array.isArray(body?.data) ? body.data : [];
    yield { ...split<UsageGroupDay>('usage record group day', rows, GROUP_NUMBERS), position: pageNumber, totalCount: body?.total_count, totalCountCapped: body?.total_count_capped === true };
    if (rows.length < query.pageSize) return;
  }
}

/** Every report day between two days (inclusive), of one entitlement or all, by id; rows that cannot be used come back with their reasons. */
export async function reportDays(commerce: CommerceClient, orgId: string, entitlementId: string | undefined, startDate: string, endDate: string): Promise<{ days: Map<string, UsageReportDay>; problems: string[] }> {
  const days = new Map<string, UsageReportDay>();
  const problems: string[] = [];
  const pageSize = 1000;
  for (let pageNumber = 1; ; pageNumber += 1) {
    const body = (await commerce.call('GET /org/{orgId}/usageRecordReport/aggregate', { orgId }, { query: { entitlementId, startDate, endDate, page_size: pageSize, page_number: pageNumber } })) as Envelope;
    const rows = Array.isArray(body?.data) ? body.data : [];
    const page = split<UsageReportDay>('usage record report day', rows, REPORT_NUMBERS);
    for (const day of page.records) days.set(day.id, day);
    problems.push(...page.rejected.map((row) => row.error.message));
    if (rows.length < pageSize) return { days, problems };
  }
}

/** The parts of a day's key (entitlement|dimension|date). */
export function dayKeyParts(id: string): { entitlementId: string; dimensionKey: string; date: string } | undefined {
  const parts = id.split('|');
  if (parts.length !== 3 || parts.some((part) => part === '') || !DATE.test(parts[2]!)) return undefined;
  return { entitlementId: parts[0]!, dimensionKey: parts[1]!, date: parts[2]! };
}
