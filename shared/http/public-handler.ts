import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ServiceContext } from './context.ts';
import { responseEnvelope } from './envelope.ts';

/** An endpoint without an API key (edge, processor webhooks, the fallback outside /v1): request id and the error envelope only. */
export function publicHandler(action: (event: APIGatewayProxyEvent, context: ServiceContext) => Promise<APIGatewayProxyResult>) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ServiceContext>(action).use(responseEnvelope());
}
