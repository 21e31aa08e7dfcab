import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema.gen.ts';
import { storedKey } from '../session.ts';

/** A refusal from the API in its error envelope (§7), or a request that never got an answer. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly requestId: string | null,
    readonly param: string | null,
  ) {
    super(message);
  }
}

interface Envelope {
  error?: { code?: string; message?: string; param?: string; request_id?: string };
}

const authorization: Middleware = {
  onRequest({ request }) {
    const key = storedKey();
    if (key) request.headers.set('Authorization', `Bearer ${key}`);
    return request;
  },
};

/** The typed client: same origin (the API sits beside the app locally and behind the same CloudFront distribution). */
export const api = createClient<paths>({ baseUrl: location.origin });
api.use(authorization);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ApiError carrying the envelope's message, code and request id. */
export async function answer<T>(request: Promise<Answer<T>>): Promise<T> {
  let result: Answer<T>;
  try {
    result = await request;
  } catch {
    throw new ApiError('The API could not be reached. Check your connection and try again.', 0, 'network_error', null, null);
  }
  const { data, error, response } = result;
  if (error === undefined && data !== undefined) return data;
  const envelope = (error ?? {}) as Envelope;
  throw new ApiError(
    envelope.error?.message ?? `The API answered ${response.status} ${response.statusText}`,
    response.status,
    envelope.error?.code ?? 'unexpected_response',
    envelope.error?.request_id ?? response.headers.get('X-Request-Id'),
    envelope.error?.param ?? null,
  );
}

/** A fresh Idempotency-Key for one click: a retried network request cannot act twice. */
export const idempotencyKey = (): string => crypto.randomUUID();
