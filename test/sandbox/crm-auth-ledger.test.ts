// The CRM sandboxes' auth ledger (GET /_sandbox/auth) and id ranges, which a test of two orgs of one
// kind relies on. A 401 alone cannot say whether a request carried another org's token; the ledger
// can: token requests by the client id they named, granted or refused, and bearer tokens refused by
// why (none, one this sandbox never issued, an expired one). `idsAfter` gives a second org ids of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { control as salesforceControl } from '../../sandbox/salesforce/testing.ts';

const form = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const bearer = (url: string, token?: string, init: RequestInit = {}) => fetch(url, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', ...init.headers } });

describe('Salesforce sandbox: auth ledger and id range', () => {
  let org: SalesforceSandbox;
  let other: SalesforceSandbox;
  beforeAll(async () => {
    org = await startSalesforceSandbox();
    other = await startSalesforceSandbox({ clientId: 'other-client', clientSecret: 'other-secret', idsAfter: 5000 });
  });
  afterAll(async () => {
    await org?.stop();
    await other?.stop();
  });
  const token = async (sandbox: SalesforceSandbox, clientId: string, clientSecret: string) =>
    (await (await form(`${sandbox.loginUrl}/services/oauth2/token`, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).json()) as { access_token?: string };
  const accounts = (sandbox: SalesforceSandbox, token?: string) => bearer(`${sandbox.instanceUrl}/services/data/v62.0/sobjects/Account`, token, { method: 'POST', body: JSON.stringify({ Name: 'Acme' }) });

  it('counts token requests by client id and tells another org\'s token from an expired one and from none', async () => {
    const own = (await token(org, org.clientId, org.clientSecret)).access_token!;
    expect((await token(org, 'other-client', 'other-secret')).access_token).toBeUndefined();
    const foreign = (await token(other, 'other-client', 'other-secret')).access_token!;
    expect((await accounts(org, own)).status).toBe(201);
    expect((await accounts(org, foreign)).status).toBe(401);
    expect((await accounts(org)).status).toBe(401);
    await salesforceControl(org, 'POST', '/sessions/expire');
    expect((await accounts(org, own)).status).toBe(401);
    expect((await fetch(`${org.instanceUrl}/services/oauth2/userinfo`, { headers: { authorization: `Bearer ${foreign}` } })).status).toBe(403);

    expect(await salesforceControl(org, 'GET', '/auth')).toEqual({
      tokenRequests: { 'other-client': { granted: 0, refused: 1 }, 'sf-sandbox-client': { granted: 1, refused: 0 } },
      refusedBearer: { missing: 1, unknown: 2, expired: 1 },
    });
    expect((await salesforceControl(other, 'GET', '/auth')).tokenRequests).toEqual({ 'other-client': { granted: 1, refused: 0 } });
    await salesforceControl(org, 'POST', '/reset');
    expect(await salesforceControl(org, 'GET', '/auth')).toEqual({ tokenRequests: {}, refusedBearer: { missing: 0, unknown: 0, expired: 0 } });
  });

  it('issues ids after idsAfter: the two orgs\' ids differ', async () => {
    const own = (await token(org, org.clientId, org.clientSecret)).access_token!;
    const foreign = (await token(other, 'other-client', 'other-secret')).access_token!;
    const first = ((await (await accounts(org, own)).json()) as { id: string }).id;
    const second = ((await (await accounts(other, foreign)).json()) as { id: string }).id;
    // 5001 in base 62 is "1If" (1·62² + 18·62 + 41): the counter ends the 15-character id, before the checksum.
    expect(second.slice(0, 15)).toBe('001Sb00000001If');
    expect(first).not.toBe(second);
  });
});

describe('HubSpot sandbox: auth ledger and id range', () => {
  let portal: HubSpotSandbox;
  let other: HubSpotSandbox;
  beforeAll(async () => {
    portal = await startHubSpotSandbox();
    other = await startHubSpotSandbox({ idsAfter: 7000 });
  });
  afterAll(async () => {
    await portal?.stop();
    await other?.stop();
  });
  const refresh = async (sandbox: HubSpotSandbox, oauth = sandbox.oauth) =>
    (await (await form(`${sandbox.baseUrl}/oauth/v1/token`, { grant_type: 'refresh_token', client_id: oauth.clientId, client_secret: oauth.clientSecret, refresh_token: oauth.refreshToken })).json()) as { access_token?: string };
  const company = (sandbox: HubSpotSandbox, token?: string) => bearer(`${sandbox.baseUrl}/crm/v3/objects/companies`, token, { method: 'POST', body: JSON.stringify({ properties: { name: 'Acme' } }) });

  it('counts token requests by client id and tells another portal\'s token from an expired one and from none', async () => {
    const own = (await refresh(portal)).access_token!;
    expect((await refresh(portal, other.oauth)).access_token).toBeUndefined();
    const foreign = (await refresh(other)).access_token!;
    expect((await company(portal, own)).status).toBe(201);
    expect((await company(portal, foreign)).status).toBe(401);
    expect((await company(portal, other.accessToken)).status).toBe(401);
    expect((await company(portal)).status).toBe(401);
    await hubspotControl(portal, 'POST', '/tokens/expire');
    expect((await company(portal, own)).status).toBe(401);

    expect(await hubspotControl(portal, 'GET', '/auth')).toEqual({
      tokenRequests: { [other.oauth.clientId]: { granted: 0, refused: 1 }, [portal.oauth.clientId]: { granted: 1, refused: 0 } },
      refusedBearer: { missing: 1, unknown: 2, expired: 1 },
    });
  });

  it('issues record and pipeline ids after idsAfter', async () => {
    const made = (await (await company(other, other.accessToken)).json()) as { id: string };
    expect(Number(made.id)).toBeGreaterThan(7000);
    const pipeline = (await (await bearer(`${other.baseUrl}/crm/v3/pipelines/deals`, other.accessToken, {
      method: 'POST',
      body: JSON.stringify({ label: 'Marketplace offers', displayOrder: 1, stages: [{ label: 'Draft', displayOrder: 0, metadata: { probability: '0.1' } }] }),
    })).json()) as { id: string; stages: { id: string }[] };
    expect(Number(pipeline.id)).toBeGreaterThan(7000);
    expect(Number(pipeline.stages[0]!.id)).toBeGreaterThan(7000);
  });
});

describe('Dynamics sandbox: auth ledger', () => {
  let environment: DynamicsSandbox;
  let other: DynamicsSandbox;
  beforeAll(async () => {
    [environment, other] = await Promise.all([startDynamicsSandbox(), startDynamicsSandbox()]);
  });
  afterAll(async () => {
    await environment?.stop();
    await other?.stop();
  });
  const token = async (sandbox: DynamicsSandbox, clientId = sandbox.clientId, clientSecret = sandbox.clientSecret) =>
    (await (await form(sandbox.tokenUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: `${sandbox.orgUrl.replace(/\/$/, '')}/.default` })).json()) as { access_token?: string };
  const accounts = (sandbox: DynamicsSandbox, token?: string) => bearer(`${sandbox.orgUrl}api/data/v9.2/accounts`, token);

  it('counts token requests by client id and tells another environment\'s token from an expired one and from none', async () => {
    const own = (await token(environment)).access_token!;
    expect((await token(environment, other.clientId, other.clientSecret)).access_token).toBeUndefined();
    const foreign = (await token(other)).access_token!;
    expect((await accounts(environment, own)).status).toBe(200);
    expect((await accounts(environment, foreign)).status).toBe(401);
    expect((await accounts(environment)).status).toBe(401);
    await dynamicsControl(environment, 'POST', '/tokens/expire');
    expect((await accounts(environment, own)).status).toBe(401);

    expect(await dynamicsControl(environment, 'GET', '/auth')).toEqual({
      tokenRequests: { [environment.clientId]: { granted: 1, refused: 0 }, [other.clientId]: { granted: 0, refused: 1 } },
      refusedBearer: { missing: 1, unknown: 1, expired: 1 },
    });
  });
});
