// HubSpot counts the daily API limit from midnight to midnight in the time zone set on the account
// (its API usage guidelines), so the day a connection parks for ends at the account's next midnight.

/**
 * The instant the account's next day begins after `now`, for an IANA time zone ('US/Eastern'): the
 * first instant whose local date is the day after today's, always later than `now`. Where clocks jump
 * from 00:00 to 01:00 (America/Santiago, America/Havana) midnight never happens and the day begins at
 * 01:00; subtracting an offset from a wall-clock midnight then lands an hour early, in the past.
 */
export function nextMidnightIn(timeZone: string, now: Date): Date {
  const today = wallClock(timeZone, now.getTime());
  const tomorrow = dateKey(today.year, today.month, today.day + 1);
  const isTomorrowOrLater = (at: number) => {
    const w = wallClock(timeZone, at);
    return dateKey(w.year, w.month, w.day) >= tomorrow;
  };
  // Bisect between now (still today) and 50 hours on (past tomorrow whatever the offset's change):
  // the local date only moves forward across a zone's changes, so the first instant of tomorrow is
  // the point where the test flips.
  let before = now.getTime();
  let after = before + 50 * 3_600_000;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (isTomorrowOrLater(middle)) after = middle;
    else before = middle;
  }
  return new Date(after);
}

/** A comparable number for a calendar date (day overflow carried into the month and year). */
function dateKey(year: number, month: number, day: number): number {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() * 10_000 + (date.getUTCMonth() + 1) * 100 + date.getUTCDate();
}

/** Whether Node knows `timeZone` (HubSpot names zones as IANA does, 'US/Eastern' included). */
export function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's calendar date at `at`. */
function wallClock(timeZone: string, at: number) {
  let format = formats.get(timeZone);
  if (!format) formats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  const parts = format.formatToParts(new Date(at));
  const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return { year: field('year'), month: field('month'), day: field('day') };
}
