import { createCampaign } from '#shared/domain/campaigns/campaign-lifecycle';
import { createCampaignBody } from '#shared/http/campaign-schemas';
import { restHandler } from '#shared/http/rest-handler';
import { created } from '#shared/http/responses';
import { createdCampaign } from '#shared/representations/campaign';

/** POST /v1/campaigns (§3.1): a draft, to be activated separately; counts toward the plan's campaign limit. */
export const handler = restHandler({ body: createCampaignBody }, async ({ auth, body, now }) => {
  const campaign = await createCampaign(auth.tenant, auth.settings.plan, body, now);
  return created(createdCampaign(campaign));
});
