import { updateCampaign } from '#shared/domain/campaigns/campaign-lifecycle';
import { updateCampaignBody } from '#shared/http/campaign-schemas';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { updatedCampaign } from '#shared/representations/campaign';

/** PUT /v1/campaigns/{id} (§4.1): partial; a new definition version that only later enrollments use (§3.1). */
export const handler = restHandler({ params: idParam('cmp'), body: updateCampaignBody }, async ({ auth, params, body, now }) => {
  const campaign = await updateCampaign(auth.tenant, params.id, body, now);
  return ok(updatedCampaign(campaign));
});
