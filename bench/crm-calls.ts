// What a benchmark needs to know of each CRM sandbox to count its calls: where its call counters are,
// how to reset them, which calls write records, and how many records one write call takes at most (the
// floor a volume allows). Declarations, one per CRM kind, read by every scenario.
export type CrmKind = 'salesforce' | 'hubspot' | 'dynamics';

export type CrmCalls = {
  /** Records one write request takes at most: Salesforce's sObject Collections, HubSpot's batch, Dataverse's $batch. */
  batch: number;
  /**
   * Operations the CRM requires beside the records' own writes, by what they are, from the sandbox's
   * counts: Dataverse closes an opportunity only with WinOpportunity / LoseOpportunity (issue #22 item
   * 8), one more operation per close that a $batch holds like any other.
   */
  requiredOperations?(calls: Record<string, number>): Record<string, number>;
  reset: { method: string; path: string };
  /** Requests that write records (for Salesforce every step of a Bulk API 2.0 job counts). */
  writeRequests(calls: Record<string, number>): number;
};

const sum = (calls: Record<string, number>, matches: (kind: string) => boolean) =>
  Object.entries(calls).filter(([kind]) => kind !== 'total' && matches(kind)).reduce((total, [, count]) => total + count, 0);

export const CRM_CALLS: Record<CrmKind, CrmCalls> = {
  salesforce: { batch: 200, reset: { method: 'POST', path: '/calls/reset' }, writeRequests: (calls) => sum(calls, (kind) => /^(composite-(create|update|upsert)|bulk2-|sobject-(create|update|upsert))/.test(kind)) },
  hubspot: { batch: 100, reset: { method: 'DELETE', path: '/calls' }, writeRequests: (calls) => sum(calls, (kind) => /batch\.(upsert|update|create)/.test(kind)) },
  // A $batch of GET parts only (lookups by value) reads: the sandbox counts those apart.
  // The floor (issue #22 item 7): Dataverse takes at most 1,000 operations in one $batch, and runs them
  // one after another within the request's 2 minutes, so 1,000 a request is what the real limits allow
  // while 1,000 operations take under 120 s (28 s at the sandbox's default 28 ms an operation; the
  // connector grows its batches to 1,000 while one stays under 40 s, i.e. up to 40 ms an operation). The
  // connector starts at 10 and grows fourfold (10, 40, 160, 640, then 1,000): four requests more than the
  // floor once per worker. The bulk UpsertMultiple message would not lower the floor for standard tables
  // (no record limit, but the same 2 minutes and one refused record failing the whole request).
  dynamics: {
    batch: 1000,
    requiredOperations: (calls) => ({ 'opportunity closes': (calls['$batch close actions'] ?? 0) + (calls['POST WinOpportunity'] ?? 0) + (calls['POST LoseOpportunity'] ?? 0) }),
    reset: { method: 'DELETE', path: '/calls' },
    writeRequests: (calls) => sum(calls, (kind) => kind === 'POST $batch' || /^(PATCH|POST) (?!token|\$batch)/.test(kind)) - (calls['$batch of reads only'] ?? 0),
  },
};

/**
 * The fewest write requests the batch size allows for these records (each entity written apart), plus
 * the operations the CRM requires beside them (`calls`: the sandbox's counts, for requiredOperations).
 */
export function writeFloor(kind: CrmKind, recordsByEntity: Record<string, number>, calls: Record<string, number> = {}): number {
  const operations = { ...recordsByEntity, ...CRM_CALLS[kind].requiredOperations?.(calls) };
  return Object.values(operations).reduce((total, count) => total + Math.ceil(count / CRM_CALLS[kind].batch), 0);
}

export async function readCalls(controlUrl: string): Promise<Record<string, number>> {
  const body = (await (await fetch(`${controlUrl}/calls`)).json()) as Record<string, unknown>;
  const counts = (body.byEndpoint ?? body.counts ?? body) as Record<string, number>;
  return { ...counts, total: typeof counts.total === 'number' ? counts.total : sum(counts, () => true) };
}

export async function resetCalls(kind: CrmKind, controlUrl: string): Promise<void> {
  const { method, path } = CRM_CALLS[kind].reset;
  await fetch(`${controlUrl}${path}`, { method });
}
