import { endpointsOf } from '#shared/domain/webhooks';
import { slicePage } from '#shared/domain/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { webhookListQuery } from '#shared/http/webhook-endpoint-schemas';
import { webhookEndpointResource } from '#shared/representations/webhook-endpoint';

/** GET /v1/webhooks: the mode's outbound endpoints, newest first. */
export const handler = restHandler({ query: webhookListQuery }, async ({ auth, query }) => {
  const endpoints = await endpointsOf(auth.tenant);
  return pageOf(slicePage(endpoints, query).map((endpoint) => webhookEndpointResource(endpoint, auth.tenant)), endpoints.length, query);
});
