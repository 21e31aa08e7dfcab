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
 * The instant a wall-clock time happens in the zone. A time skipped by a DST jump resolves to the
 * instant just after the jump; a repeated one to its first occurrence.
 */
export function atWallTime(timeZone: string, year: number, month: number, day: number, hour: number, minute = 0): Date {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  let instant = guess - offsetMinutes(new Date(guess), timeZone) * 60_000;
  const corrected = guess - offsetMinutes(new Date(instant), timeZone) * 60_000;
  if (corrected !== instant) instant = Math.min(instant, corrected);
  return new Date(instant);
}

/** The calendar date `days` after the wall date of `at` in the zone. */
export function addLocalDays(wall: Pick<WallTime, 'year' | 'month' | 'day'>, days: number): { year: number; month: number; day: number } {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}
