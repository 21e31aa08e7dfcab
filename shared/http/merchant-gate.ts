import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate } from './authenticate.ts';
import type { ServiceContext, ServiceMiddleware } from './context.ts';
import { responseEnvelope } from './envelope.ts';
import { enforceIpAllowlist } from './ip-allowlist.ts';
import { rateLimit } from './rate-limit.ts';

/**
 * What every request to the merchant API passes before anything route-specific: request id and the
 * error envelope, the API key, the IP allowlist, then admission by the rate limit (which puts its
 * headers on the answer, §8). `beforeAdmission` runs after the allowlist and before admission.
 */
export function merchantGate(
  run: (event: APIGatewayProxyEvent, context: ServiceContext) => Promise<APIGatewayProxyResult>,
  ...beforeAdmission: ServiceMiddleware[]
) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ServiceContext>(run)
    .use(responseEnvelope())
    .use(authenticate())
    .use(enforceIpAllowlist())
    .use(beforeAdmission)
    .use(rateLimit());
}
