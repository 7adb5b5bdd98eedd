// The demo's Dynamics sellers (cli/demo-sellers-dynamics.ts) against the Dataverse sandbox set up as
// `crm-sync setup` leaves it: each kind makes its seller's change through the Web API, read back here from
// the sandbox's rows. Expected values are written from the contract of issue #24 (ccs_coselldecision
// 100000000 Accept / 100000001 Reject) and Dataverse's documented states (Won 1 with status 3; Lost 2 with
// 4 Canceled or 5 Out-Sold, closed only by WinOpportunity / LoseOpportunity, each with an opportunityclose).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySellerChange, sellerRandom, type SellerKind } from '../../cli/demo-sellers.ts';
import { dynamicsSeller } from '../../cli/demo-sellers-dynamics.ts';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';

let dynamics: DynamicsSandbox;
const now = () => new Date('2026-06-01T10:00:00.000Z');
const OPEN_STEPS = ['0-Prospect', '1-Qualify', '2-Develop', '3-Propose', '4-Close'];
let token: string;

async function api(method: string, path: string, body?: unknown): Promise<string | null> {
  const response = await fetch(`${dynamics.orgUrl}api/data/v9.2/${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return /\(([0-9a-f-]{36})\)$/.exec(response.headers.get('OData-EntityId') ?? '')?.[1] ?? null;
}
const rows = async (table: string): Promise<any[]> => control(dynamics, 'GET', `/records/${table}`);
const row = async (id: string) => (await rows('opportunity')).find((r) => r.opportunityid === id);
const closesOf = async (id: string) => (await rows('opportunityclose')).filter((r) => r._opportunityid_value === id);
const makeOpportunity = async (columns: Record<string, unknown>, accountId?: string) => (await api('POST', 'opportunities', { ...columns, ...(accountId && { 'parentaccountid@odata.bind': `/accounts(${accountId})` }) }))!;
const seller = () => dynamicsSeller({ orgUrl: dynamics.orgUrl, tokenUrl: dynamics.tokenUrl, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret });
const move = (kind: SellerKind, random = sellerRandom(11, 'dynamics')) => applySellerChange(seller(), random, { kinds: [kind], now });

let acme: string;
let noBuyer: string;

beforeAll(async () => {
  dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, now, keyActivationMs: 50 }); // the catalogue's alternate keys active at once
  const setup = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: { authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` } });
  expect(setup.problems).toEqual([]);
  const tokenAnswer = await fetch(dynamics.tokenUrl, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: dynamics.clientId, client_secret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` }),
  });
  token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
  acme = (await api('POST', 'accounts', { name: 'Acme', ccs_commercebuyerid: 'b-1', ccs_marketplace: 'Marketplace C' }))!;
  noBuyer = (await api('POST', 'accounts', { name: 'No Buyer' }))!;
  await api('POST', 'accounts', { name: 'Gone', ccs_commercebuyerid: 'b-3', ccs_marketplacestatus: 'Deleted' });
});
afterAll(() => dynamics?.stop());

describe('demo sellers in Dynamics', () => {
  it('finds nothing to do in an empty environment, without an error', async () => {
    for (const kind of ['stageMove', 'shareExisting', 'inboundDecision', 'closeDeal', 'draftRequest'] as const) expect(await move(kind)).toBeUndefined();
  });

  it('newShared opens an opportunity on the buyer\'s account, shared with its marketplace', async () => {
    const change = (await move('newShared'))!;
    expect(change).toMatchObject({ crm: 'dynamics', kind: 'newShared', summary: 'new shared deal on b-1 with Marketplace C' });
    const made = await row(change.id);
    expect(made).toMatchObject({ _parentaccountid_value: acme, ccs_cosellshare: true, ccs_cosellpartner: 'Marketplace C', statecode: 0 });
    expect(OPEN_STEPS.slice(0, 3)).toContain(made.stepname);
    expect(made.name).toMatch(/^Acme co-sell [A-Z0-9]{4}$/);
    expect(Number(made.estimatedvalue)).toBeGreaterThanOrEqual(5000);
  });

  it('shareExisting shares a seller\'s own opportunity with its account\'s marketplace, never a partner\'s referral', async () => {
    const own = await makeOpportunity({ name: 'Own', stepname: '1-Qualify' }, acme);
    const inbound = await makeOpportunity({ name: 'From partner', stepname: '0-Prospect', ccs_commercereferralid: 'ref-x', ccs_referraldirection: 'INBOUND', ccs_cosellstatus: 'ACCEPTED', ccs_cosellpartner: 'Marketplace B' }, acme);
    expect(await move('shareExisting')).toMatchObject({ id: own, summary: 'shared with Marketplace C' });
    expect(await row(own)).toMatchObject({ ccs_cosellshare: true, ccs_cosellpartner: 'Marketplace C' });
    expect(await move('shareExisting')).toBeUndefined();
    expect((await row(inbound)).ccs_cosellshare ?? null).not.toBe(true);
  });

  it('inboundDecision decides each waiting inbound referral once: Accept, or Reject with a seller\'s reason', async () => {
    const inbound: string[] = [];
    for (let i = 0; i < 12; i++) inbound.push(await makeOpportunity({ name: `Partner deal ${i}`, stepname: '0-Prospect', ccs_commercereferralid: `ref-in-${i}`, ccs_referraldirection: 'INBOUND', ccs_cosellstatus: 'SUBMITTED', ccs_cosellpartner: 'Marketplace A' }, i % 2 ? acme : noBuyer));
    const random = sellerRandom(3, 'dynamics');
    const decided: string[] = [];
    for (let i = 0; i < 12; i++) decided.push((await move('inboundDecision', random))!.id);
    expect(decided.sort()).toEqual([...inbound].sort());
    expect(await move('inboundDecision', random)).toBeUndefined();
    const read = await Promise.all(inbound.map(row));
    for (const r of read) {
      expect([100000000, 100000001]).toContain(r.ccs_coselldecision);
      if (r.ccs_coselldecision === 100000000) expect(r.ccs_coselldecisionreason ?? null).toBeNull();
      else expect(r.ccs_coselldecisionreason).toMatch(/\w.{10,}/);
    }
    const accepted = read.filter((r) => r.ccs_coselldecision === 100000000).length;
    expect(accepted).toBeGreaterThanOrEqual(7);
    expect(accepted).toBeLessThan(12);
  });

  it('closeDeal closes a shared opportunity the partner accepted through WinOpportunity or LoseOpportunity, stepname unchanged', async () => {
    const random = sellerRandom(5, 'dynamics');
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const id = await makeOpportunity({ name: `Accepted ${i}`, stepname: '4-Close', ccs_cosellshare: true, ccs_cosellpartner: 'Marketplace C', ccs_cosellstatus: 'ACCEPTED' }, acme);
      expect((await move('closeDeal', random))!.id).toBe(id);
      const closed = await row(id);
      expect(closed.stepname).toBe('4-Close');
      const [activity, ...more] = await closesOf(id);
      expect(more).toEqual([]);
      expect(`${closed.statecode}/${closed.statuscode}`).toMatch(/^(1\/3|2\/4|2\/5)$/);
      seen.add(String(closed.statecode));
      if (closed.statecode === 2) expect(activity.description).toMatch(/\w.{10,}/);
    }
    expect(seen).toEqual(new Set(['1', '2']));
  });

  it('stageMove moves an open opportunity one phase on (or closes it from 4-Close)', async () => {
    const random = sellerRandom(8, 'dynamics');
    for (let i = 0; i < 6; i++) {
      const before = new Map((await rows('opportunity')).map((r) => [r.opportunityid, r]));
      const change = (await move('stageMove', random))!;
      const was = before.get(change.id);
      const after = await row(change.id);
      expect(was.statecode).toBe(0);
      if (after.statecode === 0) expect(after.stepname).toBe(OPEN_STEPS[OPEN_STEPS.indexOf(was.stepname) + 1]);
      else expect(after.stepname).toBe(was.stepname); // a close leaves the phase as it was
    }
  });

  it('draftRequest asks for a private-offer draft of a default product on a buyer\'s open opportunity', async () => {
    const change = (await move('draftRequest'))!;
    const asked = await row(change.id);
    expect(asked).toMatchObject({ ccs_privateofferrequested: true, _parentaccountid_value: acme, statecode: 0 });
    expect(asked.ccs_commerceproductid).toMatch(/^prod-00000[1-8]$/);
  });
});

describe('demo sellers in Dynamics: a private offer from products (issue #28 acceptance)', () => {
  /** The catalogue's products (ccs_commerceproductid, ccs_dimensionkey) and their list price on the price list. */
  const catalogue: Record<string, { productId: string; key: string; price: number }> = {};
  let priceList: string;
  let asking: string;

  beforeAll(async () => {
    const setup = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: { authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId, clientSecret: dynamics.clientSecret, scope: `${new URL(dynamics.orgUrl).origin}/.default` } }, undefined, { catalogue: { priceBook: 'Demo products' }, keyWaitMs: 10_000 });
    expect(setup.problems).toEqual([]);
    const ids = setup.catalogueIds!;
    priceList = Object.entries(ids).find(([name]) => name.startsWith('priceList:'))![1];
    let number = 0;
    const product = async (name: string, keys?: { productId: string; key: string; price: number }) => {
      const id = (await api('POST', 'products', { name, productnumber: `demo-${++number}`, quantitydecimal: 0, 'defaultuomscheduleid@odata.bind': `/uomschedules(${ids.unitGroupId})`, 'defaultuomid@odata.bind': `/uoms(${ids.baseUnitId})`, ...(keys && { ccs_commerceproductid: keys.productId, ccs_dimensionkey: keys.key }) }))!;
      await api('POST', 'productpricelevels', { 'pricelevelid@odata.bind': `/pricelevels(${priceList})`, 'productid@odata.bind': `/products(${id})`, 'uomid@odata.bind': `/uoms(${ids.baseUnitId})`, amount: keys?.price ?? 5000 });
      if (keys) catalogue[id] = keys;
    };
    await product(`Seats "annual" \\ 日本`, { productId: 'prod-000001', key: 'seats', price: 120 });
    await product("O'Brien's CPU hours", { productId: 'prod-000001', key: 'cpu_hours', price: 0.5 });
    await product('Atlas Search: queries', { productId: 'prod-000002', key: 'queries', price: 2 });
    await product('Onboarding workshop'); // the seller's own product, outside the catalogue
    asking = await makeOpportunity({ name: 'Acme offer', stepname: '1-Qualify', ccs_privateofferrequested: true, ccs_commerceproductid: 'prod-000001' }, acme);
  });

  it('addProducts adds opportunity products of one marketplace product, priced from the price list, to each opportunity asking for an offer, once, and saves its estimated revenue', async () => {
    const random = sellerRandom(21, 'dynamics');
    const requested = (await rows('opportunity')).filter((r) => r.ccs_privateofferrequested === true).map((r) => r.opportunityid);
    expect(requested).toContain(asking);
    const changed: string[] = [];
    for (let change = await move('addProducts', random); change; change = await move('addProducts', random)) changed.push(change.id);
    expect(changed.sort()).toEqual([...requested].sort());
    const lines = await rows('opportunityproduct');
    for (const id of requested) {
      const own = lines.filter((line) => line._opportunityid_value === id);
      expect(own.length).toBeGreaterThanOrEqual(1);
      expect(own.length).toBeLessThanOrEqual(2);
      const products = own.map((line) => catalogue[line._productid_value]!);
      expect(products.every(Boolean)).toBe(true); // never the workshop outside the catalogue
      expect(new Set(products.map((product) => product.productId)).size).toBe(1);
      let total = 0;
      own.forEach((line, i) => {
        expect(line.pricingerrorcode).toBe(0);
        expect(Number.isInteger(line.quantity) && line.quantity >= 1 && line.quantity <= 12).toBe(true);
        // The list price from the price list, or a tenth off it, overridden.
        if (line.ispriceoverridden) expect(line.priceperunit).toBe(Math.round(products[i]!.price * 90) / 100);
        else expect(line.priceperunit).toBe(products[i]!.price);
        total += line.quantity * line.priceperunit;
      });
      const opportunity = await row(id);
      expect(opportunity._pricelevelid_value).toBe(priceList);
      expect(Number(opportunity.estimatedvalue)).toBeCloseTo(total, 2);
    }
  });

  it('approveOffer approves, once, an opportunity whose offer was built from products and drafted, naming the approver', async () => {
    expect(await move('approveOffer')).toBeUndefined(); // no draft made yet
    await api('PATCH', `opportunities(${asking})`, { ccs_commerceofferid: "offer-'1' \\ 日本" });
    const change = (await move('approveOffer'))!;
    expect(change).toMatchObject({ crm: 'dynamics', kind: 'approveOffer', id: asking });
    const approved = await row(asking);
    expect(approved.ccs_offerapprovalstatus).toBe(100_000_001);
    expect(['Zoë O\'Brien (Deal Desk)', 'Kenji Satō', 'Amara "Mara" Okafor', 'Łukasz Nowak', 'Inés García-Márquez']).toContain(approved.ccs_offerapprovedby);
    expect(change.summary).toBe(`private offer approved by ${approved.ccs_offerapprovedby}`);
    expect(await move('approveOffer')).toBeUndefined();
  });
});
