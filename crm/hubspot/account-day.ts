// HubSpot counts the daily API limit from midnight to midnight in the time zone set on the account
// (its API usage guidelines), so the day a connection parks for ends at the account's next midnight.

/** The instant the account's next day begins after `now`, for an IANA time zone ('US/Eastern'). */
export function nextMidnightIn(timeZone: string, now: Date): Date {
  const local = wallClock(timeZone, now.getTime());
  const midnightAsUtc = Date.UTC(local.year, local.month - 1, local.day + 1);
  // Offset at the guess, then at the corrected instant: right across a daylight-saving change.
  let instant = midnightAsUtc - offsetMs(timeZone, midnightAsUtc);
  instant = midnightAsUtc - offsetMs(timeZone, instant);
  return new Date(instant);
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

function wallClock(timeZone: string, at: number) {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(at));
  const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return { year: field('year'), month: field('month'), day: field('day'), hour: field('hour'), minute: field('minute'), second: field('second') };
}

/** How far the zone's wall clock is ahead of UTC at `at`. */
function offsetMs(timeZone: string, at: number): number {
  const w = wallClock(timeZone, at);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - (at - (((at % 1000) + 1000) % 1000));
}
