import { deliveriesOf } from '#shared/domain/webhooks';
import { slicePage } from '#shared/domain/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { deliveryListQuery, webhookIdParam } from '#shared/http/webhook-endpoint-schemas';
import { webhookDeliveryResource } from '#shared/representations/webhook-endpoint';

/** GET /v1/webhooks/{id}/deliveries: the last 30 days of deliveries, newest event first. */
export const handler = restHandler({ params: webhookIdParam, query: deliveryListQuery }, async ({ auth, params, query, now }) => {
  const deliveries = (await deliveriesOf(auth.tenant, params.id, now)).filter((delivery) => !query.status || delivery.status === query.status);
  return pageOf(slicePage(deliveries, query).map(webhookDeliveryResource), deliveries.length, query);
});
