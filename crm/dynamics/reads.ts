// Reads from Dataverse: changed rows by (modifiedon, primary id) oldest first, page by page through
// @odata.nextLink with odata.maxpagesize; rows by any column's values; one row by GUID. Every value in
// a $filter is typed by its column (odata.ts). Rows come back as Dataverse wrote them, date-times as
// `YYYY-MM-DDTHH:MM:SSZ` (the client turns them into Dates: turned back here), with `id` added: the
// row's GUID, whatever the table's primary id column is called.
import type { RetrieveMultipleRequest } from 'dynamics-web-api';
import { CrmError, type CrmRecord, type RecordFilter } from '../connector.ts';
import type { Metadata, TableInfo } from './metadata.ts';
import { anyOf, asGuid, literal, ODataValueError } from './odata.ts';
import { odataFilter } from './record-filter.ts';
import { dataverseErrorInfo } from './errors.ts';
import { DynamicsCallError, type DynamicsTransport } from './transport.ts';

export const ID = 'id';
export const STAMP = 'modifiedon';
/** Values per `or` filter, each query one GET part of a $batch (a URL there is not held to 2,000 characters). */
const VALUES_PER_QUERY = 100;
/** GET parts per $batch (Dataverse takes 1,000 operations). */
const QUERIES_PER_BATCH = 1000;
export const MAX_PAGE_SIZE = 5000;

export function normalize(table: Pick<TableInfo, 'primaryId'>, row: Record<string, unknown>): CrmRecord {
  const record: CrmRecord = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith('@') || name.startsWith('oData')) continue;
    record[name] = value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, 'Z') : value;
  }
  record[ID] = String(row[table.primaryId] ?? '').toLowerCase();
  return record;
}

export function createReader(transport: DynamicsTransport, metadata: Metadata) {
  /** The columns to $select: the ones asked for that the table has, its id and stamp; a column it lacks is named. */
  function selectFor(table: TableInfo, fields: string[]): string[] {
    const wanted = fields.filter((field) => field !== ID && !field.includes('.'));
    const missing = wanted.filter((field) => !table.fields.has(field) || table.navigation.has(field));
    if (missing.length) {
      throw new CrmError(`Dataverse's ${table.name} table has no column ${missing.join(', ')}: run crm-sync setup <connection> to create the project's columns, or fix the mapping`, { code: 'SCHEMA_MISSING', retryable: false });
    }
    return [...new Set([...wanted, table.primaryId, STAMP])];
  }

  async function* pages(what: string, table: TableInfo, request: RetrieveMultipleRequest, signal?: AbortSignal): AsyncGenerator<CrmRecord[]> {
    let next: string | undefined;
    do {
      const link = next;
      const answer = await transport.call(what, (client) => client.retrieveMultiple(request, link), { signal });
      yield (answer.value ?? []).map((row) => normalize(table, row as Record<string, unknown>));
      next = answer.oDataNextLink ?? answer['@odata.nextLink'];
    } while (next);
  }

  return {
    /**
     * Rows modified in the window, oldest first by (modifiedon, id). Without `afterId` the start is
     * inclusive (`ge`, after the look-back); with it, strictly after the last row read. The GUID order
     * is Dataverse's own (the comparison and the sort are both the server's), never compared here.
     */
    async *changedSince(object: string, options: { start: Date; afterId?: string; until?: Date; fields: string[]; pageSize?: number; signal?: AbortSignal; narrow?: RecordFilter }): AsyncGenerator<CrmRecord[]> {
      const table = await metadata.table(object);
      const at = literal(options.start, 'datetime');
      const from = options.afterId === undefined ? `${STAMP} ge ${at}` : `(${STAMP} gt ${at} or (${STAMP} eq ${at} and ${table.primaryId} gt ${literal(options.afterId, 'guid')}))`;
      const window = options.until ? `${from} and ${STAMP} le ${literal(options.until, 'datetime')}` : from;
      // Only the rows a flow can use, where the filter can say so (record-filter.ts); else the whole window.
      const narrowed = options.narrow && odataFilter(options.narrow, (column) => table.literalKind(column));
      const filter = narrowed ? `${window} and ${narrowed}` : window;
      yield* pages(
        `reading changed ${table.entitySetName}`,
        table,
        {
          collection: table.entitySetName,
          select: selectFor(table, options.fields),
          filter,
          orderBy: [`${STAMP} asc`, `${table.primaryId} asc`],
          maxPageSize: Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE),
        },
        options.signal,
      );
    },

    /** Every row whose `field` (a column, a lookup's _x_value, or `id`) holds one of `values`. */
    async whereIn(object: string, field: string, values: string[], fields: string[], signal?: AbortSignal): Promise<CrmRecord[]> {
      const table = await metadata.table(object);
      const column = field === ID ? table.primaryId : field;
      const kind = table.literalKind(column);
      if (!kind) throw new CrmError(`Dataverse's ${table.name} table has no column ${column} to look records up by`, { code: 'SCHEMA_MISSING', retryable: false });
      // A value that cannot be of the column's type matches nothing (a non-GUID asked of an id column).
      const usable = [...new Set(values)].filter((value) => {
        try {
          literal(value, kind);
          return true;
        } catch (error) {
          if (error instanceof ODataValueError) return false;
          throw error;
        }
      });
      const select = selectFor(table, [...fields, ...(field === ID ? [] : [column])]);
      const requests: RetrieveMultipleRequest[] = [];
      for (let start = 0; start < usable.length; start += VALUES_PER_QUERY) {
        requests.push({ collection: table.entitySetName, select, filter: anyOf(column, usable.slice(start, start + VALUES_PER_QUERY), kind), maxPageSize: MAX_PAGE_SIZE });
      }
      const what = `reading ${table.entitySetName} by ${column}`;
      if (requests.length === 1) {
        const found: CrmRecord[] = [];
        for await (const page of pages(what, table, requests[0]!, signal)) found.push(...page);
        return found;
      }
      // Several queries: one $batch of GET parts (one call instead of one per query).
      const found: CrmRecord[] = [];
      for (let start = 0; start < requests.length; start += QUERIES_PER_BATCH) {
        const group = requests.slice(start, start + QUERIES_PER_BATCH);
        const answers = await transport.call(
          what,
          async (client) => {
            client.startBatch();
            for (const request of group) await client.retrieveMultiple(request);
            return client.executeBatch({ inChangeSet: false });
          },
          { signal, operations: group.length },
        );
        for (const [index, answer] of (answers ?? []).entries()) {
          if (answer instanceof Error || !answer || !Array.isArray((answer as { value?: unknown }).value)) throw new DynamicsCallError(what, dataverseErrorInfo(answer), answer);
          const { value, oDataNextLink } = answer as { value: Record<string, unknown>[]; oDataNextLink?: string; '@odata.nextLink'?: string };
          found.push(...value.map((row) => normalize(table, row)));
          const next = oDataNextLink ?? (answer as { '@odata.nextLink'?: string })['@odata.nextLink'];
          // A part with more rows than a page: the rest by its next links.
          if (next) {
            let link: string | undefined = next;
            while (link) {
              const current: string = link;
              const more = await transport.call(what, (client) => client.retrieveMultiple(group[index]!, current), { signal });
              found.push(...(more.value ?? []).map((row) => normalize(table, row as Record<string, unknown>)));
              link = more.oDataNextLink ?? more['@odata.nextLink'];
            }
          }
        }
      }
      return found;
    },

    async byId(object: string, id: string, fields: string[]): Promise<CrmRecord | undefined> {
      const table = await metadata.table(object);
      const guid = asGuid(id);
      if (!guid) return undefined;
      try {
        const row = await transport.call(`reading ${table.name} ${guid}`, (client) => client.retrieve({ collection: table.entitySetName, key: guid, select: selectFor(table, fields) }));
        return row ? normalize(table, row as Record<string, unknown>) : undefined;
      } catch (error) {
        if (error instanceof DynamicsCallError && error.info.status === 404) return undefined;
        throw error;
      }
    },
  };
}
