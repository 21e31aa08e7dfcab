import { getEndpoint } from '#shared/domain/outbound-webhooks/endpoints';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { webhookEndpointResource } from '#shared/representations/webhook-endpoint';

/** GET /v1/webhooks/{id}: one endpoint, as the list shows it (not in §4's table; Stripe has it, and merchants look one up). */
export const handler = restHandler({ params: idParam('we') }, async ({ auth, params }) => {
  return ok(webhookEndpointResource(await getEndpoint(auth.tenant, params.id), auth.tenant));
});
