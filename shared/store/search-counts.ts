import type { TimeWindow } from '../model/listing.ts';
import { DAY_MS, walkMonths } from '../model/month-walk.ts';
import type { Bucket } from './list-counters.ts';

/**
 * A search prefix's counts (docs/data-model.md, "Customer search"): one item per month its customers
 * were created in, holding the month's entries (`matches`) and each quarter of a day's (`DDq`: day of
 * month, q = 0-3 for hours 0-5, 6-11, 12-17, 18-23). Quarters, not hours, so a month item stays under
 * 1 KB (124 short attributes) and an index write costs what it did; a deep page finds its day and
 * quarter from the month items the total is read from, and skips inside the quarter only.
 */
export const PART_HOURS = 6;
const HOUR_MS = 3_600_000;
const PART_MS = PART_HOURS * HOUR_MS;

/** The month item and the quarter attribute that count a customer created at `epochMs`. */
export function countPlace(epochMs: number): { month: string; part: string } {
  const at = new Date(epochMs).toISOString();
  return { month: at.slice(0, 7), part: `${at.slice(8, 10)}${Math.floor(Number(at.slice(11, 13)) / PART_HOURS)}` };
}

/** A month item's counts: `matches` and its quarters' counts by attribute name. */
export type MonthCounts = ReadonlyMap<string, { matches: number; parts: ReadonlyMap<string, number> }>;

/** The month items as read (attributes other than counts ignored). */
export function monthCounts(items: readonly { month: string; attributes: Record<string, unknown> }[]): MonthCounts {
  const months = new Map<string, { matches: number; parts: Map<string, number> }>();
  for (const { month, attributes } of items) {
    const parts = new Map<string, number>();
    for (const [name, value] of Object.entries(attributes)) if (/^\d{3}$/.test(name)) parts.set(name, Number(value));
    months.set(month, { matches: Number(attributes.matches ?? 0), parts });
  }
  return months;
}

/** All the months' matches: the partition's entries. */
export const totalOf = (months: MonthCounts): number => [...months.values()].reduce((sum, { matches }) => sum + matches, 0);

/**
 * The bucket counts a search segment is placed by (list-query.ts `BucketCounts`), from month items
 * already read: no request of its own, except `countExactly` for the at most two quarters a window cuts.
 */
export class SearchCounts {
  constructor(private readonly months: MonthCounts) {}

  async allTime(): Promise<number> {
    return totalOf(this.months);
  }

  /** The window as whole months, whole days and quarters of the months it cuts, and exactly counted parts of the quarters it cuts; oldest first. */
  async buckets(_dimension: string, window: TimeWindow, countExactly: (from: number, to: number) => Promise<number>): Promise<Bucket[]> {
    const buckets: Bucket[] = [];
    for (const piece of walkMonths(this.months.keys(), window, PART_MS)) {
      if (piece.unit === 'month') buckets.push({ from: piece.from, to: piece.to, count: this.months.get(piece.month)!.matches, level: 'month' });
      else if (piece.unit === 'day') buckets.push(this.day(piece.from));
      else if (piece.unit === 'part') buckets.push(this.quarter(piece.from));
      else buckets.push({ from: piece.from, to: piece.to, count: this.quarter(piece.from).count === 0 ? 0 : await countExactly(piece.from, piece.to), level: 'exact' });
    }
    return buckets.filter((bucket) => bucket.count > 0);
  }

  async splitMonth(bucket: Bucket): Promise<Bucket[]> {
    const days: Bucket[] = [];
    for (let day = bucket.from; day < bucket.to; day += DAY_MS) days.push(this.day(day));
    return days.filter((day) => day.count > 0);
  }

  splitsDays = (): boolean => true;

  async splitDay(bucket: Bucket): Promise<Bucket[]> {
    return this.quarters(bucket.from).filter((part) => part.count > 0);
  }

  private quarters(day: number): Bucket[] {
    return Array.from({ length: 24 / PART_HOURS }, (_, q) => this.quarter(day + q * PART_MS));
  }

  private quarter(from: number): Bucket {
    const { month, part } = countPlace(from);
    return { from, to: from + PART_MS, count: this.months.get(month)?.parts.get(part) ?? 0, level: 'hour' };
  }

  private day(day: number): Bucket {
    return { from: day, to: day + DAY_MS, count: this.quarters(day).reduce((sum, part) => sum + part.count, 0), level: 'day' };
  }
}
