// Error replies (§7, A2). Bodies are JSON; 404s are plain JSON strings and every other error is an
// object {code, message, ...}, so a client has to cope with both forms that §7.1 allows.

export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? status));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const notFound = (message: string) => new HttpError(404, message);

export const badRequest = (message: string, extra: Record<string, unknown> = {}) =>
  new HttpError(400, { code: 'INVALID_ARGUMENT', message, ...extra });

export const failedPrecondition = (message: string, status: string) =>
  new HttpError(409, { code: 'FAILED_PRECONDITION', message, status });

export const unauthenticated = (message: string) =>
  new HttpError(401, { code: 'UNAUTHENTICATED', message }, { 'www-authenticate': 'Bearer error="invalid_token"' });

export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]) =>
  new HttpError(405, { code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, allowed }, { allow: allowed.join(', ') });

export const notImplemented = (operationKey: string) =>
  new HttpError(501, { code: 'NOT_IMPLEMENTED', message: `${operationKey} is not implemented by the sandbox`, operation: operationKey });
