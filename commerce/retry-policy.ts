// Which commerce operations may be sent again after an ambiguous failure (a 5xx, a timeout, a cut
// body). Reads and merge-patches are idempotent. Offer creation is deduplicated by the service for 60
// seconds (§8), a usage record group by its id (15 days). Every other POST is unsafe: it is repeated
// only when the service surely never processed it (429, connection refused).
import type { Operation } from './operations.ts';

export type RetryPolicy = { kind: 'idempotent' } | { kind: 'dedup-window'; windowMs: number } | { kind: 'unsafe' };

const OFFER_CREATE = 'POST /org/{orgId}/offer';
const USAGE_RECORD_GROUP = 'POST /org/{orgId}/entitlement/{entitlementId}/usageRecordGroup';
const BATCH_USAGE_RECORD_GROUPS = 'POST /org/{orgId}/batchCreateUsageRecordGroups';
/** POSTs that only read (validation, previews, searches) are safe to repeat. */
const READ_ONLY_POSTS = new Set([
  'POST /org/{orgId}/cosell/referral/validate',
  'POST /org/{orgId}/cosell/referral/batchPreview',
  'POST /org/{orgId}/cosell/referral/predict-quality-score',
  'POST /org/{orgId}/batchValidateUsageRecordGroups',
  'POST /org/{orgId}/knowledge/search',
  'POST /org/{orgId}/v2/operation/list',
]);

export function retryPolicyFor(operation: Pick<Operation, 'method' | 'path'>): RetryPolicy {
  const key = `${operation.method} ${operation.path}`;
  if (operation.method === 'GET' || operation.method === 'PATCH' || operation.method === 'DELETE') return { kind: 'idempotent' };
  if (READ_ONLY_POSTS.has(key)) return { kind: 'idempotent' };
  // 50 s, not 60: leave room for the request itself inside the service's window.
  if (key === OFFER_CREATE) return { kind: 'dedup-window', windowMs: 50_000 };
  if (key === USAGE_RECORD_GROUP || key === BATCH_USAGE_RECORD_GROUPS) return { kind: 'dedup-window', windowMs: 14 * 24 * 3600_000 };
  return { kind: 'unsafe' };
}
