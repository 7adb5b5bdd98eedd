// The account's day: HubSpot counts the daily API limit from midnight to midnight in the time zone
// set on the account (docs/crm-wire-behaviour.md, issue #22 item 3). Written for the sandbox from
// HubSpot's description, independently of the connector's own reading.

/** Throws when `timeZone` is not an IANA time zone Node knows ('US/Eastern', 'Europe/Paris', 'UTC'). */
export function checkTimeZone(timeZone: string): string {
  new Intl.DateTimeFormat('en', { timeZone }); // RangeError: Invalid time zone specified
  return timeZone;
}

/** The wall-clock fields of `at` in `timeZone`. */
function wallClock(timeZone: string, at: number) {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(at));
  const field = (type: string) => Number(parts.find((part) => part.type === type)!.value);
  return { year: field('year'), month: field('month'), day: field('day'), hour: field('hour'), minute: field('minute'), second: field('second') };
}

/** How far `timeZone` is ahead of UTC at `at`, in milliseconds (-18,000,000 for US/Eastern in winter). */
export function utcOffsetMs(timeZone: string, at: number): number {
  const w = wallClock(timeZone, at);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (at - (at % 1000));
}

/** The account's date at `at`, as YYYY-MM-DD. */
export function localDate(timeZone: string, at: number): string {
  const w = wallClock(timeZone, at);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** The instant the account's next day begins after `at` (its next local midnight). */
export function nextLocalMidnight(timeZone: string, at: number): Date {
  const w = wallClock(timeZone, at);
  const midnightAsUtc = Date.UTC(w.year, w.month - 1, w.day + 1);
  // The offset at the guess, then once more at the corrected instant (a DST change near midnight).
  let instant = midnightAsUtc - utcOffsetMs(timeZone, midnightAsUtc);
  instant = midnightAsUtc - utcOffsetMs(timeZone, instant);
  return new Date(instant);
}

/** "-05:00" for an offset of -18,000,000 ms. */
export function offsetText(offsetMs: number): string {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `${offsetMs < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
