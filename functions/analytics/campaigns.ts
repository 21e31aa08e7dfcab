import * as z from '#shared/zod';
import { campaignAnalytics } from '#shared/domain/analytics/campaign-analytics';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { analyticsRange } from '#shared/http/time-schemas';

const query = z.strictObject(analyticsRange);

/** GET /v1/analytics/campaigns: per campaign, the enrollment cohorts of [from, to] (UTC days, inclusive; the last 30 days by default). */
export const handler = restHandler({ query }, async ({ auth, query, now }) => ok(await campaignAnalytics(auth.tenant, query, now)));
