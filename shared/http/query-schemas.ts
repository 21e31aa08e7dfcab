import * as z from '../zod.ts';
import { SORT_ORDERS } from '../model/listing.ts';
import { PAGE_BOUNDS, PER_PAGE_BOUNDS } from '../model/pagination.ts';

// Query parameters shared by the list endpoints, apart from the path schemas (schemas.ts): only the
// functions that take them build them at cold start. Helpers used by some lists only are functions,
// so a list that does not use one builds nothing for it.

/**
 * Query values arrive as text; this records what one means (an integer, a boolean) as JSON Schema,
 * so the API description documents the parameter by its meaning rather than its spelling.
 */
export const QUERY_VALUE_META = 'x-query-value';

export function queryValue<T extends z.ZodType>(schema: T, meaning: Record<string, unknown>): T {
  return schema.meta({ [QUERY_VALUE_META]: meaning });
}

/** A value from a fixed set; the error lists the set. */
export const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of: ${values.join(', ')}` });

/** `order`, newest first unless asked otherwise. */
export const sortOrder = () => oneOf(SORT_ORDERS).default('desc');

/**
 * An integer query parameter with bounds and a default; query strings arrive as text. One transform
 * checks and converts: the same verdicts as a pattern piped into a bounded number schema, with two
 * schema kinds fewer for every list function to build and run at cold start (docs/decisions.md).
 */
export function integerParam(bounds: { min: number; max: number; default: number }) {
  const message = `must be an integer from ${bounds.min} to ${bounds.max}`;
  const integer = z.string().transform((text, context) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (value >= bounds.min && value <= bounds.max) return value;
    context.issues.push({ code: 'custom', message, input: text });
    return z.NEVER;
  });
  return queryValue(integer, { type: 'integer', minimum: bounds.min, maximum: bounds.max, default: bounds.default }).default(bounds.default);
}

/** page and per_page, the same bounds on every list endpoint (§8). */
export const pageQuery = {
  page: integerParam(PAGE_BOUNDS),
  per_page: integerParam(PER_PAGE_BOUNDS),
};
