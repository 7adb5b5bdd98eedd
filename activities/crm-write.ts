// Writing planned records to the CRM: grouped by how they are keyed (by linked CRM id, then by external
// id), handed to the connector whole (it cuts them into the CRM's own batches or one Bulk API 2.0 job), with
// heartbeats throughout. A rejected record becomes a dead letter, never a failed batch. A Bulk job this
// batch already created in an earlier attempt is resumed, never uploaded a second time.
import type { CrmConnector, UpsertResult } from '../crm/connector.ts';
import type { DeadLetterInput } from '../store/dead-letters.ts';
import type { RecordLink } from '../store/record-links.ts';
import type { PlannedWrite } from '../sync/plan.ts';
import { activityLog, whileBeating, type Beat } from './activity-context.ts';
import { guard } from './failures.ts';

/** The CRMs' answers to a write by an id that is not a record of this org (Salesforce's codes, HubSpot's OBJECT_NOT_FOUND). */
const STALE_ID_CODES = new Set(['NOT_FOUND', 'MALFORMED_ID', 'INVALID_ID_FIELD', 'ENTITY_IS_DELETED', 'INVALID_CROSS_REFERENCE_KEY', 'OBJECT_NOT_FOUND']);

export type WriteOutcome = {
  written: RecordLink[];
  letters: DeadLetterInput[];
  created: number;
  updated: number;
  succeeded: { sourceId: string; crmId: string }[];
  calls: number;
};

/** Heartbeat details a write keeps for the next attempt: Bulk jobs by chunk. */
export type WriteMemory = { bulkJobs?: Record<string, string> };

export async function writeToCrm(
  crm: CrmConnector,
  object: string,
  entity: string,
  writes: PlannedWrite[],
  context: { beat: Beat; signal?: AbortSignal; resumeJobs?: Record<string, string>; chunkSize?: number },
): Promise<WriteOutcome> {
  const outcome: WriteOutcome = { written: [], letters: [], created: 0, updated: 0, succeeded: [], calls: 0 };
  await releaseRelinked(crm, object, writes, outcome, context.signal);
  const jobs: Record<string, string> = { ...context.resumeJobs };
  let done = 0;
  // A write by a CRM id that names nothing in this org (deleted there, or carried from another org) is
  // written again as an upsert by external id, with the fields a new record needs (a stage, a pipeline).
  // Where writes by id and upserts are separate calls, the writes by id go first and their stale ones
  // join the upserts: one part-filled batch per gather instead of a separate retry call. A connector
  // that takes both kinds in one call (Dataverse's $batch) gets them together (a small change is one
  // call), and its stale ones are a second call.
  const asUpserts = (stale: PlannedWrite[]) => stale.map((write) => ({ ...write, item: { ...write.item, crmId: undefined, fields: write.record.fields } }));
  writes = await withCarriedIdsChecked(crm, object, writes, asUpserts, outcome, context.signal);
  if (crm.mixedWrites) {
    const stale = await writeGroup('mixed', writes);
    await writeGroup('upsert', asUpserts(stale));
    return outcome;
  }
  const stale = await writeGroup('byId', writes.filter((write) => write.item.crmId));
  await writeGroup('upsert', [...writes.filter((write) => !write.item.crmId), ...asUpserts(stale)]);
  return outcome;

  /** Writes one group in chunks; records every result except the stale ids of writes by id, which it returns. */
  async function writeGroup(kind: 'byId' | 'mixed' | 'upsert', group: PlannedWrite[]): Promise<PlannedWrite[]> {
    const stale: PlannedWrite[] = [];
    const size = context.chunkSize ?? Math.max(group.length, 1);
    for (let start = 0; start < group.length; start += size) {
      context.signal?.throwIfAborted();
      const key = `${object}:${kind}:${start / size}`;
      const chunk = group.slice(start, start + size);
      const phase = { entity, phase: 'write', writing: chunk.length, written: done, of: writes.length };
      const results = await whileBeating(context.beat, phase, () =>
        guard(() =>
          crm.upsert(
            object,
            chunk.map((write) => write.item),
            {
              signal: context.signal,
              bulkJob: {
                resumeId: jobs[key],
                onCreated: (jobId) => {
                  jobs[key] = jobId;
                  context.beat.keep({ bulkJobs: { ...jobs } });
                },
              },
              onProgress: (detail) => context.beat({ ...phase, ...detail }),
            },
          ),
        ),
      );
      outcome.calls += 1;
      results.forEach((result, index) => {
        const write = chunk[index]!;
        if (kind !== 'upsert' && write.item.crmId && !result.ok && STALE_ID_CODES.has(result.error.code)) stale.push(write);
        else {
          record(write, result);
          done += 1;
        }
      });
      context.beat({ entity, phase: 'write', written: done, of: writes.length });
    }
    return stale;
  }

  function record(write: PlannedWrite, result: UpsertResult) {
    if (result.ok) {
      outcome.written.push({ sourceId: write.item.sourceId, crmObject: object, crmId: result.crmId, contentHash: write.hash, sourceVersion: write.version, carriedId: write.record.carriedCrmId ?? null });
      outcome.succeeded.push({ sourceId: write.item.sourceId, crmId: result.crmId });
      if (result.created) outcome.created += 1;
      else outcome.updated += 1;
    } else {
      outcome.letters.push({ sourceId: write.item.sourceId, reason: `${result.error.code}: ${result.error.message}`, crmError: result.error, payload: write.item });
    }
  }
}

/**
 * Where the connector answers thousands of ids in a call (existingIds), the ids commerce records carry
 * that this connection never wrote are checked first: those naming nothing in this org are written as
 * upserts by external id straight away, instead of a refused write each and a second call for them.
 */
async function withCarriedIdsChecked(
  crm: CrmConnector,
  object: string,
  writes: PlannedWrite[],
  asUpserts: (stale: PlannedWrite[]) => PlannedWrite[],
  outcome: WriteOutcome,
  signal?: AbortSignal,
): Promise<PlannedWrite[]> {
  const unconfirmed = writes.filter((write) => write.carriedUnconfirmed && write.item.crmId);
  if (!crm.existingIds || unconfirmed.length === 0) return writes;
  const existing = await guard(() => crm.existingIds!(object, [...new Set(unconfirmed.map((write) => write.item.crmId!))], signal));
  outcome.calls += 1;
  return writes.map((write) => (write.carriedUnconfirmed && write.item.crmId && !existing.has(write.item.crmId) ? asUpserts([write])[0]! : write));
}

/**
 * Records the seller relinked on the commerce side move to the CRM record now named there, once it is
 * known to exist in this org (a carried id that names nothing here is no relink: the link stays). The
 * record they were linked to gives up its external id first (it is unique: two records cannot both
 * carry it) and is otherwise left as it is: nothing is deleted.
 */
async function releaseRelinked(crm: CrmConnector, object: string, writes: PlannedWrite[], outcome: WriteOutcome, signal?: AbortSignal): Promise<void> {
  const relinked: PlannedWrite[] = [];
  for (const write of writes.filter((candidate) => candidate.relinkedFrom)) {
    signal?.throwIfAborted();
    const target = await guard(() => crm.getById(object, write.item.crmId!, ['Id']));
    outcome.calls += 1;
    if (target) relinked.push(write);
    else {
      activityLog(`${write.item.sourceId} names ${object} ${write.item.crmId}, which this CRM org does not have: it stays linked to ${write.relinkedFrom}`);
      write.item.crmId = write.relinkedFrom;
      write.relinkedFrom = undefined;
    }
  }
  if (relinked.length === 0) return;
  const results = await guard(() =>
    crm.upsert(
      object,
      relinked.map((write) => ({ sourceId: write.item.sourceId, externalIdField: write.item.externalIdField, externalId: '', crmId: write.relinkedFrom, fields: {} })),
      { signal },
    ),
  );
  outcome.calls += 1;
  results.forEach((result, index) => {
    const write = relinked[index]!;
    if (!result.ok && !STALE_ID_CODES.has(result.error.code)) activityLog(`${object} ${write.relinkedFrom} kept its ${write.item.externalIdField} after the relink of ${write.item.sourceId}: ${result.error.message}`);
  });
}
