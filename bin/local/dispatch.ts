import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { withLogScope } from '../../shared/log.ts';
import { FALLBACK_HANDLER, matchRoute, methodsForPath, type RouteMatch } from '../../shared/routes.ts';
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
 * CORS preflight on the edge API is answered by the edge functions themselves (the allowed origins
 * are per merchant): an OPTIONS request goes to the function of the edge route at that path, with
 * its method left as OPTIONS, as the stack routes it in AWS (docs/decisions.md, "Cancel flows").
 */
function preflightMatch(request: HttpRequest): RouteMatch | undefined {
  if (request.method !== 'OPTIONS') return undefined;
  const matches = methodsForPath(request.path, ['edge']).flatMap((method) => matchRoute(method, request.path) ?? []);
  // The most specific resource, as API Gateway picks it (`/start` before `/{token}`).
  return matches.sort((a, b) => Object.keys(a.pathParameters).length - Object.keys(b.pathParameters).length)[0];
}

/**
 * Runs one HTTP request through the route table and the route's Lambda handler, translating to and
 * from API Gateway's proxy format. Unmatched requests go to the same fallback function as in AWS.
 */
export async function dispatch(request: HttpRequest): Promise<HttpResponse> {
  const match = matchRoute(request.method, request.path) ?? preflightMatch(request);
  const name = match?.route.handler ?? FALLBACK_HANDLER;
  const event = toLambdaEvent(request, match?.route.path ?? '/{proxy+}', match?.pathParameters ?? null);
  const handler = await load(name);
  const result = await withLogScope(() => handler(event, lambdaContext(name)));
  return fromLambdaResult(result);
}
