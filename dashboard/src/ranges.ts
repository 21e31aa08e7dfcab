/** The overview's windows: whole UTC days, as the analytics count them. */
export const RANGE_PRESETS = [7, 30, 90] as const;
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

export interface DayRange {
  from: string;
  to: string;
  /** The preset it is, if it is one. */
  preset: number | null;
}

const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10);
const isDay = (value: string | null): value is string => value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));

/** `?days=7|30|90` (ending today, UTC) or `?from=&to=`; 30 days when neither is given or readable. */
export function rangeFrom(query: URLSearchParams, now = Date.now()): DayRange {
  const from = query.get('from');
  const to = query.get('to');
  if (isDay(from) && isDay(to)) return { from, to, preset: null };
  const days = Number(query.get('days'));
  const preset = (RANGE_PRESETS as readonly number[]).includes(days) ? days : DEFAULT_DAYS;
  return { from: dayOf(now - (preset - 1) * DAY_MS), to: dayOf(now), preset };
}

/** The window of the same length that ends the day before this one starts. */
export function previousRange(range: DayRange): DayRange {
  const start = Date.parse(`${range.from}T00:00:00Z`);
  const length = Date.parse(`${range.to}T00:00:00Z`) - start;
  return { from: dayOf(start - DAY_MS - length), to: dayOf(start - DAY_MS), preset: range.preset };
}
