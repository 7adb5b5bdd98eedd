// Writes to one Dataverse table in $batch requests of up to 1,000 operations, each operation on its
// own (no changeset) with continue-on-error, so one refused record never stops the others and each
// answer is matched to its record: the GUID Dataverse wrote, or its error code and message.
// - upsert: PATCH {set}(key='value') creates or updates by the alternate key;
// - update: PATCH {set}(guid) with If-Match: * (a record that is gone answers 404, never a new one);
// - create: POST {set} (rows without a key, e.g. an opportunity's contact links).
// A whole $batch refused with a 4xx (a request Dataverse could not read) is split in halves until the
// record it cannot take stands alone.
import type { UpsertResult } from '../connector.ts';
import { codeOf, DynamicsCallError, type DynamicsTransport } from './transport.ts';
import { dataverseErrorInfo } from './errors.ts';

export const BATCH_LIMIT = 1000;

export type WireOperation = {
  sourceId: string;
  mode: 'upsert' | 'update' | 'create';
  /** The record's URL key, escaped (odata.ts keySegment): its GUID (update) or `column='value'` (upsert). */
  segment?: string;
  /** The GUID when the key is one. */
  guid?: string;
  data: Record<string, unknown>;
};

export function createBatchWriter(transport: DynamicsTransport) {
  async function runBatch(entitySet: string, operations: WireOperation[], signal?: AbortSignal): Promise<UpsertResult[]> {
    try {
      const answers = await transport.call(
        `writing ${operations.length} ${entitySet}`,
        async (client) => {
          client.startBatch();
          for (const operation of operations) {
            if (operation.mode === 'create') await client.create({ collection: entitySet, data: operation.data });
            else await client.upsert({ collection: entitySet, key: operation.segment!, data: operation.data, ...(operation.mode === 'update' && { ifmatch: '*' }) });
          }
          return client.executeBatch({ continueOnError: true, inChangeSet: false });
        },
        { signal, operations: operations.length },
      );
      return operations.map((operation, index) => resultOf(operation, answers?.[index]));
    } catch (error) {
      const status = error instanceof DynamicsCallError ? error.info.status : undefined;
      if (status !== undefined && status >= 400 && status < 500 && status !== 429 && status !== 401) {
        if (operations.length === 1) return [{ sourceId: operations[0]!.sourceId, ok: false, error: { code: codeOf((error as DynamicsCallError).info), message: (error as DynamicsCallError).info.message } }];
        const half = Math.ceil(operations.length / 2);
        return [...(await runBatch(entitySet, operations.slice(0, half), signal)), ...(await runBatch(entitySet, operations.slice(half), signal))];
      }
      throw error;
    }
  }

  return {
    /** One result per operation, in order. */
    async write(entitySet: string, operations: WireOperation[], signal?: AbortSignal): Promise<UpsertResult[]> {
      const results: UpsertResult[] = [];
      for (let start = 0; start < operations.length; start += BATCH_LIMIT) {
        signal?.throwIfAborted();
        results.push(...(await runBatch(entitySet, operations.slice(start, start + BATCH_LIMIT), signal)));
      }
      return results;
    },
  };
}

/** One operation's answer inside the batch: the GUID from OData-EntityId, or the error Dataverse gave it. */
function resultOf(operation: WireOperation, answer: unknown): UpsertResult {
  if (answer instanceof Error || (answer && typeof answer === 'object' && 'status' in answer)) {
    const info = dataverseErrorInfo(answer);
    return { sourceId: operation.sourceId, ok: false, error: { code: codeOf(info), message: info.message } };
  }
  // A written record whose GUID the client could not read from the answer (its OData-EntityId parsing
  // depends on the answer's line endings) is ok with an empty id: the connector reads it by its key.
  const guid = typeof answer === 'string' ? answer.toLowerCase() : (operation.guid ?? '');
  return { sourceId: operation.sourceId, ok: true, crmId: guid, created: operation.mode !== 'update' && !operation.guid };
}
