// Typed errors of the commerce client. Each names the operation and keeps what the service said, so a
// revenue-ops person reads "offer o-1 not found (GET /org/{orgId}/offer/{offerId}, HTTP 404)".

export class CommerceError extends Error {
  override name = 'CommerceError';
}

export class CommerceApiError extends CommerceError {
  override name = 'CommerceApiError';
  readonly status: number;
  readonly operation: string;
  /** The parsed body (an object or, as §7.1 allows, a plain string), or the raw text if it was not JSON. */
  readonly body: unknown;
  readonly retryAfterMs?: number;

  constructor(input: { status: number; operation: string; body: unknown; retryAfterMs?: number }) {
    super(`${describeBody(input.body) || `HTTP ${input.status}`} (${input.operation}, HTTP ${input.status})`);
    this.status = input.status;
    this.operation = input.operation;
    this.body = input.body;
    this.retryAfterMs = input.retryAfterMs;
  }

  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** Credentials refused by the token endpoint, or a token refused twice: not worth retrying. */
export class CommerceAuthError extends CommerceError {
  override name = 'CommerceAuthError';
  readonly status?: number;
  readonly body?: unknown;
  constructor(message: string, details: { status?: number; body?: unknown } = {}) {
    super(message);
    this.status = details.status;
    this.body = details.body;
  }
}

/** The token endpoint refused the client credentials themselves: only new secrets will help. */
export class CommerceCredentialsRefusedError extends CommerceAuthError {
  override name = 'CommerceCredentialsRefused';
}

/** The request may not have reached the service (connection refused, reset, timeout). */
export class CommerceNetworkError extends CommerceError {
  override name = 'CommerceNetworkError';
  readonly operation: string;
  /** True when the request may have been processed (it was sent); false when it surely was not. */
  readonly mayHaveBeenProcessed: boolean;
  constructor(operation: string, cause: unknown, mayHaveBeenProcessed: boolean) {
    super(`Could not reach the commerce API (${operation}): ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.operation = operation;
    this.mayHaveBeenProcessed = mayHaveBeenProcessed;
  }
}

/** A 2xx answer whose body is not the JSON it should be (malformed or cut short). */
export class CommerceResponseError extends CommerceError {
  override name = 'CommerceResponseError';
  readonly operation: string;
  constructor(operation: string, detail: string) {
    super(`The commerce API sent an unreadable answer to ${operation}: ${detail}`);
    this.operation = operation;
  }
}

/** A record that lacks what the worker depends on (id, lastUpdateTime): kept with this reason, never synced blind. */
export class CommerceRecordError extends CommerceError {
  override name = 'CommerceRecordError';
  readonly resource: string;
  readonly recordId?: string;
  readonly problems: string[];
  constructor(resource: string, recordId: string | undefined, problems: string[]) {
    super(`${resource} ${recordId ?? '(no id)'} is unusable: ${problems.join('; ')}`);
    this.resource = resource;
    this.recordId = recordId;
    this.problems = problems;
  }
}

/** The message a person should read from an error body of any of the shapes in the assumptions (A2). */
export function describeBody(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const fields = body as Record<string, unknown>;
    for (const key of ['message', 'error_description', 'error']) {
      if (typeof fields[key] === 'string' && fields[key]) return fields[key] as string;
    }
    return JSON.stringify(body);
  }
  return body === undefined || body === null ? '' : String(body);
}
