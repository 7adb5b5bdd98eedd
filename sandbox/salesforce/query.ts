// GET /query?q= and /queryAll?q= (deleted records too), and /query/{locator} for the next page.
// The page size comes from `Sforce-Query-Options: batchSize=N` (200 to 2,000, default 2,000).
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import { organizationQuery, isOrganizationQuery } from './organization.ts';
import { compileQuery } from './soql-eval.ts';
import { parseSoql } from './soql-parser.ts';

const DEFAULT_BATCH = 2000;
const MIN_BATCH = 200;

function batchSize(ctx: Ctx): number | undefined {
  const header = ctx.headers['sforce-query-options'];
  const m = /batchSize\s*=\s*(\d+)/i.exec(Array.isArray(header) ? header.join(',') : (header ?? ''));
  if (!m) return undefined;
  return Math.min(DEFAULT_BATCH, Math.max(MIN_BATCH, Number(m[1])));
}

function page(ctx: Ctx, cursorId: string | undefined, records: Record<string, unknown>[], offset: number, size: number, totalSize: number): Reply {
  const slice = records.slice(offset, offset + size);
  const nextOffset = offset + slice.length;
  if (nextOffset >= records.length) {
    if (cursorId) ctx.state.cursors.close(cursorId);
    return json(200, { totalSize, done: true, records: slice });
  }
  if (cursorId) ctx.state.cursors.handOut(cursorId, nextOffset);
  const id = cursorId ?? ctx.state.cursors.open(records, size, nextOffset);
  return json(200, { totalSize, done: false, nextRecordsUrl: `/services/data/v${ctx.version}/query/${id}-${nextOffset}`, records: slice });
}

export async function runQuery(ctx: Ctx, options: { includeDeleted: boolean }): Promise<Reply> {
  const q = ctx.url.searchParams.get('q');
  if (!q || !q.trim()) throw new RequestError(400, 'MALFORMED_QUERY', "A query string has to be specified with the 'q' parameter");
  const parsed = parseSoql(q);
  // The org's own row is no record of the store (organization.ts).
  if (isOrganizationQuery(parsed)) return organizationQuery(ctx, parsed);
  const compiled = compileQuery(parsed, ctx.state.store, ctx.state.config.now);
  // Time for the rows the optimizer scans (query-cost.ts); QUERY_TIMEOUT past the limit.
  const { where, fieldOf, predicateOf } = compiled;
  await ctx.state.queryCost.charge({ object: compiled.object.name, where, fieldOf, predicateOf, rows: () => [...ctx.state.store.table(compiled.object).all()].filter((r) => !r.IsDeleted) });
  const { totalSize, records } = compiled.run({ includeDeleted: options.includeDeleted, version: ctx.version });
  return page(ctx, undefined, records, 0, batchSize(ctx) ?? DEFAULT_BATCH, totalSize);
}

export const query = (ctx: Ctx) => runQuery(ctx, { includeDeleted: false });
export const queryAll = (ctx: Ctx) => runQuery(ctx, { includeDeleted: true });

export function queryMore(ctx: Ctx): Reply {
  const m = /^(01g[A-Za-z0-9]{15})-(\d+)$/.exec(ctx.params.locator ?? '');
  const cursor = m ? ctx.state.cursors.get(m[1]!) : undefined;
  // Only the locator handed out last: one already used (an activity retried after its page was read) is spent.
  if (!m || !cursor || Number(m[2]) !== cursor.next) throw new RequestError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
  const size = batchSize(ctx) ?? cursor.batchSize;
  return page(ctx, cursor.id, cursor.records, Number(m[2]), size, cursor.records.length);
}
