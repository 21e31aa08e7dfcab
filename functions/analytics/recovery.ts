import * as z from '#shared/zod';
import { INTERVALS, recoveryAnalytics } from '#shared/domain/analytics/recovery-analytics';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { analyticsRange } from '#shared/http/time-schemas';

const query = z.strictObject({
  ...analyticsRange,
  interval: z.enum(INTERVALS, { error: `must be one of: ${INTERVALS.join(', ')}` }).default('day'),
  psp: z.string().regex(/^[a-z][a-z0-9_-]{1,31}$/, { error: 'must be a processor name: lowercase letters, digits, - and _' }).optional(),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 code' })
    .transform((code) => code.toLowerCase())
    .optional(),
});

/** GET /v1/analytics/recovery: failure-cohort counters over [from, to] (UTC days, inclusive; the last 30 days by default), per currency. */
export const handler = restHandler({ query }, async ({ auth, query, now }) => ok(await recoveryAnalytics(auth.tenant, query, now)));
