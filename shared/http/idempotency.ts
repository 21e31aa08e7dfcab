import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { runtime } from '../runtime.ts';
import { invalidRequest, ServiceError } from '../model/errors.ts';
import type { Tenant } from '../model/tenant.ts';
import { ROUTE_TIMEOUT_SECONDS } from '../routes.ts';
import {
  claimIdempotencyKey,
  recordIdempotentResponse,
  releaseIdempotencyKey,
  type StoredResponse,
} from '../store/idempotency.ts';
import { presentedKey } from './authenticate.ts';
import { errorResult } from './errors.ts';
import { header, requireAuth, type ServiceContext, type ServiceMiddleware } from './context.ts';
import { seal, unseal } from './sealed-response.ts';

/** Stripe's model: a key is remembered for 24 h; a crashed execution's lock lapses so a retry can run. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;
/**
 * A claim's lock lives as long as the function holding it can (its timeout, from the claim on), plus
 * a second for the clocks of two instances: an execution that could neither finish nor release its
 * key (a crash, a failed release) blocks resends only while it might still be running.
 */
export const IDEMPOTENCY_LOCK_SECONDS = ROUTE_TIMEOUT_SECONDS + 1;
/** How long a duplicate waits for the first request to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 3_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Results not worth replaying: the request never ran (bad input) or failed in a way a retry may fix. */
const UNSAVED: ReadonlySet<number> = new Set([400, 422, 429]);

interface Pending {
  tenant: Tenant;
  key: string;
  fingerprint: string;
  /** The API key that made the request: a response showing a secret is sealed under it, never stored readable. */
  apiKey: string;
  /** This execution's claim on the key: its own writes, resent after a lost answer, are told from another request's. */
  claimId: string;
}
const pendingByContext = new WeakMap<ServiceContext, Pending>();

/** The request as its parameters, as Stripe compares them: a JSON body re-serialised with keys re-ordered or spaced differently is the same request. */
function fingerprintOf(event: APIGatewayProxyEvent): string {
  return createHash('sha256')
    .update(`${event.httpMethod} ${event.path}\n${canonicalBody(event.body ?? '')}`)
    .digest('hex');
}

function canonicalBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), (_, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value,
    );
  } catch {
    return body;
  }
}

const sealScope = (pending: Pending): string =>
  `${pending.tenant.merchantId}/${pending.tenant.environment}/${pending.key}/${pending.fingerprint}`;

function replayed(response: StoredResponse, pending: Pending): APIGatewayProxyResult {
  const body = response.sealed ? unseal(response.body, pending.apiKey, sealScope(pending)) : response.body;
  if (body === undefined) {
    throw new ServiceError(
      'idempotency_key_reused',
      'This Idempotency-Key was first used with another API key, and its response shows a secret that only that key can get again. Use a new Idempotency-Key for a new request.',
    );
  }
  return { statusCode: response.statusCode, headers: { ...response.headers, 'Idempotent-Replayed': 'true' }, body };
}

async function claimOrReplay(pending: Pending): Promise<APIGatewayProxyResult | undefined> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const now = runtime.clock.now();
    const claim = await claimIdempotencyKey(
      pending.tenant,
      pending.key,
      pending.fingerprint,
      now,
      new Date(now.getTime() + IDEMPOTENCY_RETENTION_SECONDS * 1000),
      new Date(now.getTime() + IDEMPOTENCY_LOCK_SECONDS * 1000),
      pending.claimId,
    );
    if (claim.outcome === 'claimed') return undefined;
    if (claim.fingerprint !== pending.fingerprint) {
      throw new ServiceError(
        'idempotency_key_reused',
        `Keys for idempotent requests can only be used with the same parameters they were first used with. Use a new Idempotency-Key for a different request.`,
      );
    }
    if (claim.outcome === 'completed') return replayed(claim.response, pending);
    if (Date.now() >= deadline) {
      throw new ServiceError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry shortly.');
    }
    await sleep(delay);
  }
}

async function settle(context: ServiceContext, response: APIGatewayProxyResult): Promise<void> {
  const pending = pendingByContext.get(context);
  if (!pending) return;
  pendingByContext.delete(context);
  if (response.statusCode >= 500 || UNSAVED.has(response.statusCode)) {
    await releaseIdempotencyKey(pending.tenant, pending.key, pending.fingerprint);
    return;
  }
  const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const sealed = context.showsSecret === true;
  const stored = {
    statusCode: response.statusCode,
    headers,
    body: sealed ? seal(response.body, pending.apiKey, sealScope(pending)) : response.body,
    ...(sealed ? { sealed } : {}),
  };
  await recordIdempotentResponse(pending.tenant, pending.key, pending.fingerprint, stored, pending.claimId);
}

/** Idempotency-Key on POST: the same key and body replay the first response; a different body is refused. */
export function idempotency(): ServiceMiddleware {
  return {
    before: async (request) => {
      const { event, context } = request;
      const key = header(event, 'idempotency-key');
      if (event.httpMethod !== 'POST' || key === undefined) return;
      if (!KEY_PATTERN.test(key)) {
        throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters', 'Idempotency-Key');
      }
      // Authenticated by now, so the key is there.
      const pending: Pending = { tenant: requireAuth(context).tenant, key, fingerprint: fingerprintOf(event), apiKey: presentedKey(event)!, claimId: randomUUID() };
      const replay = await claimOrReplay(pending);
      if (replay) context.replay = replay;
      else pendingByContext.set(context, pending);
    },
    after: async (request) => {
      if (request.response) await settle(request.context, request.response);
    },
    onError: async (request) => {
      // Converted here (not only in the envelope) so a failed operation's answer is replayed too.
      const response = request.response ?? errorResult(request.error, request.context.requestId);
      request.response = response;
      await settle(request.context, response);
    },
  };
}
