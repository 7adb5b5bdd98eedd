// Salesforce's answers, translated for the sync: per-record errors keep Salesforce's own code and
// message; call-level errors become CrmError (retryable or not) or a parked budget.
import { CrmBudgetExhaustedError, CrmCredentialsRefusedError, CrmError, type CrmRecordError } from '../connector.ts';
import { explainCurrencyRefusal } from './currency-refusal.ts';
import { SalesforceRequestTimeoutError } from './transport.ts';

type SalesforceRecordErrors = { statusCode?: string; errorCode?: string; message?: string; fields?: string[] }[];

export function recordError(errors: SalesforceRecordErrors | undefined): CrmRecordError {
  const first = errors?.[0];
  return explainCurrencyRefusal({
    code: first?.statusCode ?? first?.errorCode ?? 'UNKNOWN_ERROR',
    message: errors?.map((error) => error.message).filter(Boolean).join('; ') || 'Salesforce rejected the record without a message',
    fields: first?.fields?.length ? first.fields : undefined,
  });
}

/** Bulk API 2.0 failures read "CODE:message:fields --". */
export function bulkRecordError(text: string): CrmRecordError {
  const match = /^([A-Z_]+):(.*?)(?::([^:]*) --)?$/s.exec(text.trim());
  if (!match) return { code: 'UNKNOWN_ERROR', message: text };
  const fields = match[3]?.split(',').map((field) => field.trim()).filter(Boolean);
  return explainCurrencyRefusal({ code: match[1]!, message: match[2]!.trim(), fields: fields?.length ? fields : undefined });
}

/**
 * The token endpoint's OAuth errors that mean the credentials themselves were refused: only a person
 * can help (new secrets, a reactivated user or org, the connected app's policies). Anything else from
 * it (a 5xx, `rate_limit_exceeded`, a timeout) is worth another attempt.
 */
const CREDENTIALS_REFUSED = new Map([
  ['invalid_client_id', "Salesforce does not know this client id (the connected app's consumer key)"],
  ['invalid_client', "the client secret (the connected app's consumer secret) is wrong or was rotated"],
  ['invalid_grant', 'the refresh token was revoked or expired, or the sign-in itself was refused'],
  ['unauthorized_client', 'the connected app is not allowed to use this sign-in flow (check its OAuth policies and run-as user)'],
  ['inactive_user', 'the Salesforce user this connection signs in as is inactive'],
  ['inactive_org', 'the Salesforce org is locked, closed or suspended'],
]);

/** Where and how the connection signed in, when known (a renewal inside jsforce does not say). */
export type SignIn = { loginUrl?: string; flow?: 'client_credentials' | 'refresh_token' };

/**
 * A refusal of the credentials by the token endpoint, or undefined for any other failure. `code` is
 * Salesforce's OAuth `error`, `description` its `error_description`; the client secret never appears.
 */
export function credentialsRefusal(code: string, description: string, clientId: string | undefined, cause?: unknown, signIn: SignIn = {}): CrmCredentialsRefusedError | undefined {
  const client = clientId ? ` (client id ${clientId})` : '';
  const setup = signInSetupRefusal(code, description, client, signIn);
  if (setup) return new CrmCredentialsRefusedError(setup, code, cause);
  const meaning = signIn.flow === 'client_credentials' && code === 'invalid_grant' ? CLIENT_CREDENTIALS_GRANT_REFUSED : CREDENTIALS_REFUSED.get(code);
  if (!meaning) return undefined;
  return new CrmCredentialsRefusedError(
    `Salesforce refused the connection's credentials${client}: ${meaning}. Salesforce said: ${code}: ${description}. Save working credentials with crm-sync edit.`,
    code,
    cause,
  );
}

// The client credentials flow has no refresh token to call revoked: its invalid_grant is the run-as user or scopes.
const CLIENT_CREDENTIALS_GRANT_REFUSED = "the client credentials sign-in was refused (check the connected app's Run As user, and that its OAuth scopes include api)";

/**
 * Refusals no new secret can cure, only the connection's login URL or the connected app's settings
 * (docs/crm-wire-behaviour.md, "Sign-in refusals"): the whole message, or undefined.
 */
function signInSetupRefusal(code: string, description: string, client: string, signIn: SignIn): string | undefined {
  const said = `Salesforce said: ${code}: ${description}.`;
  if (code === 'invalid_grant' && /request not supported on this domain/i.test(description)) {
    const host = signIn.loginUrl ? hostOf(signIn.loginUrl) : "the connection's login URL";
    return (
      `Salesforce refused the client credentials flow on ${host}${client}: use your org's My Domain login URL ` +
      `(https://<your domain>.my.salesforce.com, or https://<your domain>--<sandbox>.sandbox.my.salesforce.com; Setup > My Domain shows it) ` +
      `as the connection's login URL: crm-sync connect again with the same --name and --salesforce-login-url set to it. ${said}`
    );
  }
  if (code === 'unsupported_grant_type') {
    const flow = signIn.flow === 'client_credentials' ? 'the client credentials flow' : signIn.flow === 'refresh_token' ? 'the refresh token flow' : 'this sign-in flow';
    const enable =
      signIn.flow === 'refresh_token'
        ? 'allow the refresh token flow there (the OAuth scope "Perform requests at any time (refresh_token, offline_access)")'
        : signIn.flow === 'client_credentials'
          ? 'tick "Enable Client Credentials Flow" there and choose its Run As user'
          : 'enable the flow there ("Enable Client Credentials Flow" with a Run As user, or the refresh_token scope)';
    return (
      `Salesforce refused ${flow}${client}: the connected app (or External Client App) does not allow it. In Setup, open the app's OAuth settings and ` +
      `${enable}, then check with crm-sync doctor. ${said}`
    );
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * Our session refresh function hands jsforce an error whose message is `code: description`; jsforce
 * replaces it with `Unable to refresh session due to: <that message>`, so this is where the code is.
 */
const REFRESH_FAILED = /^Unable to refresh session due to: (\w+): (.*)$/s;

export function callError(error: unknown, parkSeconds: number, now = new Date(), clientId?: string): Error {
  if (error instanceof SalesforceRequestTimeoutError) {
    return new CrmError(`${error.message}; retrying`, { code: 'REQUEST_TIMEOUT', retryable: true, retryAfterMs: 1000, cause: error });
  }
  const code = (error as { errorCode?: string; name?: string }).errorCode ?? (error as { name?: string }).name ?? 'UNKNOWN';
  const message = (error as Error).message ?? String(error);
  const refresh = REFRESH_FAILED.exec(message);
  if (refresh) {
    const refused = credentialsRefusal(refresh[1]!, refresh[2]!, clientId, error);
    if (refused) return refused;
    return new CrmError(`Salesforce's login did not answer properly while renewing the session (${refresh[1]}: ${refresh[2]}); retrying`, {
      code: 'LOGIN_UNAVAILABLE',
      retryable: true,
      retryAfterMs: 1000,
      cause: error,
    });
  }
  // The same code names two things: the daily budget ("TotalRequests Limit exceeded.", parks the
  // connection) and a short-lived concurrency limit (retry after a moment).
  if (code === 'REQUEST_LIMIT_EXCEEDED' && !/TotalRequests/i.test(message)) {
    return new CrmError(`Salesforce is busy (${message}); retrying shortly`, { code, retryable: true, retryAfterMs: 1000, cause: error });
  }
  if (code === 'REQUEST_LIMIT_EXCEEDED') {
    return new CrmBudgetExhaustedError(`Salesforce's daily API limit is used up (${message}); syncing waits until it resets`, new Date(now.getTime() + parkSeconds * 1000), error);
  }
  const refused = credentialsRefusal(code, message, clientId, error);
  if (refused) return refused;
  // jsforce already renewed the session once; a session that died again at once is worth a later attempt.
  if (code === 'INVALID_SESSION_ID') return new CrmError(`Salesforce ended the session: ${message}`, { code, retryable: true, retryAfterMs: 1000, cause: error });
  const status = (error as { statusCode?: number }).statusCode;
  const retryable = status === undefined || status >= 500 || status === 429 || /ECONNRESET|ECONNREFUSED|ETIMEDOUT|socket hang up/i.test(message);
  return new CrmError(`Salesforce: ${message}`, { code, retryable, cause: error });
}

/**
 * A failure around a Bulk API 2.0 job that exists in Salesforce (its poll ran out of time, the activity
 * was cancelled while it ran, its upload broke off): `bulkJobId` lets the next attempt resume that job
 * (UpsertOptions.bulkJob.resumeId) instead of uploading the records a second time.
 */
export class SalesforceBulkJobError extends CrmError {
  override name = 'SalesforceBulkJobError';
  readonly bulkJobId: string;
  constructor(message: string, bulkJobId: string, details: { code: string; retryable: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(message, details);
    this.bulkJobId = bulkJobId;
  }
}

/**
 * The same failure, now naming the job it happened to: its class is kept (a spent budget still parks,
 * refused credentials still need new ones), `bulkJobId` is added.
 */
export function withBulkJobId(error: unknown, bulkJobId: string): CrmError & { bulkJobId: string } {
  const crm = error instanceof CrmError ? error : new CrmError(`Salesforce: ${(error as Error).message ?? String(error)}`, { code: 'UNKNOWN', retryable: true, cause: error });
  if (crm instanceof SalesforceBulkJobError) return crm;
  return Object.assign(crm, { bulkJobId });
}

/** The caller's signal ended the call (the activity was cancelled or timed out): nothing more is sent. */
export function cancelledError(bulkJobId?: string): CrmError {
  const message = bulkJobId
    ? `Stopped waiting for Salesforce Bulk API job ${bulkJobId}: the sync step was cancelled; a retry picks the job up without uploading again`
    : 'Stopped writing to Salesforce: the sync step was cancelled before the next call';
  const details = { code: 'CANCELLED', retryable: true };
  return bulkJobId ? new SalesforceBulkJobError(message, bulkJobId, details) : new CrmError(message, details);
}

/** The per-record result for a record of a job that ended Failed or Aborted without saving it. */
export function bulkJobFailure(jobId: string, state: string, errorMessage: string | undefined): CrmRecordError {
  const why = errorMessage ? ` Salesforce said: ${errorMessage}` : '';
  const what = state === 'Aborted' ? 'was aborted (in Setup or by Salesforce) before it saved this record' : 'failed before it saved this record';
  return { code: 'BULK_JOB_FAILED', message: `Salesforce's Bulk API job ${jobId} ${what}.${why} The record is kept and retried later.` };
}
