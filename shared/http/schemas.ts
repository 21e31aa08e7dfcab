import * as z from 'zod';
import { PAGE_BOUNDS, PER_PAGE_BOUNDS } from '../domain/pagination.ts';

/**
 * Query values arrive as text; this records what one means (an integer, a boolean) as JSON Schema,
 * so the API description documents the parameter by its meaning rather than its spelling.
 */
export const QUERY_VALUE_META = 'x-query-value';

export function queryValue<T extends z.ZodType>(schema: T, meaning: Record<string, unknown>): T {
  return schema.meta({ [QUERY_VALUE_META]: meaning });
}

/** An integer query parameter with bounds and a default; query strings arrive as text. */
export function integerParam(bounds: { min: number; max: number; default: number }) {
  const integer = z
    .string()
    .regex(/^\d+$/, { error: `must be an integer from ${bounds.min} to ${bounds.max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(bounds.min, { error: `must be an integer from ${bounds.min} to ${bounds.max}` })
        .max(bounds.max, { error: `must be an integer from ${bounds.min} to ${bounds.max}` }),
    );
  return queryValue(integer, { type: 'integer', minimum: bounds.min, maximum: bounds.max, default: bounds.default }).default(bounds.default);
}

/** page and per_page, the same bounds on every list endpoint (§8). */
export const pageQuery = {
  page: integerParam(PAGE_BOUNDS),
  per_page: integerParam(PER_PAGE_BOUNDS),
};

export const idParam = (prefix: string) =>
  z.strictObject({ id: z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`), { error: `must be a ${prefix}_ id` }) });

export const isoTimestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' });

/** A calendar date as YYYY-MM-DD (a UTC day): the analytics windows. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as YYYY-MM-DD' })
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), {
    error: 'must be a calendar date as YYYY-MM-DD',
  });
