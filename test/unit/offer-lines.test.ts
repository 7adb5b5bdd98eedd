// A private offer from the opportunity's products, CRM-neutral (issue #28 section 2): the lines as one
// offer of one marketplace product, the refusals naming the lines' products, the terms as the product's
// dimension types make them (COMMIT: info.commits, METERED: info.dimensions), duration and payment
// schedule, the approval rule, and what a later change sends as a draft update. Expected values by hand.
import { describe, expect, it } from 'vitest';
import type { Offer, Product } from '../../commerce/models.ts';
import { changedFields } from '../../flows/offer-changes.ts';
import { draftOfferAsk, offerApproval, type DraftOfferAskValues } from '../../mappings/canonical/draft-offer-ask.ts';
import { durationAsk, offerLinesAsk, offerTermsOn, paymentScheduleAsk } from '../../mappings/canonical/offer-lines.ts';

/** Quotes, a backslash and non-Latin text, as a CRM product's name may hold them. */
const HOSTILE = `Analyst "seats" \\ 日本語 'pro'`;

const line = (product: string, productId: string | null, dimensionKey: string | null, quantity: unknown = 10, unitPrice: unknown = 40) => ({ product, productId, dimensionKey, quantity, unitPrice });

const product: Product = {
  id: 'prod-000001',
  lastUpdateTime: '2026-01-01T00:00:00.000Z',
  name: 'Insight Analytics',
  partner: 'cloudA',
  info: {
    dimensions: [
      { key: 'analyst_seats', type: 'COMMIT', prices: [{ currency: 'EUR', pricePerUnit: 37 }] },
      { key: 'queries_million', type: 'METERED', prices: [{ currency: 'EUR', pricePerUnit: 0.46 }] },
      { key: 'odd', type: 'TIERED' },
    ],
  },
};

describe('offer lines', () => {
  it('lines of one marketplace product make one offer, sorted by dimension', () => {
    expect(offerLinesAsk([line('Queries', 'prod-000001', 'queries_million', 1, 0.4), line(HOSTILE, 'prod-000001', 'analyst_seats', '25', '35.5')])).toEqual({
      productID: 'prod-000001',
      lines: [
        { dimensionKey: 'analyst_seats', quantity: 25, unitPrice: 35.5 },
        { dimensionKey: 'queries_million', quantity: 1, unitPrice: 0.4 },
      ],
    });
  });

  it('a line whose product is not from the catalogue is refused by its product name', () => {
    expect(offerLinesAsk([line(HOSTILE, null, null), line('Seats', 'prod-000001', 'analyst_seats')])).toEqual({
      refused: `products: "${HOSTILE}" is not from the marketplace catalogue (no Commerce Product Id and Commerce Dimension Key on the product); replace it with the catalogue's products`,
    });
  });

  it('lines of two marketplace products, or two lines of one dimension, or no quantity are refused', () => {
    expect(offerLinesAsk([line('Seats', 'prod-000001', 'analyst_seats'), line('Vault', 'prod-000002', 'protected_tb')])).toEqual({
      refused: 'products: an offer is for one marketplace product, and these lines name prod-000001 (Seats) and prod-000002 (Vault); keep the lines of one product',
    });
    expect(offerLinesAsk([line('Seats', 'prod-000001', 'analyst_seats'), line('More seats', 'prod-000001', 'analyst_seats', -1)])).toEqual({
      refused: 'products: "Seats", "More seats" all price the dimension analyst_seats; keep one line for it\nproducts: "More seats" has no quantity of zero or more',
    });
  });

  it('a payment schedule is one charge a line; a line that is no date and amount is named', () => {
    expect(paymentScheduleAsk('2027-07-01 500\n\n 2027-01-01, 1000.25 ')).toEqual({
      charges: [
        { chargeDate: '2027-01-01T00:00:00.000Z', chargeAmount: 1000.25 },
        { chargeDate: '2027-07-01T00:00:00.000Z', chargeAmount: 500 },
      ],
    });
    expect(paymentScheduleAsk('2027-02-30 10\nsoon 5')).toEqual({
      refused: 'payment schedule: line 1 "2027-02-30 10" is not a date and an amount such as "2027-01-15 12000.00"\npayment schedule: line 2 "soon 5" is not a date and an amount such as "2027-01-15 12000.00"',
    });
    expect(paymentScheduleAsk(null)).toEqual({});
  });

  it('a duration is whole months from 1 to 120', () => {
    expect(durationAsk(36)).toEqual({ months: 36 });
    expect(durationAsk('')).toEqual({});
    expect(durationAsk(1.5)).toEqual({ refused: 'duration: 1.5 is not a whole number of months from 1 to 120' });
  });

  it('terms on the product: COMMIT lines are commits, METERED lines rates; a duration on marketplace A only', () => {
    const lines = [
      { dimensionKey: 'analyst_seats', quantity: 25, unitPrice: 35 },
      { dimensionKey: 'queries_million', quantity: 3, unitPrice: 0.4 },
    ];
    expect(offerTermsOn(product, { lines, durationMonths: 12, charges: [{ chargeDate: '2027-01-01T00:00:00.000Z', chargeAmount: 875 }] })).toEqual({
      terms: {
        commits: [{ key: 'analyst_seats', quantity: 25, price: 35 }],
        dimensions: [{ key: 'queries_million', rate: 0.4 }],
        paymentInstallments: [{ chargeDate: '2027-01-01T00:00:00.000Z', chargeAmount: 875 }],
        cloudAAgreementDuration: 'P12M',
      },
    });
    expect(offerTermsOn({ ...product, partner: 'cloudB' }, { lines: [{ dimensionKey: 'missing', quantity: 1, unitPrice: 1 }, { dimensionKey: 'odd', quantity: 1, unitPrice: 1 }], durationMonths: 12 })).toEqual({
      refused: [
        'products: missing is not a dimension of product prod-000001 (Insight Analytics); the catalogue has analyst_seats, queries_million, odd',
        'products: the dimension odd of product prod-000001 (Insight Analytics) is of type TIERED, which an offer cannot price (only COMMIT and METERED)',
        'duration: product prod-000001 (Insight Analytics) is sold on cloudB, which takes no agreement duration on an offer (only marketplace A, cloudA, does); clear the duration',
      ].join('\n'),
    });
  });
});

describe('the draft ask with lines and an approval', () => {
  const values = (extra: Partial<DraftOfferAskValues> = {}): DraftOfferAskValues => ({
    requested: true,
    crmId: '006A',
    name: 'Insight for Acme',
    productId: 'prod-typed-by-hand',
    buyerId: 'buyer-1',
    amount: 999,
    closeDate: '2027-03-31',
    currency: 'EUR',
    contactIds: [],
    lines: [line('Seats', 'prod-000001', 'analyst_seats', 25, 35)],
    ...extra,
  });

  it('lines replace the typed product and the Amount: the currency alone goes in info', () => {
    expect(draftOfferAsk('crmAOpportunityId', values({ approval: { approved: true, ruled: false } }), 'no buyer')).toEqual({
      asks: true,
      request: {
        name: 'Insight for Acme',
        offerType: 'PRIVATE',
        productID: 'prod-000001',
        buyerID: 'buyer-1',
        expireTime: '2027-03-31T23:59:59.000Z',
        info: { currency: 'EUR' },
        metaInfo: { crmAOpportunityId: '006A' },
        lines: [{ dimensionKey: 'analyst_seats', quantity: 25, unitPrice: 35 }],
        publish: true,
      },
    });
  });

  it('a rule not yet holding holds the draft; once it holds, who approved goes with it; a new expiry and a cancel request are asked', () => {
    const rule = { field: 'Offer_Approval_Status__c', approvedValue: 'Approved', approvedByField: 'Offer_Approved_By__c' };
    const pending = offerApproval(rule, (field) => ({ Offer_Approval_Status__c: 'Pending', Offer_Approved_By__c: null })[field]);
    expect(pending).toEqual({ approved: false, ruled: true, by: null });
    expect(draftOfferAsk('crmAOpportunityId', values({ approval: pending }), 'no buyer')).toMatchObject({ request: { publish: false } });
    const approved = offerApproval(rule, (field) => ({ Offer_Approval_Status__c: 'Approved', Offer_Approved_By__c: HOSTILE })[field]);
    const ask = draftOfferAsk('crmAOpportunityId', values({ approval: approved, newExpiry: '2027-05-15', cancel: true }), 'no buyer');
    expect(ask).toMatchObject({ request: { publish: true, approval: { by: HOSTILE }, extendTo: '2027-05-15T23:59:59.000Z', cancel: true } });
    expect(offerApproval(undefined, () => 'anything')).toEqual({ approved: true, ruled: false });
  });

  it('a record without lines asks as before: the typed product and the Amount', () => {
    expect(draftOfferAsk('crmAOpportunityId', values({ lines: [] }), 'no buyer')).toMatchObject({ request: { productID: 'prod-typed-by-hand', info: { commitAmount: 999, currency: 'EUR' } } });
  });

  it('every problem of the record is said at once', () => {
    expect(draftOfferAsk('crmAOpportunityId', values({ buyerId: null, durationMonths: 0, paymentSchedule: 'tomorrow' }), 'buyerID: the account is not linked')).toEqual({
      asks: true,
      refused: [
        'buyerID: the account is not linked',
        'duration: 0 is not a whole number of months from 1 to 120',
        'payment schedule: line 1 "tomorrow" is not a date and an amount such as "2027-01-15 12000.00"',
      ].join('\n'),
    });
  });
});

describe('what a later change sends', () => {
  const offer: Offer = {
    id: 'off-1',
    lastUpdateTime: '2026-01-01T00:00:00.000Z',
    name: 'Insight for Acme',
    productID: 'prod-000001',
    buyerID: 'buyer-1',
    status: 'PENDING_CREATE',
    subStatus: 'DRAFT',
    expireTime: '2027-03-31T23:59:59.000Z',
    info: { currency: 'EUR', commits: [{ key: 'analyst_seats', quantity: 25, price: 35 }], dimensions: [{ key: 'queries_million', rate: 0.4 }], discountPercentage: 5 },
  };
  const body = { name: offer.name, productID: offer.productID, buyerID: offer.buyerID, expireTime: offer.expireTime, info: { currency: 'EUR', commits: [{ key: 'analyst_seats', quantity: 25, price: 35 }], dimensions: [{ key: 'queries_million', rate: 0.4 }] } };

  it('nothing when the offer holds what the record asks (fields the request does not decide are left alone)', () => {
    expect(changedFields(offer, body, { expiry: true })).toBeUndefined();
  });

  it('a changed quantity, a removed metered line and a new close date are one patch; the expiry only for a draft', () => {
    const changed = { ...body, expireTime: '2027-04-30T23:59:59.000Z', info: { currency: 'EUR', commits: [{ key: 'analyst_seats', quantity: 30, price: 35 }] } };
    expect(changedFields(offer, changed, { expiry: true })).toEqual({ expireTime: '2027-04-30T23:59:59.000Z', info: { commits: [{ key: 'analyst_seats', quantity: 30, price: 35 }], dimensions: null } });
    expect(changedFields(offer, changed, { expiry: false })).toEqual({ info: { commits: [{ key: 'analyst_seats', quantity: 30, price: 35 }], dimensions: null } });
  });
});
