import * as z from '#shared/zod';
import { listKeys } from '#shared/domain/access/api-key-lifecycle';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { apiKeyResource } from '#shared/representations/api-key';

const query = z.strictObject({ ...pageQuery });

/** GET /v1/api-keys: the caller's environment's keys, newest first. */
export const handler = restHandler({ query }, async ({ auth, query, now }) => {
  const keys = await listKeys(auth.tenant);
  return pageOf(slicePage(keys, query).map((key) => apiKeyResource(key, now)), keys.length, query);
});
