import { addLocalDays, atWallTime, wallTime } from '../../model/local-time.ts';

export interface QuietWindow {
  enabled: boolean;
  /** Local hour the window opens (0-23). */
  start_hour: number;
  /** Local hour it closes (0-23); earlier than start_hour means it wraps past midnight. */
  end_hour: number;
  timezone: string;
}

export function inQuietHours(at: Date, window: QuietWindow): boolean {
  if (!window.enabled || window.start_hour === window.end_hour) return false;
  const { hour } = wallTime(at, window.timezone);
  return window.start_hour < window.end_hour
    ? hour >= window.start_hour && hour < window.end_hour
    : hour >= window.start_hour || hour < window.end_hour;
}

/**
 * A step due inside the campaign's quiet hours moves to the window's end, in the campaign's zone and
 * DST-correct: an end hour skipped by a DST jump becomes the jump itself. A window
 * whose start equals its end is empty (it would otherwise silence every hour).
 */
export function shiftOutOfQuietHours(at: Date, window: QuietWindow): Date {
  if (!inQuietHours(at, window)) return at;
  const local = wallTime(at, window.timezone);
  const wrapsAndBeforeMidnight = window.start_hour > window.end_hour && local.hour >= window.start_hour;
  const date = wrapsAndBeforeMidnight ? addLocalDays(local, 1) : local;
  const end = atWallTime(window.timezone, date.year, date.month, date.day, window.end_hour);
  // The jump that skipped the end hour can land on the start hour (a window open all but that hour):
  // the window closes and reopens at one instant, so the step waits for the next day's end.
  return inQuietHours(end, window) ? shiftOutOfQuietHours(end, window) : end;
}
