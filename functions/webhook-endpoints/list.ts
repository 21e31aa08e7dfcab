import * as z from '#shared/zod';
import { endpointsOf } from '#shared/domain/outbound-webhooks/endpoints';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { webhookEndpointResource } from '#shared/representations/webhook-endpoint';

/** GET /v1/webhooks: the mode's outbound endpoints, newest first. */
export const handler = restHandler({ query: z.strictObject({ ...pageQuery }) }, async ({ auth, query }) => {
  const endpoints = await endpointsOf(auth.tenant);
  return pageOf(slicePage(endpoints, query).map((endpoint) => webhookEndpointResource(endpoint, auth.tenant)), endpoints.length, query);
});
