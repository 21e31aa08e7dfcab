/**
 * The few Stripe REST calls the adapters make, over fetch, in place of the `stripe` package (which
 * made the functions that charge or apply offers ~240 KB bigger: docs/decisions.md, "Processor SDKs").
 * It sends what the package sent for these calls: form-encoded parameters, the secret key as a Bearer
 * token, the Stripe-Version the package pinned, and an Idempotency-Key on every POST. It repeats a
 * request as the package did (no answer, 409, 5xx, or Stripe-Should-Retry: true; at most twice, after
 * its backoff) and classifies a refusal as the package's error classes did, by HTTP status.
 *
 * Every POST must carry an idempotency key, so that any repeat, ours or a later attempt's, replays
 * Stripe's first answer instead of acting twice. Answers are checked against the caller's zod schema
 * of the fields it reads.
 */
import type * as z from 'zod';
import { encodeStripeForm, type StripeParams } from './stripe-form.ts';
import type { NetworkAnswer } from '../../model/card-ledger.ts';

/** The version the `stripe` package (23.1) pinned, which the adapters were written and tested against. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/** Repeats of one request, as the adapters configured the package. */
const NETWORK_RETRIES = 2;
const INITIAL_RETRY_DELAY_S = 0.5;
const MAX_RETRY_DELAY_S = 5;

export interface StripeEndpoint {
  /** API address overrides, for a local fake of the Stripe API in tests. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

export interface StripeApiOptions extends StripeEndpoint {
  apiKey: string;
  /** Bound on each HTTP request, its answer's body included. */
  timeoutMs: number;
}

/**
 * Stripe's error types, with the status-derived ones the package added (authentication, permission
 * and rate limit) and `api_connection_error` for a request that got no answer.
 */
export type StripeErrorCategory =
  | 'card_error'
  | 'invalid_request_error'
  | 'idempotency_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'api_connection_error';

export class StripeApiError extends Error {
  override readonly name = 'StripeApiError';

  constructor(
    readonly category: StripeErrorCategory,
    message: string,
    readonly statusCode: number | null = null,
    readonly code: string | null = null,
    readonly declineCode: string | null = null,
    /** The card network's answer to a card error, as Stripe passes it on. */
    readonly network: NetworkAnswer | null = null,
  ) {
    super(message);
  }

  /** `Stripe <category> (HTTP <status>): <Stripe's message>`, for outcome reasons. */
  describe(): string {
    return `Stripe ${this.category}${this.statusCode === null ? '' : ` (HTTP ${this.statusCode})`}: ${this.message}`;
  }
}

export interface StripeApi {
  get<T>(path: string, schema: z.ZodType<T>, query?: StripeParams): Promise<T>;
  post<T>(path: string, schema: z.ZodType<T>, params: StripeParams, idempotencyKey: string): Promise<T>;
}

/** A path with its ids encoded: stripePath`/v1/invoices/${id}/pay`. */
export function stripePath(parts: TemplateStringsArray, ...ids: string[]): string {
  return parts.reduce((path, part, index) => path + encodeURIComponent(ids[index - 1]!) + part);
}

export function createStripeApi(options: StripeApiOptions): StripeApi {
  const base = `${options.protocol ?? 'https'}://${options.host ?? 'api.stripe.com'}${options.port === undefined ? '' : `:${options.port}`}`;
  const headers = { Accept: 'application/json', Authorization: `Bearer ${options.apiKey}`, 'Stripe-Version': STRIPE_API_VERSION };
  return {
    async get(path, schema, query = {}) {
      const search = encodeStripeForm(query);
      const answer = await send(`${base}${path}${search ? `?${search}` : ''}`, { method: 'GET', headers }, options.timeoutMs);
      return read(answer, schema);
    },
    async post(path, schema, params, idempotencyKey) {
      const init = {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded', 'Idempotency-Key': idempotencyKey },
        body: encodeStripeForm(params),
      };
      return read(await send(`${base}${path}`, init, options.timeoutMs), schema);
    },
  };
}

interface Answer {
  status: number;
  body: string;
}

async function send(url: string, init: RequestInit, timeoutMs: number): Promise<Answer> {
  for (let retries = 0; ; retries += 1) {
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal });
    } catch (error) {
      if (retries < NETWORK_RETRIES) {
        await pause(retries + 1);
        continue;
      }
      throw connectionError(error, retries, timeoutMs);
    }
    if (retries < NETWORK_RETRIES && worthRepeating(response)) {
      await response.body?.cancel();
      await pause(retries + 1);
      continue;
    }
    try {
      return { status: response.status, body: await response.text() };
    } catch (error) {
      // The answer was cut off: Stripe may have acted, so it is not repeated here (the package did the same).
      throw connectionError(error, retries, timeoutMs);
    }
  }
}

function worthRepeating(response: Response): boolean {
  // Stripe says when a repeat would be pointless (or, for lock timeouts, useful).
  const advice = response.headers.get('stripe-should-retry');
  if (advice === 'false') return false;
  if (advice === 'true') return true;
  return response.status === 409 || response.status >= 500;
}

/** The package's backoff: 0.5 s doubling per repeat up to 5 s, jittered down to half, never under 0.5 s. */
function pause(repeat: number): Promise<void> {
  const ceiling = Math.min(INITIAL_RETRY_DELAY_S * 2 ** (repeat - 1), MAX_RETRY_DELAY_S);
  const seconds = Math.max(INITIAL_RETRY_DELAY_S, ceiling * 0.5 * (1 + Math.random()));
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

function connectionError(error: unknown, retries: number, timeoutMs: number): StripeApiError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  const message = timedOut
    ? `Request aborted due to timeout being reached (${timeoutMs}ms)`
    : `An error occurred with our connection to Stripe.${retries > 0 ? ` Request was retried ${retries} times.` : ''}`;
  return new StripeApiError('api_connection_error', message);
}

interface ErrorBody {
  error?: { type?: unknown; code?: unknown; decline_code?: unknown; message?: unknown; network_decline_code?: unknown; network_advice_code?: unknown } | string;
  error_description?: unknown;
}

function read<T>(answer: Answer, schema: z.ZodType<T>): T {
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    throw new StripeApiError('api_error', 'Invalid JSON received from the Stripe API', answer.status);
  }
  const envelope: ErrorBody = body !== null && typeof body === 'object' ? body : {};
  if (envelope.error !== undefined || answer.status >= 300) throw refusal(answer.status, envelope);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StripeApiError('api_error', `Unexpected answer from the Stripe API: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(), answer.status);
  }
  return parsed.data;
}

function refusal(status: number, body: ErrorBody): StripeApiError {
  const error = body.error;
  // OAuth endpoints answer `error` as a string with `error_description`; the others an object.
  const fields = typeof error === 'object' && error !== null ? error : { message: body.error_description, type: error };
  const code = text(fields.code);
  const message = text(fields.message) ?? `Stripe answered HTTP ${status}`;
  const network = 'network_decline_code' in fields || 'network_advice_code' in fields ? { declineCode: text(fields.network_decline_code), adviceCode: text(fields.network_advice_code) } : null;
  return new StripeApiError(stripeErrorCategory(status, text(fields.type), code), message, status, code, text(fields.decline_code), network);
}

/** The package's classification (generateV1Error): by status, with a rate-limit code and idempotency type refined. */
export function stripeErrorCategory(status: number, type: string | null, code: string | null): StripeErrorCategory {
  if (status === 429 || (status === 400 && code === 'rate_limit')) return 'rate_limit_error';
  if (status === 400 || status === 404) return type === 'idempotency_error' ? 'idempotency_error' : 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'card_error';
  if (status === 403) return 'permission_error';
  return 'api_error';
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
