// Which API a request went to, from its path alone (the metrics count calls by target), and how long a
// Retry-After asks to wait.
import { describe, expect, it } from 'vitest';
import { apiTarget, retryAfterSeconds } from '../../metrics/api-calls.ts';

describe('apiTarget', () => {
  it('knows each API by the shape of its paths', () => {
    expect(apiTarget('/services/data/v62.0/composite/sobjects')).toBe('salesforce');
    expect(apiTarget('/services/oauth2/token')).toBe('salesforce');
    expect(apiTarget('/api/data/v9.2/$batch')).toBe('dynamics');
    expect(apiTarget('/5f1c2a1e-0000-4000-8000-000000000001/oauth2/v2.0/token')).toBe('dynamics');
    expect(apiTarget('/crm/v3/objects/deals/batch/upsert')).toBe('hubspot');
    expect(apiTarget('/oauth/v1/token')).toBe('hubspot');
    expect(apiTarget('/account-info/v3/details')).toBe('hubspot');
    expect(apiTarget('/org/org-123/offer/query?q=x')).toBe('commerce');
    expect(apiTarget('/v1/org/org-123/buyer')).toBe('commerce');
    expect(apiTarget('/oauth2/token')).toBe('commerce');
  });

  it('leaves out what is not an API call of the sync', () => {
    expect(apiTarget('/_sandbox/calls')).toBeUndefined();
    expect(apiTarget('/metrics')).toBeUndefined();
    expect(apiTarget('/')).toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Wed, 25 Nov 2026 12:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});
