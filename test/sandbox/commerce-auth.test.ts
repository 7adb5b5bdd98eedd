// The token host and bearer checks of the commerce sandbox (§5, A1, A2), over plain HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const clock = manualClock();
let sandbox: CommerceSandbox;
let probe: SandboxProbe;

async function requestToken(fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded') {
  const body = contentType === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  const response = await fetch(`${sandbox.authUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const goodFields = () => ({ grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret, resource: sandbox.apiUrl });

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ entitlements: 20, tokenTtlSeconds: 120, now: clock.now, clientId: 'cid-1', clientSecret: 's3cret' });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());

describe('commerce sandbox: tokens', () => {
  it('issues an RFC 6749 bearer token for the configured client that the API accepts', async () => {
    const { status, body } = await requestToken(goodFields());
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 120 });
    expect(typeof body.access_token).toBe('string');
    const response = await probe.api('/org', { token: body.access_token as string });
    expect(response.status).toBe(200);
    expect(response.json).toEqual([{ id: 'org-1', name: expect.any(String) }]);
  });

  it('refuses a wrong secret or an unknown client with 401 invalid_client', async () => {
    expect(await requestToken({ ...goodFields(), client_secret: 'nope' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(await requestToken({ ...goodFields(), client_id: 'someone-else' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('refuses a resource other than the API base URL with invalid_target, and a missing one as invalid_request', async () => {
    expect(await requestToken({ ...goodFields(), resource: 'https://api.example.com' })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    expect(await requestToken({ ...goodFields(), resource: `${sandbox.apiUrl}/` })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const { resource: _, ...withoutResource } = goodFields();
    expect(await requestToken(withoutResource)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('refuses other grant types and bodies that are not form-encoded', async () => {
    expect(await requestToken({ ...goodFields(), grant_type: 'password' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    expect(await requestToken(goodFields(), 'application/json')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('answers 401 UNAUTHENTICATED without a token or with a made-up one', async () => {
    const missing = await probe.api('/org', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await probe.api('/org/org-1/offer', { token: 'sbx_forged' })).status).toBe(401);
  });

  it('expires a token after its lifetime on the sandbox clock', async () => {
    const token = await probe.token();
    clock.advance(119);
    expect((await probe.api('/org', { token })).status).toBe(200);
    clock.advance(1);
    const expired = await probe.api('/org', { token });
    expect(expired.status).toBe(401);
    expect(expired.json.message).toMatch(/expired/);
    expect((await probe.api('/org', { token: await probe.token() })).status).toBe(200);
  });

  it('invalidates every issued token on POST /_sandbox/tokens/expire', async () => {
    const first = await probe.token();
    const second = await probe.token();
    expect((await probe.control('POST', '/tokens/expire')).status).toBe(200);
    expect((await probe.api('/org', { token: first })).status).toBe(401);
    expect((await probe.api('/org', { token: second })).status).toBe(401);
    expect((await probe.api('/org', { token: await probe.token() })).status).toBe(200);
  });
});
