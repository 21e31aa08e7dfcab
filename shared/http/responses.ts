import type { APIGatewayProxyResult } from 'aws-lambda';
import type { PageRequest } from '../model/pagination.ts';

/** What a handler's action returns; the middleware turns it into the Lambda proxy result. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body holds a secret shown this once (a new API key, a webhook signing secret). */
  showsSecret?: boolean;
}

export const ok = (data: unknown, status = 200): Reply => ({ status, body: { data } });

export const created = (data: unknown): Reply => ok(data, 201);

/** A reply whose body shows a secret this once: never stored readable, even for idempotent replay. */
export const showingSecret = (reply: Reply): Reply => ({ ...reply, showsSecret: true });

export function pageOf<T>(items: readonly T[], total: number, page: PageRequest): Reply {
  return {
    status: 200,
    body: {
      data: items,
      pagination: {
        total,
        page: page.page,
        per_page: page.per_page,
        total_pages: Math.ceil(total / page.per_page),
      },
    },
  };
}

export function jsonResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}
