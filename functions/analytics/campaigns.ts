import * as z from '#shared/zod';
import { campaignAnalytics } from '#shared/domain/analytics/campaign-analytics';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { isoDate } from '#shared/http/time-schemas';

const query = z.strictObject({ from: isoDate, to: isoDate });

/** GET /v1/analytics/campaigns: per campaign, the enrollment cohorts of [from, to] (UTC days, inclusive). */
export const handler = restHandler({ query }, async ({ auth, query }) => ok(await campaignAnalytics(auth.tenant, query)));
