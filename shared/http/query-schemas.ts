import * as z from '../zod.ts';
import { PAGE_BOUNDS, PER_PAGE_BOUNDS } from '../domain/pagination.ts';

// Query parameters shared by the list endpoints, apart from the path schemas (schemas.ts): only the
// functions that take them build them at cold start.

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
