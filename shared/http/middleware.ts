import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** One invocation as the middleware sees it; `response` and `error` are filled in on the way. */
export interface MiddlewareRequest<C extends Context> {
  event: APIGatewayProxyEvent;
  context: C;
  response?: APIGatewayProxyResult;
  error?: unknown;
}

/** A step may answer in place of what follows it by returning a response. */
type Step<C extends Context> = (request: MiddlewareRequest<C>) => Promise<APIGatewayProxyResult | void> | APIGatewayProxyResult | void;

export interface Middleware<C extends Context> {
  before?: Step<C>;
  after?: Step<C>;
  onError?: Step<C>;
}

/** Runs the steps in order until one answers; its answer becomes the response. */
async function answered<C extends Context>(steps: readonly Step<C>[], request: MiddlewareRequest<C>): Promise<boolean> {
  for (const step of steps) {
    const response = await step(request);
    if (response !== undefined) {
      request.response = response;
      return true;
    }
  }
  return false;
}

/**
 * A handler inside its middleware, outermost first, with middy's order (which this replaces: middy
 * imports Node's web-stream modules for response streaming we never use, 4-5 ms of every cold start;
 * docs/decisions.md, "Bundles and cold start"): every `before` in order, and one that answers skips the
 * rest, the handler and every `after`; then each `after` in reverse order; on an error anywhere, each
 * `onError` in reverse order until one sets the response, and with none set the error propagates.
 */
export function withMiddleware<C extends Context>(
  handler: (event: APIGatewayProxyEvent, context: C) => Promise<APIGatewayProxyResult>,
  middleware: readonly Middleware<C>[],
): (event: APIGatewayProxyEvent, context: C) => Promise<APIGatewayProxyResult> {
  const before = middleware.flatMap((layer) => (layer.before ? [layer.before] : []));
  const after = middleware.flatMap((layer) => (layer.after ? [layer.after] : [])).reverse();
  const onError = middleware.flatMap((layer) => (layer.onError ? [layer.onError] : [])).reverse();
  return async (event, context) => {
    const request: MiddlewareRequest<C> = { event, context };
    try {
      if (!(await answered(before, request))) {
        request.response = await handler(event, context);
        await answered(after, request);
      }
    } catch (error) {
      request.response = undefined;
      request.error = error;
      await answered(onError, request);
      if (request.response === undefined) throw error;
    }
    return request.response!;
  };
}
