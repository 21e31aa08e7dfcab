import { randomUUID } from 'node:crypto';
import { setLogContext, log } from '../log.ts';
import { monotonicMs } from '../ports/clock.ts';
import { errorResult } from './errors.ts';
import type { ServiceContext, ServiceMiddleware } from './context.ts';
import type { APIGatewayProxyResult } from 'aws-lambda';

function decorate(response: APIGatewayProxyResult, context: ServiceContext): void {
  response.headers = { ...response.headers, 'X-Request-Id': context.requestId };
  const window = context.rateWindow;
  if (window) {
    response.headers['X-RateLimit-Limit'] = String(window.limit);
    response.headers['X-RateLimit-Remaining'] = String(window.remaining);
    response.headers['X-RateLimit-Reset'] = String(window.resetAt);
  }
}

function finish(response: APIGatewayProxyResult, context: ServiceContext): void {
  decorate(response, context);
  log.info('request completed', { status: response.statusCode, duration_ms: Math.round(monotonicMs() - context.startedAt) });
}

/**
 * Outermost middleware: gives every request an id, turns any error into the §7 envelope, and puts
 * X-Request-Id and the rate-limit headers on every response, errors included.
 */
export function responseEnvelope(): ServiceMiddleware {
  return {
    before: (request) => {
      const { event, context } = request;
      context.startedAt = monotonicMs();
      context.requestId = event.requestContext?.requestId || context.awsRequestId || randomUUID();
      setLogContext({ request_id: context.requestId, route: `${event.httpMethod} ${event.resource}` });
    },
    after: (request) => {
      if (request.response) finish(request.response, request.context);
    },
    onError: (request) => {
      const response = request.response ?? errorResult(request.error, request.context.requestId);
      request.response = response;
      finish(response, request.context);
    },
  };
}
