import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from '../zod.ts';
import { runtime } from '../runtime.ts';
import { describeError, log } from '../log.ts';
import { ServiceError } from '../model/errors.ts';
import { LinkUnusable } from '../domain/card-updates/update-links.ts';
import { newNonce } from '../pages/html.ts';
import { problemPage, unusableLinkPage, type RenderedPage } from '../pages/card-update-page.ts';
import { header, sourceIpOf } from './context.ts';
import { withContract } from './contract.ts';
import { publicHandler } from './public-handler.ts';
import { parseInput } from './parse.ts';
import { pathText } from './schemas.ts';

/**
 * A page of the edge API for a customer's browser (the card-update page): HTML, never JSON, errors
 * included. An unknown or expired link is a friendly 404 page, too many requests a 429 page with
 * Retry-After, anything unexpected a 500 page; every answer carries its page's Content-Security-Policy
 * and is never cached (it shows what the customer owes).
 */
export interface PageInput<P, F, Q> {
  params: P;
  form: F;
  query: Q;
  now: Date;
  clientIp: string | undefined;
  nonce: string;
}

export type PageReply = { status: number; page: RenderedPage } | { status: 303; location: string };

export interface PageSchemas<P, F, Q> {
  params: z.ZodType<P>;
  /** The posted form (application/x-www-form-urlencoded), on POST pages. */
  form?: z.ZodType<F>;
  query?: z.ZodType<Q>;
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function htmlResult(status: number, page: RenderedPage, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': page.contentSecurityPolicy, ...SECURITY_HEADERS, ...headers },
    body: page.html,
  };
}

function errorPage(error: unknown, nonce: string): APIGatewayProxyResult {
  if (error instanceof LinkUnusable) return htmlResult(404, unusableLinkPage(error.branding, nonce));
  if (error instanceof ServiceError && error.code === 'rate_limit_exceeded') {
    return htmlResult(429, problemPage('rate_limited', nonce), { 'Retry-After': String(error.details.retry_after ?? 60) });
  }
  // A malformed path or form is someone else's request, not a customer's: the link's page is the answer.
  if (error instanceof ServiceError && (error.code === 'invalid_request' || error.code === 'validation_error' || error.code === 'resource_not_found')) {
    return htmlResult(404, unusableLinkPage(null, nonce));
  }
  log.error('card-update page failed', describeError(error));
  return htmlResult(500, problemPage('unavailable', nonce));
}

function formOf(event: APIGatewayProxyEvent): Record<string, string> {
  if (!event.body) return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const type = header(event, 'content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return {};
  return Object.fromEntries(new URLSearchParams(text));
}

export function pageHandler<P, F = Record<string, never>, Q = Record<string, never>>(schemas: PageSchemas<P, F, Q>, action: (input: PageInput<P, F, Q>) => Promise<PageReply>) {
  const run = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const nonce = newNonce();
    try {
      const params = parseInput(schemas.params, event.pathParameters ?? {}, 'path');
      const form = parseInput((schemas.form ?? z.object({})) as z.ZodType<F>, formOf(event), 'body');
      const query = parseInput((schemas.query ?? z.object({})) as z.ZodType<Q>, event.queryStringParameters ?? {}, 'query');
      const reply = await action({ params, form, query, now: runtime.clock.now(), clientIp: sourceIpOf(event), nonce });
      if (!('page' in reply)) return { statusCode: 303, headers: { Location: reply.location, ...SECURITY_HEADERS }, body: '' };
      return htmlResult(reply.status, reply.page);
    } catch (error) {
      return errorPage(error, nonce);
    }
  };
  return withContract(publicHandler(run), {
    surface: 'edge',
    params: schemas.params,
    query: schemas.query,
    body: schemas.form,
    contentType: 'application/x-www-form-urlencoded',
    produces: 'text/html',
  });
}

/** The card-update link's token: any text (a malformed one is the expired-link page, decided by the domain). */
export const linkTokenParam = z.strictObject({ token: pathText() });
