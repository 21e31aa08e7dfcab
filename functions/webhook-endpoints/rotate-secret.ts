import { rotateEndpointSecret } from '#shared/domain/outbound-webhooks/endpoints';
import { restHandler } from '#shared/http/rest-handler';
import { ok, showingSecret } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { webhookEndpointResource } from '#shared/representations/webhook-endpoint';

/** POST /v1/webhooks/{id}/rotate-secret: a new secret, returned once; deliveries carry both signatures for 24 h. */
export const handler = restHandler({ params: idParam('we') }, async ({ auth, params, now }) => {
  const { endpoint, secret } = await rotateEndpointSecret(auth.tenant, params.id, now);
  return showingSecret(ok({ ...webhookEndpointResource(endpoint, auth.tenant), secret }));
});
