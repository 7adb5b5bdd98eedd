// A test control for the token endpoint: while set, every token request (any grant, any credentials)
// is refused with the given OAuth error, as Salesforce refuses an inactive user or org, a connected
// app no longer allowed to use a grant, or a revoked client, whatever the request holds.

export type TokenRefusal = { status: number; error: string; error_description: string };

/** What Salesforce says for the refusals it documents [doc/inf]; a test may give its own description. */
const DESCRIPTIONS: Record<string, string> = {
  inactive_user: 'user is inactive',
  inactive_org: 'organization is locked, closed, or suspended',
  unauthorized_client: 'client is not authorized to use this grant type',
  invalid_client_id: 'client identifier invalid',
  invalid_client: 'invalid client credentials',
  invalid_grant: 'authentication failure',
  rate_limit_exceeded: 'login rate exceeded',
  unsupported_grant_type: 'grant type not supported',
};

export function createTokenRefusal() {
  let current: TokenRefusal | undefined;
  return {
    current: () => current,
    /** Throws a message naming what is wrong with `input`. */
    set(input: Record<string, unknown>): TokenRefusal {
      const { error, error_description: description, status = 400 } = input;
      if (typeof error !== 'string' || !/^[a-z_]+$/.test(error)) throw new Error('error must be an OAuth error code such as inactive_user');
      if (description !== undefined && typeof description !== 'string') throw new Error('error_description must be text');
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) throw new Error('status must be an HTTP error status (400-599)');
      current = { status, error, error_description: description ?? DESCRIPTIONS[error] ?? error.replaceAll('_', ' ') };
      return current;
    },
    clear() {
      current = undefined;
    },
  };
}

export type TokenRefusals = ReturnType<typeof createTokenRefusal>;
