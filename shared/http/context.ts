import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { MiddlewareObj } from '@middy/core';
import type { WindowState } from '../model/sliding-window.ts';
import type { KeyGrant } from '../model/api-key.ts';

/** What the middleware learns about a request and hands on to later middleware and the handler. */
export interface ServiceContext extends Context {
  requestId: string;
  startedAt: number;
  auth?: KeyGrant;
  rateWindow?: WindowState;
  /** A read's admission, running beside its action (shared/http/rate-limit.ts). */
  pendingAdmission?: Promise<void>;
  /** Work without effects a write does while its admission is in flight: the request's validation (rest-handler.ts). */
  whileAdmitting?: () => void;
  /** A stored response to send instead of running the handler (idempotent replay). */
  replay?: APIGatewayProxyResult;
  /** The response shows a secret once: its idempotency record keeps it sealed (sealed-response.ts). */
  showsSecret?: boolean;
}

export type ServiceMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ServiceContext>;

export function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

/**
 * The caller's address as API Gateway saw the connection (requestContext.identity.sourceIp), never a
 * header such as X-Forwarded-For, which the caller writes.
 */
export function sourceIpOf(event: APIGatewayProxyEvent): string | undefined {
  return event.requestContext?.identity?.sourceIp ?? undefined;
}

export function requireAuth(context: ServiceContext): KeyGrant {
  if (!context.auth) throw new Error('Authentication middleware did not run before a middleware that needs it');
  return context.auth;
}
