// Salesforce's answers, translated for the sync: per-record errors keep Salesforce's own code and
// message; call-level errors become CrmError (retryable or not) or a parked budget.
import { CrmBudgetExhaustedError, CrmError, type CrmRecordError } from '../connector.ts';

type SalesforceRecordErrors = { statusCode?: string; errorCode?: string; message?: string; fields?: string[] }[];

export function recordError(errors: SalesforceRecordErrors | undefined): CrmRecordError {
  const first = errors?.[0];
  return {
    code: first?.statusCode ?? first?.errorCode ?? 'UNKNOWN_ERROR',
    message: errors?.map((error) => error.message).filter(Boolean).join('; ') || 'Salesforce rejected the record without a message',
    fields: first?.fields?.length ? first.fields : undefined,
  };
}

/** Bulk API 2.0 failures read "CODE:message:fields --". */
export function bulkRecordError(text: string): CrmRecordError {
  const match = /^([A-Z_]+):(.*?)(?::([^:]*) --)?$/s.exec(text.trim());
  if (!match) return { code: 'UNKNOWN_ERROR', message: text };
  const fields = match[3]?.split(',').map((field) => field.trim()).filter(Boolean);
  return { code: match[1]!, message: match[2]!.trim(), fields: fields?.length ? fields : undefined };
}

export function callError(error: unknown, parkSeconds: number, now = new Date()): Error {
  const code = (error as { errorCode?: string; name?: string }).errorCode ?? (error as { name?: string }).name ?? 'UNKNOWN';
  const message = (error as Error).message ?? String(error);
  // The same code names two things: the daily budget ("TotalRequests Limit exceeded.", parks the
  // connection) and a short-lived concurrency limit (retry after a moment).
  if (code === 'REQUEST_LIMIT_EXCEEDED' && !/TotalRequests/i.test(message)) {
    return new CrmError(`Salesforce is busy (${message}); retrying shortly`, { code, retryable: true, retryAfterMs: 1000, cause: error });
  }
  if (code === 'REQUEST_LIMIT_EXCEEDED') {
    return new CrmBudgetExhaustedError(`Salesforce's daily API limit is used up (${message}); syncing waits until it resets`, new Date(now.getTime() + parkSeconds * 1000), error);
  }
  if (code === 'invalid_grant' || code === 'invalid_client') {
    return new CrmError(`Salesforce no longer accepts this connection's credentials: ${message}`, { code, retryable: false, cause: error });
  }
  // jsforce already renewed the session once; a session that died again at once is worth a later attempt.
  if (code === 'INVALID_SESSION_ID') return new CrmError(`Salesforce ended the session: ${message}`, { code, retryable: true, retryAfterMs: 1000, cause: error });
  const status = (error as { statusCode?: number }).statusCode;
  const retryable = status === undefined || status >= 500 || status === 429 || /ECONNRESET|ECONNREFUSED|ETIMEDOUT|socket hang up/i.test(message);
  return new CrmError(`Salesforce: ${message}`, { code, retryable, cause: error });
}
