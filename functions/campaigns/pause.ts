import { changeCampaignStatus } from '#shared/domain/campaigns/campaign-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { pausedCampaign } from '#shared/representations/campaign';

/** POST /v1/campaigns/{id}/pause (§3.1): active → paused; no new enrollments, due messages held. */
export const handler = restHandler({ params: idParam('cmp') }, async ({ auth, params, now }) => {
  const campaign = await changeCampaignStatus(auth.tenant, auth.settings.plan, params.id, 'pause', now);
  return ok(pausedCampaign(campaign));
});
