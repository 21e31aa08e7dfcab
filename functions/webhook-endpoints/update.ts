import { webhookSender } from '#shared/composition/webhook-sender';
import { updateEndpoint } from '#shared/domain/outbound-webhooks/endpoints';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { updateWebhookBody } from '#shared/http/webhook-endpoint-schemas';
import { webhookEndpointResource } from '#shared/representations/webhook-endpoint';

/** PUT /v1/webhooks/{id}: partial; enabled=true also re-enables an endpoint disabled for failing. */
export const handler = restHandler({ params: idParam('we'), body: updateWebhookBody }, async ({ auth, params, body, now }) => {
  const endpoint = await updateEndpoint({ webhookSender }, auth.tenant, params.id, body, now);
  return ok(webhookEndpointResource(endpoint, auth.tenant));
});
