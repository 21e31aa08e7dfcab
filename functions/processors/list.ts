import * as z from '#shared/zod';
import { listProcessorConnections } from '#shared/domain/ingestion/processor-setup';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { apiBaseUrl } from '#shared/public-url';
import { processorConnectionResource } from '#shared/representations/processor-connection';

const query = z.strictObject({ ...pageQuery });

/** GET /v1/processors: the environment's processor connections and their webhook URLs. */
export const handler = restHandler({ query }, async ({ auth, query }) => {
  const connections = await listProcessorConnections(auth.tenant);
  return pageOf(slicePage(connections, query).map((c) => processorConnectionResource(c, apiBaseUrl)), connections.length, query);
});
