import { getCampaign } from '#shared/domain/campaigns/campaign-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { campaignResource } from '#shared/representations/campaign';

/** GET /v1/campaigns/{id} (§4.1): every field, with steps, conditions, quiet hours and stats. */
export const handler = restHandler({ params: idParam('cmp') }, async ({ auth, params }) => {
  return ok(campaignResource(await getCampaign(auth.tenant, params.id)));
});
