import { ServiceError } from '#shared/domain/errors';
import { publicHandler } from '#shared/http/public-handler';
import { methodsForPath, type Surface } from '#shared/routes';

/** Each API's fallback knows which surfaces it fronts (set by CDK); locally one server fronts them all. */
const surfaces = process.env.API_SURFACES?.split(',') as Surface[] | undefined;

/** Catch-all behind every API: a path no route serves is 404; a known path under the wrong method is 405. */
export const handler = publicHandler(async (event) => {
  const allowed = methodsForPath(event.path, surfaces);
  if (allowed.length > 0) {
    throw new ServiceError('method_not_allowed', `${event.httpMethod} is not allowed on ${event.path}. Allowed: ${allowed.join(', ')}.`, undefined, {
      allow: allowed,
    });
  }
  throw new ServiceError('resource_not_found', `Unrecognized request URL (${event.httpMethod} ${event.path}).`);
});
