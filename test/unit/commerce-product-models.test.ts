// Products and their dimensions parsed as the client parses every record (A18, §9.5): unknown fields and
// values kept, what a catalogue sync depends on (ids, lastUpdateTime, a dimension's key, a price's currency
// and amount) checked, and a bad row returned with the field named rather than thrown.
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../commerce/index.ts';

describe('commerce models: products (A18)', () => {
  it('keeps a product as it came, new fields and dimension types included', () => {
    const raw = { id: 'prod-1', lastUpdateTime: '2026-03-01T00:00:00Z', status: 'ARCHIVED', info: { dimensions: [{ key: 'seats', type: 'TIERED', prices: [{ currency: 'EUR', pricePerUnit: 3, tier: 1 }] }], futureField: true } };
    expect(parseRecord('product', raw)).toEqual({ ok: true, record: raw });
  });

  it('names what is wrong with a product: its id, its time, a dimension without a key, a price that is no number', () => {
    const problems = (raw: unknown) => {
      const parsed = parseRecord('product', raw);
      if (parsed.ok) throw new Error('parsed a product that should be refused');
      return parsed.error.message;
    };
    expect(problems({ lastUpdateTime: '2026-03-01T00:00:00Z' })).toBe('product (no id) is unusable: id must be a non-empty string');
    expect(problems({ id: 'prod-2', lastUpdateTime: 'yesterday' })).toBe('product prod-2 is unusable: lastUpdateTime must be an ISO 8601 date-time');
    expect(problems({ id: 'prod-3', lastUpdateTime: '2026-03-01T00:00:00Z', info: { dimensions: [{ name: 'Seats' }] } })).toBe('product prod-3 is unusable: info.dimensions.0.key must be a non-empty string');
    expect(problems({ id: 'prod-4', lastUpdateTime: '2026-03-01T00:00:00Z', info: { dimensions: [{ key: 'seats', prices: [{ currency: 'EUR', pricePerUnit: '3' }] }] } })).toBe('product prod-4 is unusable: info.dimensions.0.prices.0.pricePerUnit must be a number');
  });

  it('parses a dimension by its key, refusing a price in no ISO 4217 currency or below zero', () => {
    expect(parseRecord('productDimension', { key: 'seats', unit: 'Users' })).toEqual({ ok: true, record: { key: 'seats', unit: 'Users' } });
    const euro = parseRecord('productDimension', { key: 'seats', prices: [{ currency: 'euro', pricePerUnit: 3 }] });
    expect(euro.ok ? 'parsed' : euro.error.message).toBe('productDimension seats is unusable: prices.0.currency must be an ISO 4217 code such as USD');
    const negative = parseRecord('productDimension', { key: 'seats', prices: [{ currency: 'USD', pricePerUnit: -1 }] });
    expect(negative.ok ? 'parsed' : negative.error.message).toBe('productDimension seats is unusable: prices.0.pricePerUnit must be at least 0');
  });
});
