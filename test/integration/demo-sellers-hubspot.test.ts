// The demo's HubSpot sellers (cli/demo-sellers-hubspot.ts) against the HubSpot sandbox set up as `crm-sync
// setup` leaves it: each kind makes its seller's change through the API, read back here through the API.
// Expected values are written from the contract of issue #24 (property names, option values accept /
// reject, the default pipeline's stage ids closedwon / closedlost) and the records seeded below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySellerChange, sellerRandom, type SellerKind } from '../../cli/demo-sellers.ts';
import { hubSpotSeller } from '../../cli/demo-sellers-hubspot.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';

let hubspot: HubSpotSandbox;
const now = () => new Date('2026-06-01T10:00:00.000Z');
const DEFAULT_OPEN = ['appointmentscheduled', 'qualifiedtobuy', 'presentationscheduled', 'decisionmakerboughtin', 'contractsent'];
const READ = ['dealname', 'dealstage', 'pipeline', 'amount', 'closedate', 'cosell_share', 'cosell_partner', 'cosell_decision', 'cosell_decision_reason', 'closed_lost_reason', 'private_offer_requested', 'commerce_product_id'];

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${hubspot.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${hubspot.accessToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
const deal = async (id: string) => (await api('GET', `/crm/v3/objects/deals/${id}?properties=${READ.join(',')}`)).properties;
const companiesOf = async (id: string) => (await api('GET', `/crm/v4/objects/deals/${id}/associations/companies`)).results.map((r: any) => String(r.toObjectId));
async function makeDeal(properties: Record<string, string>, companyId?: string): Promise<string> {
  const made = await api('POST', '/crm/v3/objects/deals', { properties });
  if (companyId) await api('PUT', `/crm/v4/objects/deals/${made.id}/associations/default/companies/${companyId}`);
  return made.id;
}
const seller = () => hubSpotSeller({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
const move = (kind: SellerKind, random = sellerRandom(11, 'hubspot')) => applySellerChange(seller(), random, { kinds: [kind], now });

let acme: string;
let noBuyer: string;
let referralPipeline: { id: string; stages: { id: string; label: string }[] };

beforeAll(async () => {
  hubspot = await startHubSpotSandbox({ now, tenSecondlyLimit: 1_000_000 });
  const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
  expect(report.problems).toEqual([]);
  referralPipeline = (await api('GET', '/crm/v3/pipelines/deals')).results.find((p: any) => p.label === 'Co-sell referrals');
  acme = (await api('POST', '/crm/v3/objects/companies', { properties: { name: 'Acme', commerce_buyer_id: 'b-1', marketplace: 'Marketplace C' } })).id;
  noBuyer = (await api('POST', '/crm/v3/objects/companies', { properties: { name: 'No Buyer' } })).id;
  await api('POST', '/crm/v3/objects/companies', { properties: { name: 'Gone', commerce_buyer_id: 'b-3', marketplace_status: 'Deleted' } });
});
afterAll(() => hubspot?.stop());

describe('demo sellers in HubSpot', () => {
  it('finds nothing to do in an empty account, without an error', async () => {
    for (const kind of ['stageMove', 'shareExisting', 'inboundDecision', 'closeDeal', 'draftRequest'] as const) expect(await move(kind)).toBeUndefined();
  });

  it('newShared opens a deal in the default pipeline on the buyer\'s company, shared with its marketplace', async () => {
    const change = await move('newShared');
    expect(change).toMatchObject({ crm: 'hubspot', kind: 'newShared', summary: 'new shared deal on b-1 with Marketplace C' });
    const made = await deal(change!.id);
    expect(made).toMatchObject({ pipeline: 'default', cosell_share: 'true', cosell_partner: 'Marketplace C' });
    expect(DEFAULT_OPEN.slice(0, 3)).toContain(made.dealstage);
    expect(made.dealname).toMatch(/^Acme co-sell [A-Z0-9]{4}$/);
    expect(Number(made.amount)).toBeGreaterThanOrEqual(5000);
    expect(await companiesOf(change!.id)).toEqual([acme]);
  });

  it('shareExisting shares a seller\'s own deal with its company\'s marketplace, never a partner\'s referral', async () => {
    const own = await makeDeal({ dealname: 'Own', pipeline: 'default', dealstage: 'qualifiedtobuy' }, acme);
    const inbound = await makeDeal({ dealname: 'From partner', pipeline: referralPipeline.id, dealstage: referralPipeline.stages[0]!.id, commerce_referral_id: 'ref-x', referral_direction: 'INBOUND', cosell_status: 'ACCEPTED', cosell_partner: 'Marketplace B' }, acme);
    const change = await move('shareExisting');
    expect(change).toMatchObject({ id: own, summary: 'shared with Marketplace C' });
    expect(await deal(own)).toMatchObject({ cosell_share: 'true', cosell_partner: 'Marketplace C' });
    expect(await move('shareExisting')).toBeUndefined();
    expect((await deal(inbound)).cosell_share ?? null).toBeNull(); // HubSpot leaves an unset property out
  });

  it('inboundDecision decides each waiting inbound referral once: accept, or reject with a seller\'s reason', async () => {
    const inbound: string[] = [];
    for (let i = 0; i < 12; i++) {
      inbound.push(await makeDeal({ dealname: `Partner deal ${i}`, pipeline: referralPipeline.id, dealstage: referralPipeline.stages[0]!.id, commerce_referral_id: `ref-in-${i}`, referral_direction: 'INBOUND', cosell_status: 'SUBMITTED', cosell_partner: 'Marketplace A' }, i % 2 ? acme : noBuyer));
    }
    const random = sellerRandom(3, 'hubspot');
    const decided: string[] = [];
    for (let i = 0; i < 12; i++) decided.push((await move('inboundDecision', random))!.id);
    expect(decided.sort()).toEqual([...inbound].sort());
    expect(await move('inboundDecision', random)).toBeUndefined();
    const read = await Promise.all(inbound.map(deal));
    for (const d of read) {
      expect(['accept', 'reject']).toContain(d.cosell_decision);
      if (d.cosell_decision === 'accept') expect(d.cosell_decision_reason ?? null).toBeNull();
      else expect(d.cosell_decision_reason).toMatch(/\w.{10,}/);
    }
    const accepted = read.filter((d) => d.cosell_decision === 'accept').length;
    expect(accepted).toBeGreaterThanOrEqual(7);
    expect(accepted).toBeLessThan(12);
  });

  it('closeDeal closes a shared deal the partner accepted in Closed Won, or Closed Lost with a loss reason', async () => {
    const outcomes: Record<string, string[]> = { closedwon: [], closedlost: [] };
    const random = sellerRandom(5, 'hubspot');
    for (let i = 0; i < 8; i++) {
      const id = await makeDeal({ dealname: `Accepted ${i}`, pipeline: 'default', dealstage: 'contractsent', cosell_share: 'true', cosell_partner: 'Marketplace C', cosell_status: 'ACCEPTED' }, acme);
      const change = await move('closeDeal', random);
      expect(change!.id).toBe(id); // the accepted one before the other shared deals (one open from newShared)
      const closed = await deal(id);
      outcomes[closed.dealstage]!.push(id);
      if (closed.dealstage === 'closedlost') expect(closed.closed_lost_reason).toMatch(/\w.{10,}/);
      else expect(closed.closed_lost_reason ?? null).toBeNull();
    }
    expect(outcomes.closedwon!.length + outcomes.closedlost!.length).toBe(8);
    expect(outcomes.closedwon!.length).toBeGreaterThan(0);
    expect(outcomes.closedlost!.length).toBeGreaterThan(0);
  });

  it('stageMove moves an open deal one stage on in its pipeline (or closes it from the last)', async () => {
    const random = sellerRandom(8, 'hubspot');
    const before = new Map<string, string>();
    for (const id of (await api('GET', '/crm/v3/objects/deals?limit=100&properties=dealstage')).results.map((d: any) => d.id)) before.set(id, (await deal(id)).dealstage);
    for (let i = 0; i < 6; i++) {
      const change = (await move('stageMove', random))!;
      const was = before.get(change.id)!;
      const now = (await deal(change.id)).dealstage;
      const order = (await deal(change.id)).pipeline === 'default' ? DEFAULT_OPEN : referralPipeline.stages.slice(0, 5).map((s) => s.id);
      const next = order[order.indexOf(was) + 1];
      expect(now === next || ['closedwon', 'closedlost'].includes(now) || referralPipeline.stages.slice(5).map((s) => s.id).includes(now)).toBe(true);
      before.set(change.id, now);
    }
  });

  it('draftRequest asks for a private-offer draft of a default product on a buyer\'s open deal', async () => {
    const change = (await move('draftRequest'))!;
    const asked = await deal(change.id);
    expect(asked.private_offer_requested).toBe('true');
    expect(asked.commerce_product_id).toMatch(/^prod-00000[1-8]$/);
    expect(change.summary).toBe(`private offer draft requested for ${asked.commerce_product_id}`);
    expect(await companiesOf(change.id)).toEqual([acme]);
  });
});

describe('demo sellers in HubSpot: a private offer from products (issue #28 acceptance)', () => {
  /** The catalogue's products as the catalogue sync leaves them (commerce_price_key "productId|dimensionKey"), and one of the seller's own. */
  const catalogue: Record<string, { productId: string; key: string; price: number }> = {};
  let asking: string;

  beforeAll(async () => {
    const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken }, { catalogue: true });
    expect(report.problems).toEqual([]);
    for (const [name, productId, key, price] of [[`Seats "annual" \\ 日本`, 'prod-000001', 'seats', 120], ["O'Brien's CPU hours", 'prod-000001', 'cpu_hours', 0.5], ['Atlas Search: queries', 'prod-000002', 'queries', 2]] as const) {
      const made = await api('POST', '/crm/v3/objects/products', { properties: { name, price: String(price), commerce_product_id: productId, commerce_dimension_key: key, commerce_price_key: `${productId}|${key}` } });
      catalogue[made.id] = { productId, key, price };
    }
    await api('POST', '/crm/v3/objects/products', { properties: { name: 'Onboarding workshop', price: '5000' } });
    asking = await makeDeal({ dealname: 'Acme offer', pipeline: 'default', dealstage: 'qualifiedtobuy', private_offer_requested: 'true', commerce_product_id: 'prod-000001' }, acme);
  });

  const lineItemsOf = async (dealId: string) => {
    const ids = (await api('GET', `/crm/v4/objects/deals/${dealId}/associations/line_items`)).results.map((r: any) => String(r.toObjectId));
    return Promise.all(ids.map(async (id: string) => (await api('GET', `/crm/v3/objects/line_items/${id}?properties=hs_product_id,quantity,price`)).properties));
  };

  it('addProducts adds line items of one marketplace product from the catalogue to each deal asking for an offer, once, and sets the deal amount to their total', async () => {
    const random = sellerRandom(21, 'hubspot');
    const requested = (await api('POST', '/crm/v3/objects/deals/search', { filterGroups: [{ filters: [{ propertyName: 'private_offer_requested', operator: 'EQ', value: 'true' }] }], limit: 100 })).results.map((d: any) => String(d.id));
    expect(requested).toContain(asking);
    const changed: string[] = [];
    for (let change = await move('addProducts', random); change; change = await move('addProducts', random)) changed.push(change.id);
    expect(changed.sort()).toEqual([...requested].sort());
    for (const id of requested) {
      const lines = await lineItemsOf(id);
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(2);
      const products = lines.map((line) => catalogue[line.hs_product_id]!);
      expect(products.every(Boolean)).toBe(true); // never the workshop outside the catalogue
      expect(new Set(products.map((product) => product.productId)).size).toBe(1);
      let total = 0;
      lines.forEach((line, i) => {
        const quantity = Number(line.quantity);
        expect(Number.isInteger(quantity) && quantity >= 1 && quantity <= 12).toBe(true);
        expect([products[i]!.price, Math.round(products[i]!.price * 90) / 100]).toContain(Number(line.price));
        total += quantity * Number(line.price);
      });
      expect(Number((await api('GET', `/crm/v3/objects/deals/${id}?properties=amount`)).properties.amount)).toBeCloseTo(total, 2);
    }
  });

  it('approveOffer approves, once, a deal whose offer was built from products and drafted, naming the approver', async () => {
    expect(await move('approveOffer')).toBeUndefined(); // no draft made yet
    await api('PATCH', `/crm/v3/objects/deals/${asking}`, { properties: { commerce_offer_id: "offer-'1' \\ 日本" } });
    const change = (await move('approveOffer'))!;
    expect(change).toMatchObject({ crm: 'hubspot', kind: 'approveOffer', id: asking });
    const approved = (await api('GET', `/crm/v3/objects/deals/${asking}?properties=offer_approval_status,offer_approved_by`)).properties;
    expect(approved.offer_approval_status).toBe('Approved');
    expect(['Zoë O\'Brien (Deal Desk)', 'Kenji Satō', 'Amara "Mara" Okafor', 'Łukasz Nowak', 'Inés García-Márquez']).toContain(approved.offer_approved_by);
    expect(change.summary).toBe(`private offer approved by ${approved.offer_approved_by}`);
    expect(await move('approveOffer')).toBeUndefined();
  });
});
