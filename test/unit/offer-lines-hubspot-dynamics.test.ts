// How the HubSpot and Dynamics offer sides read a record's products (issue #28 section 2): HubSpot's deal
// line items (associations, a batch read of the line items, one of their products) and Dynamics'
// opportunity products (by their opportunity, then their products), as the neutral line values; what a
// draft then asks, in the record's currency, held by the approval rule on each CRM's own field (Dynamics:
// a choice read as its option value, or named by its label on the project's own column).
import { describe, expect, it } from 'vitest';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import { dynamicsApprovalRule, opportunityOfferLines, opportunityProductValues } from '../../mappings/dynamics/opportunity-offer-lines.ts';
import { opportunityToDraftOffer } from '../../mappings/dynamics/opportunity-cosell.ts';
import { dealToDraftOffer } from '../../mappings/hubspot/deal-cosell.ts';
import { dealOfferLines, lineItemValues } from '../../mappings/hubspot/deal-offer-lines.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';

type Call = { object: string; field: string; values: string[]; fields?: string[] };
const HOSTILE = `Seats "annual" \\ 日本 O'Brien`;

/** A connector answering from tables, recording every read (HubSpot: associations too; Dynamics: a describe). */
function fake(tables: Record<string, CrmRecord[]>, options: { associations?: Record<string, string[]>; productColumns?: string[] } = {}) {
  const calls: Call[] = [];
  const crm = {
    async findWhereIn(object: string, field: string, values: string[], fields?: string[]) {
      calls.push({ object, field, values, fields });
      // As a CRM answers a read: the columns asked for, the field read by and the record's id.
      const shown = new Set([...(fields ?? []), field, 'id', 'hs_object_id']);
      return (tables[object] ?? []).filter((row) => values.includes(String(row[field]).toLowerCase())).map((row) => Object.fromEntries(Object.entries(row).filter(([name]) => shown.has(name))));
    },
    ...(options.associations && {
      async associated(object: string, ids: string[], toObject: string) {
        calls.push({ object: `${object}->${toObject}`, field: 'associations', values: ids });
        return new Map(ids.flatMap((id) => (options.associations![id] ? [[id, options.associations![id]!]] : [])));
      },
    }),
    ...(options.productColumns && { describe: async () => ({ fields: new Map(options.productColumns!.map((name) => [name, {}])) }) }),
  } as unknown as CrmConnector;
  return { crm, calls };
}

const settingsWith = (offerApproval?: ConnectionSettings['cosell']['offerApproval']) => ({ cosell: { offerApproval } }) as unknown as ConnectionSettings;

describe('HubSpot: a deal\'s line items', () => {
  it('a line item made from a catalogue product takes its keys; one of its own has none; the line item\'s name wins', () => {
    expect(lineItemValues({ name: HOSTILE, hs_product_id: '11', quantity: '25', price: '35.5', hs_line_item_currency_code: 'EUR' }, { name: 'Seats', commerce_product_id: 'prod-1', commerce_dimension_key: 'seats' })).toEqual({
      product: HOSTILE,
      productId: 'prod-1',
      dimensionKey: 'seats',
      quantity: '25',
      unitPrice: '35.5',
      currency: 'EUR',
    });
    expect(lineItemValues({ quantity: '1', price: '900' }, { name: 'Workshop' })).toEqual({ product: 'Workshop', productId: undefined, dimensionKey: undefined, quantity: '1', unitPrice: '900', currency: undefined });
    expect(lineItemValues({ name: 'Custom line', quantity: '1', price: '5' }, undefined)).toMatchObject({ product: 'Custom line', productId: undefined, dimensionKey: undefined });
  });

  it('reads the associations, the line items and their products once for the page; a deal without line items has none', async () => {
    const { crm, calls } = fake(
      {
        line_items: [
          { hs_object_id: '901', name: 'Seats', hs_product_id: '11', quantity: '25', price: '35' },
          { hs_object_id: '902', name: 'Usage', hs_product_id: '12', quantity: '1', price: '0.45' },
          { hs_object_id: '903', name: 'Workshop', quantity: '1', price: '900' },
        ],
        products: [
          { hs_object_id: '11', name: 'Seats', commerce_product_id: 'prod-1', commerce_dimension_key: 'seats' },
          { hs_object_id: '12', name: 'Usage', commerce_product_id: 'prod-1', commerce_dimension_key: 'usage' },
        ],
      },
      { associations: { '301': ['901', '902'], '302': ['903'] } },
    );
    const lines = await dealOfferLines(crm, ['301', '302', '303']);
    expect(calls.map((call) => [call.object, call.field, call.values])).toEqual([
      ['deals->line_items', 'associations', ['301', '302', '303']],
      ['line_items', 'hs_object_id', ['901', '902', '903']],
      ['products', 'hs_object_id', ['11', '12']],
    ]);
    expect(calls[1]!.fields).toEqual(['name', 'hs_product_id', 'quantity', 'price', 'hs_line_item_currency_code']);
    expect([...lines.keys()]).toEqual(['301', '302']);
    expect(lines.get('301')!.map((line) => [line.productId, line.dimensionKey, line.quantity, line.unitPrice])).toEqual([
      ['prod-1', 'seats', '25', '35'],
      ['prod-1', 'usage', '1', '0.45'],
    ]);
    expect(lines.get('302')).toEqual([{ product: 'Workshop', productId: undefined, dimensionKey: undefined, quantity: '1', unitPrice: '900', currency: undefined }]);
  });

  it('no deals, or no line items: nothing more is read', async () => {
    const none = fake({}, { associations: {} });
    expect(await dealOfferLines(none.crm, [])).toEqual(new Map());
    expect(none.calls).toEqual([]);
    expect(await dealOfferLines(none.crm, ['301'])).toEqual(new Map());
    expect(none.calls.map((call) => call.object)).toEqual(['deals->line_items']);
  });

  const deal = { hs_object_id: '301', dealname: 'Acme', closedate: '2027-03-31T00:00:00.000Z', private_offer_requested: 'true', deal_currency_code: 'EUR', offer_approval_status: 'Pending' };
  const lines = [
    { product: 'Seats', productId: 'prod-1', dimensionKey: 'seats', quantity: '25', unitPrice: '35', currency: 'EUR' },
    { product: 'Usage', productId: 'prod-1', dimensionKey: 'usage', quantity: '1', unitPrice: '0.45', currency: 'EUR' },
  ];
  const rule = { field: 'offer_approval_status', approvedValue: 'Approved', approvedByField: 'offer_approved_by' };

  it('the draft: the lines in the deal currency, held until the deal property holds the approved value', () => {
    const relations = { buyerId: 'buyer-1', contactIds: [], lines };
    expect(dealToDraftOffer(deal, relations, settingsWith(rule))).toEqual({
      asks: true,
      request: {
        name: 'Acme',
        offerType: 'PRIVATE',
        productID: 'prod-1',
        buyerID: 'buyer-1',
        expireTime: '2027-03-31T23:59:59.000Z',
        info: { currency: 'EUR' },
        metaInfo: { crmBDealId: '301' },
        lines: [
          { dimensionKey: 'seats', quantity: 25, unitPrice: 35 },
          { dimensionKey: 'usage', quantity: 1, unitPrice: 0.45 },
        ],
        publish: false,
      },
    });
    expect(dealToDraftOffer({ ...deal, offer_approval_status: 'Approved', offer_approved_by: HOSTILE }, relations, settingsWith(rule))).toMatchObject({ request: { publish: true, approval: { by: HOSTILE } } });
    // No rule: sent at once, as drafts always were.
    expect((dealToDraftOffer(deal, relations, settingsWith(undefined)) as { request: object }).request).not.toHaveProperty('publish');
  });

  it('the offer\'s own properties: duration, schedule, new expiry, cancel', () => {
    const asked = dealToDraftOffer({ ...deal, offer_duration_months: '12', offer_payment_schedule: '2027-01-15 500\n2027-07-15 375', offer_new_expiry_date: '2027-06-30', offer_cancel_requested: 'true' }, { buyerId: 'buyer-1', contactIds: [], lines }, settingsWith(undefined));
    expect(asked).toMatchObject({ request: { durationMonths: 12, charges: [{ chargeDate: '2027-01-15T00:00:00.000Z', chargeAmount: 500 }, { chargeDate: '2027-07-15T00:00:00.000Z', chargeAmount: 375 }], extendTo: '2027-06-30T23:59:59.000Z', cancel: true } });
  });

  it('a line item in another currency than the deal\'s is refused, naming it', () => {
    const mixed = [lines[0]!, { ...lines[1]!, product: HOSTILE, currency: 'gbp' }];
    expect(dealToDraftOffer(deal, { buyerId: 'buyer-1', contactIds: [], lines: mixed }, settingsWith(undefined))).toEqual({
      asks: true,
      refused: `products: "${HOSTILE}" is priced in GBP, and the offer is in EUR (the record's currency); price every line in EUR`,
    });
    // A deal without deal_currency_code is in the company currency: the lines are checked against it.
    expect(dealToDraftOffer({ ...deal, deal_currency_code: undefined }, { buyerId: 'buyer-1', contactIds: [], lines, defaultCurrency: 'USD' }, settingsWith(undefined))).toMatchObject({ refused: expect.stringContaining('"Seats" is priced in EUR, "Usage" is priced in EUR, and the offer is in USD') });
  });
});

describe('Dynamics: an opportunity\'s products', () => {
  const OPPORTUNITY = 'bbbb0000-0000-0000-0000-000000000001';
  const SEATS = 'dddd0000-0000-0000-0000-000000000001';
  const USAGE = 'dddd0000-0000-0000-0000-000000000002';
  const tables = {
    opportunityproduct: [
      { id: 'e1', _opportunityid_value: OPPORTUNITY, _productid_value: SEATS.toUpperCase(), quantity: 25, priceperunit: 35 },
      { id: 'e2', _opportunityid_value: OPPORTUNITY, _productid_value: USAGE, quantity: 1, priceperunit: 0.45 },
      { id: 'e3', _opportunityid_value: OPPORTUNITY, _productid_value: null, productdescription: HOSTILE, quantity: 1, priceperunit: 900 },
    ],
    product: [
      { id: SEATS, name: 'Seats', ccs_commerceproductid: 'prod-1', ccs_dimensionkey: 'seats' },
      { id: USAGE, name: 'Usage', ccs_commerceproductid: 'prod-1', ccs_dimensionkey: 'usage' },
    ],
  };

  it('a catalogue product gives its keys; a write-in product is named by its description', () => {
    expect(opportunityProductValues({ quantity: 25, priceperunit: 35 }, { name: 'Seats', ccs_commerceproductid: 'prod-1', ccs_dimensionkey: 'seats' })).toEqual({ product: 'Seats', productId: 'prod-1', dimensionKey: 'seats', quantity: 25, unitPrice: 35 });
    expect(opportunityProductValues({ productdescription: HOSTILE, quantity: 1, priceperunit: 900 }, undefined)).toEqual({ product: HOSTILE, productId: undefined, dimensionKey: undefined, quantity: 1, unitPrice: 900 });
  });

  it('reads the lines by their opportunity (GUIDs lowercased, braces off) and their products once', async () => {
    const { crm, calls } = fake(tables, { productColumns: ['name', 'ccs_commerceproductid', 'ccs_dimensionkey'] });
    const lines = await opportunityOfferLines(crm, [{ id: `{${OPPORTUNITY.toUpperCase()}}` }, { id: 'bbbb0000-0000-0000-0000-000000000002' }]);
    expect(calls.map((call) => [call.object, call.field, call.values, call.fields])).toEqual([
      ['opportunityproduct', '_opportunityid_value', [OPPORTUNITY, 'bbbb0000-0000-0000-0000-000000000002'], ['_opportunityid_value', '_productid_value', 'productdescription', 'quantity', 'priceperunit']],
      ['product', 'id', [SEATS, USAGE], ['name', 'ccs_commerceproductid', 'ccs_dimensionkey']],
    ]);
    expect([...lines.keys()]).toEqual([`{${OPPORTUNITY.toUpperCase()}}`]);
    expect(lines.get(`{${OPPORTUNITY.toUpperCase()}}`)!.map((line) => [line.product, line.productId, line.dimensionKey])).toEqual([
      ['Seats', 'prod-1', 'seats'],
      ['Usage', 'prod-1', 'usage'],
      [HOSTILE, undefined, undefined],
    ]);
  });

  it('an environment whose products lack the catalogue\'s columns: they are not asked for, and the lines have no keys', async () => {
    const { crm, calls } = fake(tables, { productColumns: ['name'] });
    const lines = await opportunityOfferLines(crm, [{ id: OPPORTUNITY }]);
    expect(calls[1]!.fields).toEqual(['name']);
    expect(lines.get(OPPORTUNITY)!.every((line) => line.productId === undefined)).toBe(true);
  });

  it('the approval rule on the choice column: its label names the option value the Web API reads; a value or another column is kept', () => {
    expect(dynamicsApprovalRule({ field: 'ccs_offerapprovalstatus', approvedValue: 'approved' })).toEqual({ field: 'ccs_offerapprovalstatus', approvedValue: '100000001' });
    expect(dynamicsApprovalRule({ field: 'ccs_offerapprovalstatus', approvedValue: '100000001', approvedByField: 'ccs_offerapprovedby' })).toEqual({ field: 'ccs_offerapprovalstatus', approvedValue: '100000001', approvedByField: 'ccs_offerapprovedby' });
    expect(dynamicsApprovalRule({ field: 'new_dealdesk', approvedValue: 'Approved' })).toEqual({ field: 'new_dealdesk', approvedValue: 'Approved' });
    expect(dynamicsApprovalRule(undefined)).toBeUndefined();
  });

  it('the draft: the lines in the opportunity\'s currency, held until the column holds the approved option', () => {
    const opportunity = { id: OPPORTUNITY, name: 'Acme', estimatedclosedate: '2027-03-31', ccs_privateofferrequested: true, _parentaccountid_value: 'aaaa0000-0000-0000-0000-000000000001', ccs_offerapprovalstatus: 100_000_000 };
    const relations = { accountId: 'aaaa0000-0000-0000-0000-000000000001', buyerId: 'buyer-1', currency: 'EUR', contactIds: [], lines: [
      { product: 'Usage', productId: 'prod-1', dimensionKey: 'usage', quantity: 1, unitPrice: 0.45 },
      { product: 'Seats', productId: 'prod-1', dimensionKey: 'seats', quantity: 25, unitPrice: 35 },
    ] };
    const rule = { field: 'ccs_offerapprovalstatus', approvedValue: 'Approved', approvedByField: 'ccs_offerapprovedby' };
    expect(opportunityToDraftOffer(opportunity, relations, settingsWith(rule))).toMatchObject({
      request: { productID: 'prod-1', info: { currency: 'EUR' }, lines: [{ dimensionKey: 'seats', quantity: 25, unitPrice: 35 }, { dimensionKey: 'usage', quantity: 1, unitPrice: 0.45 }], publish: false, metaInfo: { crmCOpportunityId: OPPORTUNITY } },
    });
    expect(opportunityToDraftOffer({ ...opportunity, ccs_offerapprovalstatus: 100_000_001, ccs_offerapprovedby: HOSTILE }, relations, settingsWith(rule))).toMatchObject({ request: { publish: true, approval: { by: HOSTILE } } });
    expect(opportunityToDraftOffer({ ...opportunity, ccs_offerapprovalstatus: 100_000_002 }, relations, settingsWith(rule))).toMatchObject({ request: { publish: false } });
  });
});
