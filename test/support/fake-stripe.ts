/**
 * A local stand-in for the Stripe API (api.stripe.com/v1) that the Stripe adapters are pointed at
 * through their host/port/protocol settings. It records every request as it was sent and answers with
 * scripted Stripe JSON: objects, error envelopes, or no answer at all.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedStripeRequest {
  method: string;
  /** The path without the query string, e.g. /v1/invoices/in_123/pay. */
  path: string;
  query: URLSearchParams;
  /** Lower-cased, as node:http gives them, e.g. `idempotency-key` and `authorization`. */
  headers: IncomingHttpHeaders;
  /** The form-encoded body, decoded. */
  form: URLSearchParams;
}

export type StripeReply = { status: number; body: unknown; headers?: Record<string, string> } | { hang: true };

export interface FakeStripe {
  readonly host: string;
  readonly port: number;
  readonly requests: RecordedStripeRequest[];
  /** Scripts the answers to `method path`, in order; the last one keeps being given. */
  on(method: string, path: string, ...replies: StripeReply[]): void;
  /** Forgets scripts and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: RecordedStripeRequest[] = [];
  const scripts = new Map<string, StripeReply[]>();
  let served = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake-stripe');
      const method = req.method ?? 'GET';
      requests.push({
        method,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
      });
      const queue = scripts.get(`${method} ${url.pathname}`);
      const reply: StripeReply = (queue && queue.length > 1 ? queue.shift() : queue?.[0]) ?? {
        status: 404,
        body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${url.pathname})` } },
      };
      if ('hang' in reply) return; // the socket stays open until close()
      served += 1;
      const body = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'request-id': `req_fake_${served}`,
        ...reply.headers,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    requests,
    on(method, path, ...replies) {
      scripts.set(`${method} ${path}`, [...replies]);
    },
    reset() {
      scripts.clear();
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Answers in Stripe's shapes (only the fields the adapter reads, plus identity)

export const ok = (body: unknown): StripeReply => ({ status: 200, body });

/** Stripe's error envelope; 402 card_error for declines, 401 authentication_error, 500 api_error... */
export function stripeError(
  status: number,
  error: { type: string; message: string; code?: string; decline_code?: string; param?: string; payment_intent?: unknown },
  headers?: Record<string, string>,
): StripeReply {
  return { status, body: { error }, headers };
}

export function stripeInvoice(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, object: 'invoice', status: 'open', amount_due: 1999, amount_paid: 0, currency: 'usd', customer: 'cus_fake', livemode: true, ...fields };
}

export function stripePaymentIntent(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    object: 'payment_intent',
    status: 'requires_payment_method',
    amount: 1999,
    currency: 'usd',
    customer: 'cus_fake',
    payment_method: null,
    last_payment_error: null,
    livemode: true,
    ...fields,
  };
}

export function stripeCustomer(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, object: 'customer', default_source: null, invoice_settings: { default_payment_method: null }, livemode: true, ...fields };
}
