import { webhookSender } from '#shared/composition/webhook-sender';
import { createEndpoint } from '#shared/domain/outbound-webhooks/endpoints';
import { restHandler } from '#shared/http/rest-handler';
import { created, showingSecret } from '#shared/http/responses';
import { createWebhookBody } from '#shared/http/webhook-endpoint-schemas';
import { webhookEndpointResource } from '#shared/representations/webhook-endpoint';

/** POST /v1/webhooks: a new endpoint; its signing secret is in this response only. */
export const handler = restHandler({ body: createWebhookBody }, async ({ auth, body, now }) => {
  const { endpoint, secret } = await createEndpoint({ webhookSender }, auth.tenant, body, now);
  return showingSecret(created({ ...webhookEndpointResource(endpoint, auth.tenant), secret }));
});
