// Writes to one Dataverse table in $batch requests, each operation on its own (no changeset) with
// continue-on-error, so one refused record never stops the others and each answer is matched to its
// record: the GUID Dataverse wrote, or its error code and message.
// - upsert: PATCH {set}(key='value') creates or updates by the alternate key;
// - update: PATCH {set}(guid) with If-Match: * (a record that is gone answers 404, never a new one);
// - create: POST {set} (rows without a key, e.g. an opportunity's contact links), carrying a GUID chosen
//   here as its primary key (Dataverse takes a primary key value on create).
// A whole $batch refused with a 4xx (a request Dataverse could not read) is split in halves until the
// record it cannot take stands alone.
// Sizes and lost answers (issue #22 item 7): Dataverse runs a $batch's operations one after another and
// goes on when the client stops waiting, so a $batch is as large as the measured pace allows (the
// transport's batchSize(): 10 first, growing; batchLanes() of them at once once grown, each waiting for
// room in the execution-time ledger) and one that got no answer is never simply sent again (no-answer.ts:
// wait, find out what was written, send the rest):
// - its creates are looked for by their GUIDs first; the ones found are written and are not sent again,
//   and one sent again that Dataverse took meanwhile is refused as a duplicate key, not made twice;
// - its upserts by alternate key and updates by GUID are sent again as they are: writing the same values
//   to the same row a second time leaves the row as once (idempotent), never a second row.
import { randomUUID } from 'node:crypto';
import type { UpsertResult } from '../connector.ts';
import { codeOf, DynamicsCallError, type DynamicsTransport } from './transport.ts';
import { dataverseErrorInfo } from './errors.ts';
import { MAX_BATCH } from './batch-size.ts';
import { afterNoAnswer } from './no-answer.ts';

/** Dataverse's most operations in one $batch (the sizes actually sent follow the measured pace). */
export const BATCH_LIMIT = MAX_BATCH;
/** Dataverse's "Cannot insert duplicate key.": a create whose GUID a row already has. */
const DUPLICATE_KEY = '0x80040237';

export type WireOperation = {
  sourceId: string;
  mode: 'upsert' | 'update' | 'create';
  /** The record's URL key, escaped (odata.ts keySegment): its GUID (update) or `column='value'` (upsert). */
  segment?: string;
  /** The GUID when the key is one. */
  guid?: string;
  data: Record<string, unknown>;
};

/** The table written: where its rows live and its primary id column (a create's GUID goes there). */
export type WriteTable = { name: string; entitySetName: string; primaryId: string };

/** The GUIDs of `guids` that rows of the table have (a read, safe to repeat). */
export type ExistingRows = (table: WriteTable, guids: string[], signal?: AbortSignal) => Promise<Set<string>>;

export function createBatchWriter(transport: DynamicsTransport, existing: ExistingRows) {
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
        { signal, operations: operations.length, writes: true },
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
    async write(table: WriteTable, operations: WireOperation[], signal?: AbortSignal): Promise<UpsertResult[]> {
      // Each create names its row's GUID, so what was written can be found and a second send is refused.
      const wire = operations.map((operation) => {
        if (operation.mode !== 'create') return operation;
        const guid = randomUUID();
        return { ...operation, guid, data: { ...operation.data, [table.primaryId]: guid } };
      });
      const results: UpsertResult[] = new Array(wire.length);
      /** Creates sent in a $batch that got no answer: a duplicate key for one of them is its own row. */
      const sentBefore = new Set<number>();
      /** Rounds without an answer per record (no-answer.ts: past its last round the write fails). */
      const unansweredRounds = new Map<number, number>();
      const queue = wire.map((_, index) => index);

      /** One $batch from the front of the queue; what a batch without an answer did not write goes back to the front. */
      async function next(): Promise<void> {
        signal?.throwIfAborted();
        const batch = queue.splice(0, transport.batchSize());
        try {
          const answers = await runBatch(table.entitySetName, batch.map((index) => wire[index]!), signal);
          batch.forEach((index, at) => {
            const answer = answers[at]!;
            const alreadyMade = !answer.ok && answer.error.code === DUPLICATE_KEY && sentBefore.has(index);
            results[index] = alreadyMade ? { sourceId: answer.sourceId, ok: true, crmId: wire[index]!.guid!, created: true } : answer;
          });
        } catch (error) {
          const round = Math.max(...batch.map((index) => (unansweredRounds.get(index) ?? 0) + 1));
          for (const index of batch) unansweredRounds.set(index, round);
          const again = await afterNoAnswer(error, round, async () => {
            // What Dataverse wrote of this batch's creates: those rows are not sent again.
            const creates = batch.filter((index) => wire[index]!.mode === 'create');
            const found = creates.length ? await existing(table, creates.map((index) => wire[index]!.guid!), signal) : new Set<string>();
            for (const index of creates) {
              if (found.has(wire[index]!.guid!)) results[index] = { sourceId: wire[index]!.sourceId, ok: true, crmId: wire[index]!.guid!, created: true };
              else sentBefore.add(index);
            }
            // Upserts by key and updates by GUID: sent again as they are (idempotent, see above).
            return batch.filter((index) => !results[index]);
          }, signal);
          queue.unshift(...again);
        }
      }

      // One $batch at a time while the size grows, then the transport's lanes (each waits for room in
      // the execution-time ledger); a lane ends when the queue is empty and no batch can come back.
      const running = new Set<Promise<void>>();
      let failure: unknown;
      while ((queue.length || running.size) && failure === undefined) {
        while (queue.length && running.size < transport.batchLanes() && failure === undefined) {
          const work: Promise<void> = next().catch((error: unknown) => { failure ??= error; }).finally(() => running.delete(work));
          running.add(work);
        }
        if (running.size) await Promise.race(running);
      }
      await Promise.all(running);
      if (failure !== undefined) throw failure;
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
  return { sourceId: operation.sourceId, ok: true, crmId: guid, created: operation.mode !== 'update' };
}
