import { describe, expect, it } from 'vitest';
import { parseRecord, toDate } from '../../commerce/models.ts';
import { classifyEvent, eventVersion } from '../../commerce/notifications.ts';
import { describeBody } from '../../commerce/errors.ts';
import { parseRetryAfter } from '../../commerce/http.ts';

describe('lenient record parsing (§9.5)', () => {
  it('keeps unknown fields and new enum values', () => {
    const parsed = parseRecord('entitlement', {
      id: 'ent-1',
      lastUpdateTime: '2026-01-01T00:00:00.000Z',
      status: 'HIBERNATING',
      brandNewField: { nested: true },
      info: { commitAmount: 100, futureThing: [1] },
    });
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.record.status).toBe('HIBERNATING');
      expect(parsed.record.brandNewField).toEqual({ nested: true });
      expect(parsed.record.info?.futureThing).toEqual([1]);
    }
  });

  it('accepts epoch-millisecond times (marketplace D) and converts them', () => {
    const parsed = parseRecord('offer', { id: 'o-1', lastUpdateTime: 1767225600000 });
    expect(parsed.ok).toBe(true);
    expect(toDate(1767225600000)?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(toDate('not a date')).toBeUndefined();
    // new Date(true) is 1970 and new Date(['2026-02-01']) a date: neither is a time the contract sends.
    expect(toDate(true as never)).toBeUndefined();
    expect(toDate(['2026-02-01'] as never)).toBeUndefined();
  });

  it('names what is wrong with a record the worker cannot use, without throwing', () => {
    const missingId = parseRecord('entitlement', { lastUpdateTime: '2026-01-01T00:00:00Z' });
    expect(missingId.ok).toBe(false);
    if (!missingId.ok) expect(missingId.error.message).toMatch(/entitlement \(no id\) is unusable: id must be a non-empty string/);
    const badTime = parseRecord('offer', { id: 'o-2', lastUpdateTime: 'yesterday-ish' });
    expect(badTime.ok).toBe(false);
    if (!badTime.ok) {
      expect(badTime.error.recordId).toBe('o-2');
      expect(badTime.error.message).toMatch(/lastUpdateTime/);
    }
  });
});

describe('notification envelopes (§6)', () => {
  it('reads a missing or 0 version as 1 and sets unknown versions aside', () => {
    expect(eventVersion({})).toBe(1);
    expect(eventVersion({ version: 0 })).toBe(1);
    expect(classifyEvent({ eventID: 'e1', version: 1 }).accepted).toBe(true);
    const verdict = classifyEvent({ eventID: 'e2', version: 2 });
    expect(verdict.accepted).toBe(false);
    if (!verdict.accepted) expect(verdict.reason).toMatch(/version 2.*left for redelivery/);
  });

  it('recognises audit-only events', () => {
    const verdict = classifyEvent({ eventID: 'e3', channels: [], requireAudit: true });
    expect(verdict.accepted && verdict.auditOnly).toBe(true);
    const normal = classifyEvent({ eventID: 'e4', channels: ['EMAIL'], requireAudit: true });
    expect(normal.accepted && normal.auditOnly).toBe(false);
  });
});

describe('error bodies (§7.1) and Retry-After', () => {
  it('reads objects, plain JSON strings and OAuth errors', () => {
    expect(describeBody({ code: 'NOT_FOUND', message: 'offer o-1 not found' })).toBe('offer o-1 not found');
    expect(describeBody('offer o-1 not found')).toBe('offer o-1 not found');
    expect(describeBody({ error: 'invalid_client', error_description: 'bad secret' })).toBe('bad secret');
    expect(describeBody({ weird: 1 })).toBe('{"weird":1}');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000 + 5_000).toUTCString(), 10_000)).toBeGreaterThanOrEqual(4000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
