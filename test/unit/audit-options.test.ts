// What the audit trail's filters take (issue #26 section 2): --since as ISO 8601 or an age back from now,
// and the audit page open to every role, as reads are.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { allows } from '../../admin/permissions.ts';
import { sinceTime } from '../../cli/audit-command.ts';

const NOW = Date.parse('2026-03-10T12:00:00Z');

describe('crm-sync audit --since', () => {
  it('takes an age in days, hours or minutes back from now, or an ISO 8601 time', () => {
    expect(sinceTime('7d', NOW)).toBe('2026-03-03T12:00:00.000Z');
    expect(sinceTime('12h', NOW)).toBe('2026-03-10T00:00:00.000Z');
    expect(sinceTime('30m', NOW)).toBe('2026-03-10T11:30:00.000Z');
    expect(sinceTime('2026-01-01', NOW)).toBe('2026-01-01T00:00:00.000Z');
    expect(sinceTime('2026-01-01T09:30:00+01:00', NOW)).toBe('2026-01-01T08:30:00.000Z');
  });

  it('refuses anything else, saying what it takes', () => {
    for (const wrong of ['last week', '7', '0d', '7w', '-7d', '2026-13-01', '']) {
      expect(() => sinceTime(wrong, NOW), wrong).toThrow(InvalidArgumentError);
      expect(() => sinceTime(wrong, NOW), wrong).toThrow(`${JSON.stringify(wrong)} is not a time; use ISO 8601 like 2026-01-01, or an age like 7d, 12h or 30m`);
    }
  });
});

describe('the audit page and the API retry in the permission table', () => {
  it('lets a viewer read the audit trail, and keeps a retry through the API for operators', () => {
    expect(allows('viewer', 'GET', '/audit')).toBe(true);
    expect(allows('viewer', 'POST', '/api/connections/acme/retry')).toBe(false);
    expect(allows('operator', 'POST', '/api/connections/acme/retry')).toBe(true);
  });
});
