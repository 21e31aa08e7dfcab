import * as z from '../zod.ts';

/** Timestamps and dates in query parameters and bodies; only the functions that take one build these. */
export const isoTimestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' });

/** A calendar date as YYYY-MM-DD (a UTC day): the analytics windows. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as YYYY-MM-DD' })
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), {
    error: 'must be a calendar date as YYYY-MM-DD',
  });
