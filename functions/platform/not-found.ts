import { ServiceError } from '#shared/domain/errors';
import { publicHandler } from '#shared/http/public-handler';
import { methodsForPath } from '#shared/routes';

/** Catch-all behind every API: a path no route serves is 404; a known path under the wrong method is 405. */
export const handler = publicHandler(async (event) => {
  const allowed = methodsForPath(event.path);
  if (allowed.length > 0) {
    throw new ServiceError('method_not_allowed', `${event.httpMethod} is not allowed on ${event.path}. Allowed: ${allowed.join(', ')}.`, undefined, {
      allow: allowed,
    });
  }
  throw new ServiceError('resource_not_found', `Unrecognized request URL (${event.httpMethod} ${event.path}).`);
});
