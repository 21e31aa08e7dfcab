import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from '../zod.ts';
import { runtime } from '../runtime.ts';
import { invalidRequest, ServiceError } from '../model/errors.ts';
import { describeError, log } from '../log.ts';
import { ROUTES } from '../routes.ts';
import { header, sourceIpOf, type ServiceContext, type ServiceMiddleware } from './context.ts';
import { withContract, type RequestContract } from './contract.ts';
import { originAllowedFor, originAllowedForSomeMerchant } from './cors.ts';
import { responseEnvelope } from './envelope.ts';
import { parseInput, parseJsonBody } from './parse.ts';
import { jsonResult } from './responses.ts';
import { pathText } from './schemas.ts';

/**
 * A cancel-session endpoint (the edge surface, §4.5): no API key, the session token in the path is
 * the credential (§5 rule 6); a start is signed by the merchant's server instead (auth_hash). Errors
 * use the REST envelope {error: {code, message, param?, request_id}}, and every input problem is 400
 * invalid_request with `param`, since §4.5 gives these endpoints 400 and 404 for input; a start may
 * also answer 401 invalid_signature and 429. CORS is answered here, preflight included (docs/decisions.md).
 */
export interface EdgeInput<P, B> {
  params: P;
  body: B;
  now: Date;
  requestId: string;
  /** The caller's address as the gateway saw it (sourceIpOf), for limits per caller. */
  clientIp: string | undefined;
}

export interface EdgeReply {
  status: number;
  body: unknown;
  /** The merchant's own allowed origins, once the response is about one of its sessions. */
  corsOrigins?: readonly string[];
}

export interface EdgeSchemas<P, B> {
  params?: z.ZodType<P>;
  body?: z.ZodType<B>;
  /** Error statuses the action answers beyond 400 and 404 (API description only). */
  alsoAnswers?: RequestContract['alsoAnswers'];
}

interface EdgeContext extends ServiceContext {
  corsOrigins?: readonly string[];
}

type EdgeMiddleware = ServiceMiddleware & middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EdgeContext>;

const nothing = z.strictObject({});

/** Browsers cache a preflight answer this long (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 3600;

/** §4.5's statuses only: an input the merchant API would answer 422 is a 400 here. */
function asEdgeInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'validation_error') throw invalidRequest(error.message, error.param);
    throw error;
  }
}

/** The methods of this resource (`/api/cancel-session/start` is not `/{token}`, although the pattern would match). */
function methodsOf(resource: string): string[] {
  return ROUTES.filter((route) => route.surface === 'edge' && route.path === resource).map((route) => route.method);
}

function allowOrigin(response: APIGatewayProxyResult, origin: string | undefined, allowed: boolean): void {
  response.headers = { ...response.headers, Vary: 'Origin' };
  if (origin !== undefined && allowed) {
    response.headers['Access-Control-Allow-Origin'] = origin;
    response.headers['Access-Control-Expose-Headers'] = 'X-Request-Id';
  }
}

/**
 * Preflight (OPTIONS) is answered before anything else; every other response gets
 * Access-Control-Allow-Origin only for an allowed origin. Used outside the envelope, so it sees the
 * error responses the envelope makes.
 */
function edgeCors(): EdgeMiddleware {
  const decorate = async (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EdgeContext>) => {
    const response = request.response;
    if (!response) return;
    const origin = header(request.event, 'origin');
    const merchantOrigins = request.context.corsOrigins;
    let allowed = false;
    try {
      allowed = origin !== undefined && (merchantOrigins ? originAllowedFor(origin, merchantOrigins) : await originAllowedForSomeMerchant(origin));
    } catch (error) {
      // The answer itself (often an error already) matters more than letting the browser read it.
      log.error('could not check the origin registry for CORS', describeError(error));
    }
    allowOrigin(response, origin, allowed);
  };
  return {
    before: async (request) => {
      if (request.event.httpMethod !== 'OPTIONS') return undefined;
      const origin = header(request.event, 'origin');
      const response: APIGatewayProxyResult = { statusCode: 204, headers: {}, body: '' };
      const allowed = origin !== undefined && (await originAllowedForSomeMerchant(origin));
      allowOrigin(response, origin, allowed);
      if (allowed) {
        response.headers!['Access-Control-Allow-Methods'] = [...methodsOf(request.event.resource), 'OPTIONS'].join(', ');
        response.headers!['Access-Control-Allow-Headers'] = 'Content-Type';
        response.headers!['Access-Control-Max-Age'] = String(PREFLIGHT_MAX_AGE_SECONDS);
      }
      return response;
    },
    after: decorate,
    onError: decorate,
  };
}

export function edgeHandler<P = Record<string, never>, B = Record<string, never>>(
  schemas: EdgeSchemas<P, B>,
  action: (input: EdgeInput<P, B>) => Promise<EdgeReply>,
) {
  const run = async (event: APIGatewayProxyEvent, context: EdgeContext): Promise<APIGatewayProxyResult> => {
    const params = asEdgeInput(() => parseInput((schemas.params ?? nothing) as z.ZodType<P>, event.pathParameters ?? {}, 'path'));
    const rawBody = asEdgeInput(() => parseJsonBody(event.body, event.isBase64Encoded, header(event, 'content-type')));
    const body = asEdgeInput(() => parseInput((schemas.body ?? nothing) as z.ZodType<B>, rawBody, 'body'));
    const reply = await action({ params, body, now: runtime.clock.now(), requestId: context.requestId, clientIp: sourceIpOf(event) });
    context.corsOrigins = reply.corsOrigins;
    return jsonResult(reply.status, reply.body);
  };
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EdgeContext>(run)
    .use(edgeCors())
    .use(responseEnvelope() as EdgeMiddleware);
  return withContract(handler, { surface: 'edge', params: schemas.params, body: schemas.body, alsoAnswers: schemas.alsoAnswers });
}

/** The token path parameter: any text a lookup could take (a malformed token is a 404, decided by the domain). */
export const tokenParam = z.strictObject({ token: pathText() });
