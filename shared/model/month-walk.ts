import type { TimeWindow } from './listing.ts';

export const DAY_MS = 86_400_000;

/** The start of a `YYYY-MM` month, UTC epoch milliseconds. */
export const monthStart = (month: string): number => Date.parse(`${month}-01T00:00:00Z`);

export const nextMonthStart = (month: string): number => {
  const start = new Date(monthStart(month));
  return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
};

/**
 * A stretch of a window as counters count it: a whole month, a whole day, a whole part of a day, or a
 * cut (what is left at the window's ends, for counting item by item).
 */
export interface WindowPiece {
  from: number;
  to: number;
  /** The `YYYY-MM` month the piece lies in. */
  month: string;
  unit: 'month' | 'day' | 'part' | 'cut';
}

/**
 * The window walked through the months that hold anything (`months`, `YYYY-MM`, any order), oldest
 * first: each month the window holds whole; of a month it cuts, each day it holds whole; of a day it
 * cuts, each whole part of `partMs` (a divisor of a day; a day itself when the counters count nothing
 * finer, so a cut day is one cut) and the cut parts. Open ends stop at the first and last months.
 * Whole units first, so counters answer for all but at most two cuts.
 */
export function walkMonths(months: Iterable<string>, window: TimeWindow, partMs: number): WindowPiece[] {
  const periods = [...months].sort();
  if (periods.length === 0) return [];
  const from = Math.max(window.from ?? -Infinity, monthStart(periods[0]!));
  const to = Math.min(window.to ?? Infinity, nextMonthStart(periods.at(-1)!));
  const pieces: WindowPiece[] = [];
  const whole = (start: number, end: number) => start >= from && end <= to;
  for (const month of periods) {
    const start = monthStart(month);
    const end = nextMonthStart(month);
    if (end <= from || start >= to) continue;
    if (whole(start, end)) {
      pieces.push({ from: start, to: end, month, unit: 'month' });
      continue;
    }
    for (let day = Math.floor(Math.max(start, from) / DAY_MS) * DAY_MS; day < Math.min(end, to); day += DAY_MS) {
      if (whole(day, day + DAY_MS)) {
        pieces.push({ from: day, to: day + DAY_MS, month, unit: 'day' });
        continue;
      }
      for (let part = Math.floor(Math.max(day, from) / partMs) * partMs; part < Math.min(day + DAY_MS, to); part += partMs) {
        if (whole(part, part + partMs)) pieces.push({ from: part, to: part + partMs, month, unit: 'part' });
        else pieces.push({ from: Math.max(part, from), to: Math.min(part + partMs, to), month, unit: 'cut' });
      }
    }
  }
  return pieces;
}
