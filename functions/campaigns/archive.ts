import { changeCampaignStatus } from '#shared/domain/campaigns/campaign-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { archivedCampaign } from '#shared/representations/campaign';

/** POST /v1/campaigns/{id}/archive (§3.1): any status but archived → archived, for good; history kept. */
export const handler = restHandler({ params: idParam('cmp') }, async ({ auth, params, now }) => {
  const campaign = await changeCampaignStatus(auth.tenant, auth.settings.plan, params.id, 'archive', now);
  return ok(archivedCampaign(campaign));
});
