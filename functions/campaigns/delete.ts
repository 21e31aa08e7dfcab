import { deleteCampaign } from '#shared/domain/campaigns/campaign-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { deletedCampaign } from '#shared/representations/campaign';

/** DELETE /v1/campaigns/{id}: drafts only, removed for good; a campaign that ever ran is archived instead (409). */
export const handler = restHandler({ params: idParam('cmp') }, async ({ auth, params }) => {
  await deleteCampaign(auth.tenant, params.id);
  return ok(deletedCampaign(params.id));
});
