import * as z from '../zod.ts';

/** Timestamps and dates in query parameters and bodies; only the functions that take one build these. */
export const isoTimestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' });

/** A calendar date as YYYY-MM-DD (a UTC day): the analytics windows. */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as YYYY-MM-DD' })
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), {
    error: 'must be a calendar date as YYYY-MM-DD',
  });

/** An analytics report's window; either end may be left out (shared/domain/analytics.ts fills it from the service clock). */
export const analyticsRange = {
  from: isoDate.optional().meta({ description: 'First UTC day of the window, inclusive. Default: 30 days before `to`.' }),
  to: isoDate.optional().meta({ description: 'Last UTC day of the window, inclusive. Default: today (UTC), so no range at all is the last 30 days ending now.' }),
};
