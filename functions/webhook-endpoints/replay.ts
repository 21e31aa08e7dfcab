import * as z from '#shared/zod';
import { scheduler } from '#shared/composition/scheduler';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { pathId } from '#shared/http/schemas';
import { webhookDeliveryResource } from '#shared/representations/webhook-endpoint';
import { replayDelivery } from '#shared/domain/outbound-webhooks/delivery';

const deliveryPath = z.strictObject({ id: pathId('we'), delivery_id: pathId('whd') });

/** POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay: one more attempt, queued now. */
export const handler = restHandler({ params: deliveryPath }, async ({ auth, params, now }) => {
  const delivery = await replayDelivery({ scheduler }, auth.tenant, params.id, params.delivery_id, now);
  return ok(webhookDeliveryResource(delivery));
});
