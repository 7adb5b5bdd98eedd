import { describe, expect, it } from 'vitest';
import { nextMidnightIn } from '../../crm/hubspot/account-day.ts';

// Expected instants worked out by hand from each zone's rules (offset before and after the day turns).
const cases: { zone: string; now: string; expected: string; why: string }[] = [
  // Chile: Saturday 5 Sept 2026 24:00 (-04) becomes Sunday 01:00 (-03); Sunday begins at 04:00Z.
  { zone: 'America/Santiago', now: '2026-09-06T03:00:01Z', expected: '2026-09-06T04:00:00Z', why: 'midnight skipped, day starts 01:00 -03' },
  { zone: 'America/Santiago', now: '2026-09-05T12:00:00Z', expected: '2026-09-06T04:00:00Z', why: 'earlier the same Saturday' },
  // Chile: Saturday 4 April 2026 24:00 (-03) becomes Saturday 23:00 (-04); Sunday begins at 04:00Z.
  { zone: 'America/Santiago', now: '2026-04-05T03:30:00Z', expected: '2026-04-05T04:00:00Z', why: 'repeated hour before midnight' },
  // Cuba: Sunday 8 March 2026 00:00 (-05) becomes 01:00 (-04); Sunday begins at 05:00Z.
  { zone: 'America/Havana', now: '2026-03-08T04:30:00Z', expected: '2026-03-08T05:00:00Z', why: 'midnight skipped, day starts 01:00 -04' },
  { zone: 'America/Havana', now: '2026-03-08T05:00:00Z', expected: '2026-03-09T04:00:00Z', why: 'at the day start itself: the next one' },
  // US Eastern: 8 March 2026 02:00 EST becomes 03:00 EDT.
  { zone: 'US/Eastern', now: '2026-03-07T12:00:00Z', expected: '2026-03-08T05:00:00Z', why: 'midnight EST before the change' },
  { zone: 'US/Eastern', now: '2026-03-08T12:00:00Z', expected: '2026-03-09T04:00:00Z', why: 'midnight EDT after the change' },
  { zone: 'US/Eastern', now: '2026-03-08T05:00:00Z', expected: '2026-03-09T04:00:00Z', why: 'exactly at midnight: the next one' },
  // Paris: 25 Oct 2026 03:00 CEST becomes 02:00 CET.
  { zone: 'Europe/Paris', now: '2026-10-24T12:00:00Z', expected: '2026-10-24T22:00:00Z', why: 'midnight CEST' },
  { zone: 'Europe/Paris', now: '2026-10-25T12:00:00Z', expected: '2026-10-25T23:00:00Z', why: 'midnight CET' },
  // Kolkata: +05:30 all year; 20:00Z on 1 June is 01:30 on 2 June.
  { zone: 'Asia/Kolkata', now: '2026-06-01T20:00:00Z', expected: '2026-06-02T18:30:00Z', why: 'half-hour offset' },
  { zone: 'Asia/Kolkata', now: '2026-06-01T18:29:59Z', expected: '2026-06-01T18:30:00Z', why: 'one second before midnight' },
  // Chatham: +13:45 in (southern) summer, +12:45 in winter.
  { zone: 'Pacific/Chatham', now: '2026-01-10T00:00:00Z', expected: '2026-01-10T10:15:00Z', why: '+13:45' },
  { zone: 'Pacific/Chatham', now: '2026-07-01T00:00:00Z', expected: '2026-07-01T11:15:00Z', why: '+12:45' },
];

describe('nextMidnightIn: the first instant of the account\'s next local date', () => {
  for (const { zone, now, expected, why } of cases) {
    it(`${zone} at ${now} (${why}) -> ${expected}`, () => {
      const at = nextMidnightIn(zone, new Date(now));
      expect(at.toISOString()).toBe(new Date(expected).toISOString());
      expect(at.getTime()).toBeGreaterThan(new Date(now).getTime());
    });
  }
});
