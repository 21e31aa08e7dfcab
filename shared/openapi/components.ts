import type { JsonSchema } from './json-schema.ts';

/** The parts of the document every operation shares: credentials, headers and the error answers. */
export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_live_…, svc_test_… or svc_pub_…',
    description:
      'An API key in `Authorization: Bearer <API_KEY>` (§5). The key picks the merchant and the environment (live or test). ' +
      "Each operation lists the scopes that admit it: any one of them. `admin` implies every scope and `write` implies `read`.",
  },
  stripeSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Stripe-Signature',
    description: "Stripe's signature of the raw body with the connection's webhook signing secret (whsec_…), at most 300 s old.",
  },
  recoverySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Recovery-Signature',
    description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, within 300 s of the service clock (docs/webhooks-inbound.md).',
  },
} as const;

/** Which scheme a processor's signature header belongs to. */
export const SIGNATURE_SCHEMES: Readonly<Record<string, keyof typeof SECURITY_SCHEMES>> = {
  'Stripe-Signature': 'stripeSignature',
  'X-Recovery-Signature': 'recoverySignature',
};

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

export const HEADERS = {
  RequestId: { description: 'The request id, also in every error body', schema: { type: 'string' } },
  RateLimitLimit: integerHeader('Requests allowed per 60-second sliding window (per merchant and environment)'),
  RateLimitRemaining: integerHeader('Requests left in the current window'),
  RateLimitReset: integerHeader('Unix time when the oldest request in the window leaves it'),
  RetryAfter: integerHeader('Seconds until a request is admitted again'),
  IdempotentReplayed: { description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
} as const;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Headers on every response of the REST API, errors included (§8). */
export const RATE_LIMIT_HEADERS = {
  'X-Request-Id': ref('headers', 'RequestId'),
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to repeat for 24 h: the same key with the same request replays the first response; with a different request it is 422 idempotency_key_reused.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

/** The error answers by status, each the §7 envelope. */
const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'InvalidRequest', description: 'invalid_request: malformed, missing or unknown parameter (`param` names it)' },
  401: {
    name: 'InvalidApiKey',
    description:
      'invalid_api_key: missing, invalid, expired or revoked key, or an object of the other environment; on a cancel-session start, invalid_signature: auth_hash missing in live mode, or not matching',
  },
  403: { name: 'Forbidden', description: 'insufficient_scope, ip_not_allowed, trial_expired (writes), a plan limit, or (a manual retry) network_retry_limit: a card network rule forbids charging the card now' },
  404: { name: 'NotFound', description: 'resource_not_found' },
  409: { name: 'Conflict', description: 'state_conflict, or idempotency_key_in_use while the first request with that key runs' },
  422: { name: 'Unprocessable', description: 'validation_error (`param` names the field), or idempotency_key_reused' },
  429: {
    name: 'RateLimited',
    description:
      'rate_limit_exceeded (merchant API; cancel-session starts per client address or merchant), or lock_timeout (processor webhooks: too many concurrent events for one customer); `retry_after` and Retry-After say when to retry',
  },
  500: { name: 'InternalError', description: 'internal_error: quote the request_id to support' },
};

export function errorResponseRef(status: number) {
  const response = ERROR_RESPONSES[status];
  if (!response) throw new Error(`No error response for status ${status}`);
  return ref('responses', response.name);
}

interface ErrorResponse {
  description: string;
  headers: Record<string, { $ref: string }>;
  content: { 'application/json': { schema: JsonSchema } };
}

export function errorResponses(errorSchema: JsonSchema): Record<string, ErrorResponse> {
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, { name, description }]) => [
      name,
      {
        description,
        headers: { 'X-Request-Id': ref('headers', 'RequestId'), ...(status === '429' ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}) },
        content: { 'application/json': { schema: errorSchema } },
      },
    ]),
  );
}

export { ref };
