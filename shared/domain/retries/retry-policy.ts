import { addLocalDays, atWallTime, isTimeZone, wallTime } from '../../model/local-time.ts';

/**
 * When the next silent retry of a soft decline runs (docs/retry-policy.md has the reasoning).
 *
 * 1. Never before the decline row's cooldown (§2.6): issuers treat rapid re-attempts as abuse, and
 *    card-network rules cap retries; the cooldown is the floor every other rule builds on.
 * 2. Never in the customer's night (21:00-08:00 local). A charge at 3 a.m. gains nothing and, when it
 *    succeeds, lands as a surprise notification; issuers' fraud models also score odd-hour
 *    card-not-present charges higher.
 * 3. Prefer early business hours (09:00-11:00) on weekdays: issuer systems and fraud queues are fully
 *    staffed, and balances reflect overnight postings. A slot is moved to that window only when it is
 *    at most 24 h away, so preference never stretches the recovery by days.
 * 4. For Balance declines (insufficient funds), prefer the days right after the usual paydays (the
 *    1st-3rd and 15th-17th): the same card is far likelier to clear once wages land. Waited for only
 *    when such a day starts within 5 days.
 */
export interface RetrySlotRequest {
  /** When the failure (or last attempt) happened. */
  failedAt: Date;
  cooldownHours: number;
  subcategory: string | null;
  /** The customer's IANA zone; falls back to UTC when missing or unknown. */
  timeZone: string | null;
}

export const NIGHT_START_HOUR = 21;
export const DAY_START_HOUR = 8;
const PREFERRED_START_HOUR = 9;
const PREFERRED_END_HOUR = 11;
const PAYDAY_WINDOWS: readonly (readonly [number, number])[] = [
  [1, 3],
  [15, 17],
];
const MAX_WAIT_FOR_PAYDAY_DAYS = 5;
const MAX_WAIT_FOR_PREFERRED_HOURS = 24;

export function isNight(hour: number): boolean {
  return hour >= NIGHT_START_HOUR || hour < DAY_START_HOUR;
}

const isPayday = (day: number): boolean => PAYDAY_WINDOWS.some(([from, to]) => day >= from && day <= to);

function zoneOf(timeZone: string | null): string {
  return timeZone && isTimeZone(timeZone) ? timeZone : 'UTC';
}

/** The first moment at or after `from` that is daytime locally. */
function firstDaytime(from: Date, zone: string): Date {
  const wall = wallTime(from, zone);
  if (!isNight(wall.hour)) return from;
  const date = wall.hour >= NIGHT_START_HOUR ? addLocalDays(wall, 1) : wall;
  return atWallTime(zone, date.year, date.month, date.day, DAY_START_HOUR);
}

/** The next weekday 09:00 at or after `from` (or `from` itself inside a weekday 09:00-11:00). */
function nextPreferred(from: Date, zone: string): Date {
  for (let offset = 0; offset < 8; offset++) {
    const wall = wallTime(from, zone);
    const date = addLocalDays(wall, offset);
    const start = atWallTime(zone, date.year, date.month, date.day, PREFERRED_START_HOUR);
    const end = atWallTime(zone, date.year, date.month, date.day, PREFERRED_END_HOUR);
    const weekday = wallTime(start, zone).weekday;
    if (weekday === 0 || weekday === 6 || end <= from) continue;
    return start > from ? start : from;
  }
  return from;
}

/** 09:00 local on the first payday-window day at or after `from`, if one starts soon enough. */
function nextPayday(from: Date, zone: string): Date | undefined {
  const wall = wallTime(from, zone);
  for (let offset = 0; offset <= MAX_WAIT_FOR_PAYDAY_DAYS; offset++) {
    const date = addLocalDays(wall, offset);
    if (!isPayday(date.day)) continue;
    const morning = atWallTime(zone, date.year, date.month, date.day, PREFERRED_START_HOUR);
    const candidate = morning > from ? morning : from;
    // A payday that is already over (evening) does not count.
    if (!isNight(wallTime(candidate, zone).hour)) return candidate;
  }
  return undefined;
}

export function nextRetryAt(request: RetrySlotRequest): Date {
  const zone = zoneOf(request.timeZone);
  const earliest = new Date(request.failedAt.getTime() + request.cooldownHours * 3600_000);
  if (request.subcategory === 'Balance') {
    const payday = nextPayday(earliest, zone);
    if (payday) return firstDaytime(payday, zone);
  }
  const daytime = firstDaytime(earliest, zone);
  const preferred = nextPreferred(daytime, zone);
  const chosen = preferred.getTime() - daytime.getTime() <= MAX_WAIT_FOR_PREFERRED_HOURS * 3600_000 ? preferred : daytime;
  return firstDaytime(chosen, zone);
}

/**
 * Attempts in a row the processor may leave unanswered before retrying stops and dunning takes over:
 * with the backoff below, about three days, longer than any processor outage worth waiting out.
 */
export const MAX_CONSECUTIVE_NO_ANSWERS = 16;

/**
 * When an attempt the processor did not answer runs again (the same attempt, same idempotency key):
 * 5 minutes after the first silence, doubling up to 6 hours. It is still a charge, so it keeps rule 2
 * and never runs in the customer's night.
 */
export function noAnswerRerunAt(failedAt: Date, consecutiveNoAnswers: number, timeZone: string | null): Date {
  const backoffMs = Math.min(6 * 3600_000, 5 * 60_000 * 2 ** Math.max(0, consecutiveNoAnswers - 1));
  return firstDaytime(new Date(failedAt.getTime() + backoffMs), zoneOf(timeZone));
}
