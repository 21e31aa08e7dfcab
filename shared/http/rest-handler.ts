import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from '../zod.ts';
import { runtime } from '../runtime.ts';
import { authorize } from './authorize.ts';
import { header, requireAuth, type ServiceContext, type ServiceMiddleware } from './context.ts';
import { withContract } from './contract.ts';
import { idempotency } from './idempotency.ts';
import { merchantGate } from './merchant-gate.ts';
import { invalidRequest } from '../model/errors.ts';
import { parseInput, parseJsonBody } from './parse.ts';
import { jsonResult, type Reply } from './responses.ts';
import type { KeyGrant } from '../model/api-key.ts';

export interface RestInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: KeyGrant;
  now: Date;
  requestId: string;
  /** The request's Idempotency-Key, when it sent one: an action whose effect outlives a failed answer marks it with the key. */
  idempotencyKey: string | undefined;
}

export interface RestSchemas<P, Q, B> {
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** When the body's schema depends on a path parameter: the ones the action chooses from (API description only). */
  bodyVariants?: readonly z.ZodType[];
}

const nothing = z.strictObject({});

/** Runs `compute` now; the returned function gives its value or throws its error when called. */
function settled<T>(compute: () => T): () => T {
  try {
    const value = compute();
    return () => value;
  } catch (error) {
    return () => {
      throw error;
    };
  }
}

/** Strict query strings: a parameter sent twice is refused, not silently taken at its last value. */
function singleValuedQuery(event: APIGatewayProxyEvent): Record<string, string | undefined> {
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {}).find(([, values]) => (values?.length ?? 0) > 1);
  if (repeated) throw invalidRequest(`Received more than one value for query parameter: ${repeated[0]}`, repeated[0]);
  return event.queryStringParameters ?? {};
}

/**
 * A merchant REST endpoint: the standard middleware stack (envelope, API key, IP allowlist, rate
 * limit, scope and trial, idempotency), then the endpoint's own zod schemas, then its one action.
 * A write's schemas are checked while its admission is in flight and their verdict is given in the
 * same place as a read's, so what a request is told first does not change.
 */
export function restHandler<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(
  schemas: RestSchemas<P, Q, B>,
  action: (input: RestInput<P, Q, B>) => Promise<Reply>,
) {
  const parseRequest = (event: APIGatewayProxyEvent) => {
    const params = parseInput((schemas.params ?? nothing) as z.ZodType<P>, event.pathParameters ?? {}, 'path');
    const query = parseInput((schemas.query ?? nothing) as z.ZodType<Q>, singleValuedQuery(event), 'query');
    const rawBody = parseJsonBody(event.body, event.isBase64Encoded, header(event, 'content-type'));
    const body = parseInput((schemas.body ?? nothing) as z.ZodType<B>, rawBody, 'body');
    return { params, query, body };
  };
  /** A write's request validated while its admission was in flight; its error is thrown where it would have been. */
  const validatedEarly = new WeakMap<ServiceContext, () => ReturnType<typeof parseRequest>>();
  const validateWhileAdmitting: ServiceMiddleware = {
    before: ({ event, context }) => {
      // Per request, even where a context object outlives one (nothing of an earlier request is reused).
      validatedEarly.delete(context);
      context.whileAdmitting = () => validatedEarly.set(context, settled(() => parseRequest(event)));
    },
  };
  const run = async (event: APIGatewayProxyEvent, context: ServiceContext): Promise<APIGatewayProxyResult> => {
    if (context.replay) return context.replay;
    const early = validatedEarly.get(context);
    const { params, query, body } = early ? early() : parseRequest(event);
    const reply = await action({
      params,
      query,
      body,
      auth: requireAuth(context),
      now: runtime.clock.now(),
      requestId: context.requestId,
      idempotencyKey: header(event, 'idempotency-key'),
    });
    context.showsSecret = reply.showsSecret === true;
    return jsonResult(reply.status, reply.body, reply.headers);
  };
  const handler = merchantGate(run, validateWhileAdmitting).use(authorize()).use(idempotency());
  const { params, query, body, bodyVariants } = schemas;
  return withContract(handler, { surface: 'rest', params, query, body, bodyVariants });
}
