// Reads of one record at a time (by id, or what its mapping needs besides it: an entitlement's terms)
// that the commerce side refuses must not stop the records beside them. A refusal is an answer about
// that record: an HTTP error status (a 4xx, or a 5xx the client's own retries did not get past) with
// whatever body came, JSON or plain text, or a 2xx whose body is not the JSON it should be. Such a
// record waits as a dead letter with the refusal in its reason and is retried later. What says the
// service cannot be used at all (unreachable, 429, refused credentials) still fails the activity, and
// Temporal retries it.
import pLimit from 'p-limit';
import { CommerceApiError, CommerceResponseError, type CommerceClient } from '../commerce/index.ts';
import type { ByIdContext, ReadOptions, RelatedRead, RelatedReader } from '../flows/types.ts';
import type { Entity } from '../mappings/types.ts';
import { readRecordsById, type ByIdRead } from '../sync/sources.ts';

const CONCURRENCY = 8;

export function isRefusalOfRecord(error: unknown): error is CommerceApiError | CommerceResponseError {
  return (error instanceof CommerceApiError && error.status !== 429) || error instanceof CommerceResponseError;
}

/** readRecordsById, one id per read: a refused read is that record's `unreadable` entry, with the refusal. */
export async function readEachById(commerce: CommerceClient, orgId: string, entity: Entity, ids: string[], options: ReadOptions & { byIdContext?: ByIdContext } = {}): Promise<ByIdRead> {
  const limit = pLimit(options.concurrency ?? CONCURRENCY);
  const read: ByIdRead = { records: [], unreadable: [], missing: [], notOurs: [] };
  let finished = 0;
  await Promise.all(
    ids.map((id) =>
      limit(async () => {
        try {
          const one = await readRecordsById(commerce, orgId, entity, [id], { signal: options.signal, byIdContext: options.byIdContext });
          for (const key of ['records', 'unreadable', 'missing', 'notOurs'] as const) (read[key] as unknown[]).push(...one[key]);
        } catch (error) {
          if (!isRefusalOfRecord(error)) throw error;
          read.unreadable.push({ sourceId: id, reason: `the commerce API refused to read ${entity} ${id}: ${error.message}` });
        }
        finished += 1;
        options.onProgress?.({ entity, phase: 'read by id', read: finished, of: ids.length });
      }),
    ),
  );
  // Concurrency shuffles the order; the write path wants it stable.
  const order = new Map(ids.map((id, index) => [id, index]));
  read.records.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return read;
}

/** A flow's related reader, one record per read: a refused read makes that record `unreadable`, with the refusal. */
export async function readRelatedEach(readRelated: RelatedReader, commerce: CommerceClient, orgId: string, records: { id: string }[], options: ReadOptions = {}): Promise<RelatedRead> {
  const limit = pLimit(options.concurrency ?? CONCURRENCY);
  const related: RelatedRead = { byRecord: new Map(), unreadable: new Map(), latest: new Map() };
  let finished = 0;
  await Promise.all(
    records.map((record) =>
      limit(async () => {
        try {
          const one = await readRelated(commerce, orgId, [record], { signal: options.signal, concurrency: 1 });
          for (const key of ['byRecord', 'unreadable', 'latest'] as const) for (const [id, value] of one[key]) (related[key] as Map<string, unknown>).set(id, value);
        } catch (error) {
          if (!isRefusalOfRecord(error)) throw error;
          related.unreadable.set(record.id, [`the commerce API refused to read them: ${error.message}`]);
        }
        finished += 1;
        options.onProgress?.({ phase: 'related records', read: finished, of: records.length });
      }),
    ),
  );
  return related;
}
