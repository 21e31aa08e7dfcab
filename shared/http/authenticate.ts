import type { APIGatewayProxyEvent } from 'aws-lambda';
import { runtime } from '../runtime.ts';
import { hashKey, parseKeyShape } from '../model/api-key.ts';
import { invalidApiKey } from '../model/errors.ts';
import { setLogContext } from '../log.ts';
import { findGrant } from '../store/api-keys.ts';
import { header, type ServiceMiddleware } from './context.ts';

/** The API key a request presents (`Authorization: Bearer <key>`), or undefined when the header is missing or malformed. */
export function presentedKey(event: APIGatewayProxyEvent): string | undefined {
  const authorization = header(event, 'authorization');
  return authorization === undefined ? undefined : /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
}

/** §5: the API key identifies merchant, environment and scopes; every failure is the same 401. */
export function authenticate(): ServiceMiddleware {
  return {
    before: async (request) => {
      if (header(request.event, 'authorization') === undefined) {
        throw invalidApiKey('No API key provided. Send it in the Authorization header as: Bearer <API_KEY>.');
      }
      const presented = presentedKey(request.event);
      if (presented === undefined) throw invalidApiKey('Malformed Authorization header. Expected: Bearer <API_KEY>.');
      const shape = parseKeyShape(presented);
      if (!shape) throw invalidApiKey();
      const grant = await findGrant(hashKey(presented));
      if (!grant) throw invalidApiKey();
      // The prefix must agree with the record: a key cannot be re-labelled into another environment or kind.
      if (grant.kind !== shape.kind || (shape.environment !== undefined && shape.environment !== grant.tenant.environment)) {
        throw invalidApiKey();
      }
      if (grant.valid_until !== null && grant.valid_until <= runtime.clock.now().toISOString()) {
        throw invalidApiKey('This API key has expired.');
      }
      request.context.auth = grant;
      setLogContext({
        request_id: request.context.requestId,
        route: `${request.event.httpMethod} ${request.event.resource}`,
        merchant_id: grant.tenant.merchantId,
        environment: grant.tenant.environment,
      });
    },
  };
}
