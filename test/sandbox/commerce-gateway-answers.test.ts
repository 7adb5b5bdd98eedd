// Gateway answers: a fault rule's `gateway` answers a call as a load balancer, proxy or firewall in front
// of the service would, with a 4xx or 5xx whose body is plain text, not the JSON of §7.1 (README
// "Gateway answers"): for named record ids (one record's path blocked), or a number of times (a
// hiccup a retry gets past). The handler does not run, so nothing is written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

let sandbox: CommerceSandbox;
let probe: SandboxProbe;

beforeAll(async () => {
  sandbox = await startCommerceSandbox({ seed: 9, entitlements: 40 });
  probe = probeSandbox(sandbox);
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await probe.control('DELETE', '/faults');
});

async function setRule(rule: Record<string, unknown>) {
  const response = await probe.control('POST', '/faults', rule);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

describe('commerce sandbox: gateway answers', () => {
  it('answers the calls naming an id in plain text, every time; the other records and operations are served', async () => {
    await setRule({ operation: '*', gateway: { status: 403, ids: ['offer-000009'], body: 'Request blocked by the web application firewall' } });
    for (const path of ['/org/org-1/offer/offer-000009', '/org/org-1/offer/offer-000009']) {
      const blocked = await probe.api(path);
      expect(blocked.status).toBe(403);
      expect(blocked.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(blocked.text).toBe('Request blocked by the web application firewall');
      expect(blocked.json).toBeUndefined(); // not JSON at all
    }
    expect((await probe.api('/org/org-1/offer/offer-000008')).json.id).toBe('offer-000008');
    expect((await probe.api('/org/org-1/offer/query', { query: { page_size: 5 } })).status).toBe(200);
  });

  it('answers a number of times with the default text of its status, then lets calls through; the count left is shown', async () => {
    await setRule({ operation: 'GET /org/{orgId}/contact/query', gateway: { status: 502, times: 2 } });
    const statuses: number[] = [];
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await probe.api('/org/org-1/contact/query', { query: { page_size: 5 } });
      statuses.push(response.status);
      texts.push(response.text);
    }
    expect(statuses).toEqual([502, 502, 200]);
    expect(texts.slice(0, 2)).toEqual(['502 Bad Gateway', '502 Bad Gateway']);
    expect(JSON.parse(texts[2]!).data).toHaveLength(5);
    expect((await probe.control('GET', '/faults')).json['GET /org/{orgId}/contact/query'].gateway).toMatchObject({ status: 502, times: 0 });
  });

  it('sends an HTML page as it is, and runs no handler: a blocked write writes nothing', async () => {
    const page = '<html><body><h1>504 Gateway Time-out</h1></body></html>';
    await setRule({ operation: 'PATCH /org/{orgId}/offer/{offerId}/metaInfo', gateway: { status: 504, contentType: 'text/html', body: page } });
    const before = (await probe.api('/org/org-1/offer/offer-000001')).json;
    const events = (await probe.records('notificationEvents')).length;
    const answer = await probe.api('/org/org-1/offer/offer-000001/metaInfo', { method: 'PATCH', body: { crmAOpportunityId: '006GATEWAY00000001' } });
    expect(answer.status).toBe(504);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toBe(page);
    expect((await probe.api('/org/org-1/offer/offer-000001')).json).toEqual(before);
    expect((await probe.records('notificationEvents')).length).toBe(events);
  });

  it('refuses a gateway that is not one, naming the field', async () => {
    for (const [gateway, field] of [
      [{ status: 302 }, 'gateway.status'],
      [{ status: 502, body: { message: 'json' } }, 'gateway.body'],
      [{ status: 502, contentType: 'application/json' }, 'gateway.contentType'],
      [{ status: 502, ids: [] }, 'gateway.ids'],
      [{ status: 502, times: 0 }, 'gateway.times'],
      [{ status: 502, after: 1 }, 'gateway.after'],
      ['502', 'gateway'],
    ] as const) {
      const response = await probe.control('POST', '/faults', { operation: '*', gateway });
      expect(response.status, JSON.stringify(gateway)).toBe(400);
      expect(response.json.message).toMatch(new RegExp(`^${field.replace('.', '\\.')} `));
    }
  });
});
