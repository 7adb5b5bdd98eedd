// Refused writes: a fault rule that answers an operation with a 4xx and a body of the contract's error
// shape (§7.1: a JSON object or a plain JSON string), for named record ids or a fraction of calls,
// before the handler runs, so nothing is written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const OFFER_META = 'PATCH /org/{orgId}/offer/{offerId}/metaInfo';
const ENTITLEMENT_META = 'PATCH /org/{orgId}/entitlement/{entitlementId}/metaInfo';

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

const writeBack = (offerId: string, value: string) => probe.api(`/org/org-1/offer/${offerId}/metaInfo`, { method: 'PATCH', body: { crmAOpportunityId: value } });
const offer = async (id: string) => (await probe.api(`/org/org-1/offer/${id}`)).json;
const eventCount = async () => (await probe.records('notificationEvents')).length;

async function setRule(rule: Record<string, unknown>) {
  const response = await probe.control('POST', '/faults', rule);
  expect(response.status, response.text).toBe(200);
}

describe('commerce sandbox: refused writes', () => {
  it('refuses the write-back of named ids with a 409 and writes nothing; other records go through', async () => {
    await setRule({ operation: OFFER_META, status: 409, ids: ['offer-000001'] });
    const before = await offer('offer-000001');
    const events = await eventCount();
    const refused = await writeBack('offer-000001', '006REFUSED00000001');
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ code: 'FAILED_PRECONDITION', message: `${OFFER_META} was refused (sandbox fault)` });
    expect(await offer('offer-000001')).toEqual(before);
    expect(await eventCount()).toBe(events);

    const accepted = await writeBack('offer-000002', '006ACCEPTED0000002');
    expect(accepted.status).toBe(200);
    expect(accepted.json.metaInfo.crmAOpportunityId).toBe('006ACCEPTED0000002');
    expect((await probe.api('/org/org-1/offer/offer-000001')).status).toBe(200); // another operation
    // Refused calls are counted like every other call.
    expect((await probe.control('GET', '/calls')).json.operations[OFFER_META]).toBeGreaterThanOrEqual(2);
  });

  it('answers every call with the given status and body, an object or a plain JSON string', async () => {
    const body = { code: 'INVALID_ARGUMENT', message: 'metaInfo.crmAOpportunityId is not a valid record id', field: 'metaInfo.crmAOpportunityId' };
    await setRule({ operation: OFFER_META, rate4xx: 1, status: 400, body });
    for (const id of ['offer-000003', 'offer-000004']) {
      const response = await writeBack(id, 'bad');
      expect(response.status).toBe(400);
      expect(response.json).toEqual(body);
    }
    await setRule({ operation: ENTITLEMENT_META, status: 422, body: 'entitlement ent-000001 is locked by the marketplace' });
    const locked = await probe.api('/org/org-1/entitlement/ent-000001/metaInfo', { method: 'PATCH', body: { crmAOpportunityId: '006X' } });
    expect(locked.status).toBe(422);
    expect(locked.text).toBe('"entitlement ent-000001 is locked by the marketplace"');
  });

  it('refuses a seeded fraction of calls; each refused call leaves no change', async () => {
    const run = async () => {
      await probe.control('DELETE', '/faults');
      await setRule({ operation: OFFER_META, rate4xx: 0.5, status: 400 });
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await writeBack('offer-000005', `006FRACTION${String(i).padStart(7, '0')}`)).status);
      return statuses;
    };
    const events = await eventCount();
    const first = await run();
    expect(first).toContain(400);
    expect(first).toContain(200);
    expect(first.every((status) => status === 200 || status === 400)).toBe(true);
    expect(await eventCount()).toBe(events + first.filter((status) => status === 200).length);
    expect(await run()).toEqual(first);
  });

  it("with '*' and ids, refuses every operation naming those ids, reads included", async () => {
    await setRule({ operation: '*', status: 403, ids: ['offer-000006'] });
    const read = await probe.api('/org/org-1/offer/offer-000006');
    expect(read.status).toBe(403);
    expect(read.json).toEqual({ code: 'PERMISSION_DENIED', message: 'the call was refused (sandbox fault)' });
    expect((await probe.api('/org/org-1/offer/offer-000006', { method: 'DELETE' })).status).toBe(403);
    expect((await probe.api('/org/org-1/offer/offer-000007')).status).toBe(200);
  });

  it('refuses a rule that is not a 4xx of the contract shape, naming the field', async () => {
    for (const [rule, field] of [
      [{ operation: OFFER_META, status: 500 }, 'status'],
      [{ operation: OFFER_META, status: 429 }, 'status'],
      [{ operation: OFFER_META, ids: [] }, 'ids'],
      [{ operation: OFFER_META, ids: [7] }, 'ids'],
      [{ operation: OFFER_META, body: 5 }, 'body'],
      [{ operation: OFFER_META, rate4xx: 1.5 }, 'rate4xx'],
    ] as const) {
      const response = await probe.control('POST', '/faults', rule);
      expect(response.status, JSON.stringify(rule)).toBe(400);
      expect(response.json.message).toMatch(new RegExp(`^${field} `));
    }
  });
});
