/**
 * Wall-clock arithmetic in an IANA time zone, DST-correct, with only Intl (no tz database to ship).
 */
export interface WallTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  weekday: number; // 0 = Sunday
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function wallTime(at: Date, timeZone: string): WallTime {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(at).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: WEEKDAYS[parts.weekday!]!,
  };
}

/** Minutes the zone is ahead of UTC at that instant. */
function offsetMinutes(at: Date, timeZone: string): number {
  const wall = wallTime(at, timeZone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  return Math.round((asUtc - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/**
 * The instant a wall-clock time happens in the zone. A repeated time (DST ends) resolves to its first
 * occurrence; a skipped one (DST starts) moves forward by the gap, so 02:30 on a 02:00→03:00 night is
 * 03:30 (Temporal's "compatible" rule), and a skipped 02:00 is the jump itself.
 */
export function atWallTime(timeZone: string, year: number, month: number, day: number, hour: number, minute = 0): Date {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  // The zone's offsets half a day either side: equal except around a DST change, which they bracket.
  const first = guess - offsetMinutes(new Date(guess - 12 * 3600_000), timeZone) * 60_000;
  const second = guess - offsetMinutes(new Date(guess + 12 * 3600_000), timeZone) * 60_000;
  const matches = (instant: number) => {
    const wall = wallTime(new Date(instant), timeZone);
    return wall.year === year && wall.month === month && wall.day === day && wall.hour === hour && wall.minute === minute;
  };
  const valid = [first, second].filter(matches);
  // Both valid: the time repeats, take its first occurrence. Neither: it was skipped, and the later
  // candidate is the time moved forward by the gap.
  return new Date(valid.length > 0 ? Math.min(...valid) : Math.max(first, second));
}

/** The calendar date `days` after the wall date of `at` in the zone. */
export function addLocalDays(wall: Pick<WallTime, 'year' | 'month' | 'day'>, days: number): { year: number; month: number; day: number } {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}
