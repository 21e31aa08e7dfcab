import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ServiceError } from '#shared/model/errors';
import { merchantGate } from '#shared/http/merchant-gate';
import { publicHandler } from '#shared/http/public-handler';
import { methodsForPath, type Surface } from '#shared/routes';

/** Each API's fallback knows which surfaces it fronts (set by CDK); locally one server fronts them all. */
const surfaces = process.env.API_SURFACES?.split(',') as Surface[] | undefined;

/** A path no route serves is 404; a known path under the wrong method is 405. */
async function unserved(event: APIGatewayProxyEvent): Promise<never> {
  const allowed = methodsForPath(event.path, surfaces);
  if (allowed.length > 0) {
    throw new ServiceError('method_not_allowed', `${event.httpMethod} is not allowed on ${event.path}. Allowed: ${allowed.join(', ')}.`, undefined, {
      allow: allowed,
    });
  }
  throw new ServiceError('resource_not_found', `Unrecognized request URL (${event.httpMethod} ${event.path}).`);
}

/**
 * Under /v1 a request is the merchant API's even when no route serves it: its key is checked and it
 * is counted like any other, so it carries the rate-limit headers every REST response has (§8).
 */
const merchantApi = merchantGate(unserved);
const elsewhere = publicHandler(unserved);
const servesMerchantApi = !surfaces || surfaces.includes('rest');

/** Catch-all behind every API. */
export const handler = (...[event, context]: Parameters<typeof elsewhere>) =>
  servesMerchantApi && /^\/v1(\/|$)/.test(event.path) ? merchantApi(event, context) : elsewhere(event, context);
