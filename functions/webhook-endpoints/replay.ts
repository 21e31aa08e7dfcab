import { scheduler } from '#shared/adapters/scheduler';
import { replayDelivery } from '#shared/domain/webhooks';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { deliveryParams } from '#shared/http/webhook-endpoint-schemas';
import { webhookDeliveryResource } from '#shared/representations/webhook-endpoint';

/** POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay: one more attempt, queued now. */
export const handler = restHandler({ params: deliveryParams }, async ({ auth, params, now }) => {
  const delivery = await replayDelivery({ scheduler }, auth.tenant, params.id, params.delivery_id, now);
  return ok(webhookDeliveryResource(delivery));
});
