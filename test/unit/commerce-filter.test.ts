import { describe, expect, it } from 'vitest';
import { changedSince, literal, q, sort } from '../../commerce/filter.ts';

describe('q filter builder', () => {
  it('builds nested LISP-style expressions', () => {
    const filter = q.and(q.eq('status', 'ACTIVE'), q.in('partner', ['cloudA', 'cloudB']), q.not(q.exists('metaInfo.crmBDealId')));
    expect(filter.expression).toBe('(and (eq status "ACTIVE") (in partner "cloudA" "cloudB") (not (exists metaInfo.crmBDealId)))');
  });

  it('escapes hostile strings so they stay one string literal', () => {
    expect(literal('a"b')).toBe('"a\\"b"');
    expect(literal('back\\slash')).toBe('"back\\\\slash"');
    expect(literal('x") (or (eq id "y')).toBe('"x\\") (or (eq id \\"y"');
    expect(literal("O'Brien; DROP")).toBe(`"O'Brien; DROP"`);
    expect(q.eq('name', '\\"')).toEqual({ expression: '(eq name "\\\\\\"")' });
  });

  it('types numbers, booleans, null and dates', () => {
    expect(q.ge('commitAmount', 12.5).expression).toBe('(ge commitAmount 12.5)');
    expect(q.eq('autoRenew', false).expression).toBe('(eq autoRenew false)');
    expect(q.eq('endTime', null).expression).toBe('(eq endTime null)');
    expect(q.ge('lastUpdateTime', new Date('2026-01-02T03:04:05Z')).expression).toBe('(ge lastUpdateTime "2026-01-02T03:04:05.000Z")');
    expect(() => q.gt('n', Number.NaN)).toThrow(/finite/);
    expect(() => q.gt('t', new Date('nope'))).toThrow(/Invalid Date/);
  });

  it('refuses field names that could inject syntax', () => {
    expect(() => q.eq('status) (or', 'x')).toThrow(/Invalid filter field name/);
    expect(() => sort({ field: 'a,b:desc' })).toThrow(/Invalid filter field name/);
  });

  it('expresses the (lastUpdateTime, id) cursor window with a fixed end', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const until = new Date('2026-01-02T00:00:00Z');
    expect(changedSince({ time: start }, until).expression).toBe(
      '(and (ge lastUpdateTime "2026-01-01T00:00:00.000Z") (le lastUpdateTime "2026-01-02T00:00:00.000Z"))',
    );
    expect(changedSince({ time: start, afterId: 'ent-9' }).expression).toBe(
      '(or (gt lastUpdateTime "2026-01-01T00:00:00.000Z") (and (eq lastUpdateTime "2026-01-01T00:00:00.000Z") (gt id "ent-9")))',
    );
  });

  it('builds the s sort', () => {
    expect(sort({ field: 'lastUpdateTime' }, { field: 'id', direction: 'desc' })).toBe('lastUpdateTime:asc,id:desc');
  });
});
