import * as z from '#shared/zod';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { idParam } from '#shared/http/schemas';
import { webhookDeliveryResource } from '#shared/representations/webhook-endpoint';
import { deliveriesOf } from '#shared/domain/outbound-webhooks/delivery';

const deliveryFilter = z.strictObject({
  status: z.enum(['pending', 'succeeded', 'failed'], { error: 'must be one of: pending, succeeded, failed' }).optional(),
  ...pageQuery,
});

/** GET /v1/webhooks/{id}/deliveries: the last 30 days of deliveries, newest event first. */
export const handler = restHandler({ params: idParam('we'), query: deliveryFilter }, async ({ auth, params, query, now }) => {
  const deliveries = (await deliveriesOf(auth.tenant, params.id, now)).filter((delivery) => !query.status || delivery.status === query.status);
  return pageOf(slicePage(deliveries, query).map(webhookDeliveryResource), deliveries.length, query);
});
