import { changeCampaignStatus } from '#shared/domain/campaigns/campaign-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { activatedCampaign } from '#shared/representations/campaign';

/** POST /v1/campaigns/{id}/activate (§3.1): draft or paused → active, within the plan's active-campaign limit. */
export const handler = restHandler({ params: idParam('cmp') }, async ({ auth, params, now }) => {
  const campaign = await changeCampaignStatus(auth.tenant, auth.settings.plan, params.id, 'activate', now);
  return ok(activatedCampaign(campaign));
});
