// How the connector reads jsforce's failures (errors.ts): which mean refused credentials, which are
// worth another attempt, and what each says.
import { describe, expect, it } from 'vitest';
import { CrmBudgetExhaustedError, CrmCredentialsRefusedError, CrmError } from '../../crm/connector.ts';
import { callError } from '../../crm/salesforce/errors.ts';
import { SalesforceRequestTimeoutError } from '../../crm/salesforce/transport.ts';

const named = (name: string, message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { name, ...extra });
const now = new Date('2026-05-04T10:00:00Z');

describe('Salesforce call errors', () => {
  it("reads the OAuth code our refresh function leaves in jsforce's message", () => {
    const refused = callError(new Error('Unable to refresh session due to: inactive_org: organization is locked'), 3600, now, 'client-1');
    expect(refused).toBeInstanceOf(CrmCredentialsRefusedError);
    expect(refused).toMatchObject({ code: 'inactive_org', retryable: false });
    expect(refused.message).toBe(
      "Salesforce refused the connection's credentials (client id client-1): the Salesforce org is locked, closed or suspended. Salesforce said: inactive_org: organization is locked. Save working credentials with crm-sync edit.",
    );
    for (const passing of ['ERROR_HTTP_503: Service Unavailable', 'rate_limit_exceeded: login rate exceeded', 'timeout: Salesforce did not answer within 60 s (https://x/services/oauth2/token)']) {
      const error = callError(new Error(`Unable to refresh session due to: ${passing}`), 3600, now);
      expect(error).not.toBeInstanceOf(CrmCredentialsRefusedError);
      expect(error).toMatchObject({ code: 'LOGIN_UNAVAILABLE', retryable: true });
      expect(error.message).toContain(passing);
    }
  });

  it('does not take any other name for a refusal', () => {
    for (const name of ['constructor', 'toString', 'INVALID_SESSION_ID', 'Error']) {
      expect(callError(named(name, 'x'), 3600, now)).not.toBeInstanceOf(CrmCredentialsRefusedError);
    }
  });

  it('makes a request that got no answer in time a retryable REQUEST_TIMEOUT', () => {
    const error = callError(new SalesforceRequestTimeoutError(60_000, 'https://acme.my.salesforce.com/services/data/v62.0/query?q=SELECT', new Error('aborted')), 3600, now);
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', retryable: true, message: 'Salesforce did not answer within 60 s (https://acme.my.salesforce.com/services/data/v62.0/query); retrying' });
  });

  it('still tells the daily budget from a concurrency limit', () => {
    const spent = callError(named('Error', 'TotalRequests Limit exceeded.', { errorCode: 'REQUEST_LIMIT_EXCEEDED' }), 3600, now);
    expect(spent).toBeInstanceOf(CrmBudgetExhaustedError);
    expect((spent as CrmBudgetExhaustedError).resetsAt).toEqual(new Date('2026-05-04T11:00:00Z'));
    expect(callError(named('Error', 'ConcurrentPerOrgLongTxn Limit exceeded.', { errorCode: 'REQUEST_LIMIT_EXCEEDED' }), 3600, now)).toMatchObject({ retryable: true });
  });
});
