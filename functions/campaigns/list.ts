import * as z from '#shared/zod';
import { listCampaigns } from '#shared/domain/campaigns/campaign-lifecycle';
import { CAMPAIGN_SORTS, CAMPAIGN_STATUSES, CAMPAIGN_TRIGGERS } from '#shared/model/campaign';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { campaignListItem } from '#shared/representations/campaign';

const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.join(', ')}` });

const query = z.strictObject({
  status: z.enum(CAMPAIGN_STATUSES, oneOf(CAMPAIGN_STATUSES)).optional(),
  trigger: z.enum(CAMPAIGN_TRIGGERS, oneOf(CAMPAIGN_TRIGGERS)).optional(),
  sort: z.enum(CAMPAIGN_SORTS, oneOf(CAMPAIGN_SORTS)).default('created_at'),
  order: z.enum(['asc', 'desc'], oneOf(['asc', 'desc'])).default('desc'),
  ...pageQuery,
});

/** GET /v1/campaigns (§4.1): filtered by status and trigger, sorted, a page at a time. */
export const handler = restHandler({ query }, async ({ auth, query }) => {
  const campaigns = await listCampaigns(auth.tenant, { status: query.status, trigger: query.trigger }, query.sort, query.order);
  return pageOf(slicePage(campaigns, query).map(campaignListItem), campaigns.length, query);
});
