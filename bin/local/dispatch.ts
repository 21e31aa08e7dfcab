import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { withLogScope } from '../../shared/log.ts';
import { FALLBACK_HANDLER, matchRoute } from '../../shared/routes.ts';
import { fromLambdaResult, lambdaContext, toLambdaEvent, type HttpRequest, type HttpResponse } from './lambda-event.ts';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const loaded = new Map<string, Promise<ProxyHandler>>();

/** Imports a route's handler module once, exactly as its Lambda would load it. */
function load(name: string): Promise<ProxyHandler> {
  let handler = loaded.get(name);
  if (!handler) {
    handler = import(new URL(`../../functions/${name}.ts`, import.meta.url).href).then((module) => module.handler as ProxyHandler);
    loaded.set(name, handler);
  }
  return handler;
}

/**
 * Runs one HTTP request through the route table and the route's Lambda handler, translating to and
 * from API Gateway's proxy format. Unmatched requests go to the same fallback function as in AWS.
 */
export async function dispatch(request: HttpRequest): Promise<HttpResponse> {
  const match = matchRoute(request.method, request.path);
  const name = match?.route.handler ?? FALLBACK_HANDLER;
  const event = toLambdaEvent(request, match?.route.path ?? '/{proxy+}', match?.pathParameters ?? null);
  const handler = await load(name);
  const result = await withLogScope(() => handler(event, lambdaContext(name)));
  return fromLambdaResult(result);
}
