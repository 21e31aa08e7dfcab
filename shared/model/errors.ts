/**
 * The closed set of error codes the service answers with. The spec's §7 codes plus the few the
 * platform adds (method_not_allowed, idempotency_*, lock_timeout, invalid_signature), each documented
 * in docs/decisions.md.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_api_key'
  | 'invalid_signature'
  | 'insufficient_scope'
  | 'trial_expired'
  | 'ip_not_allowed'
  | 'recovery_attempt_limit_exceeded'
  | 'network_retry_limit'
  | 'campaign_limit_exceeded'
  | 'resource_not_found'
  | 'method_not_allowed'
  | 'state_conflict'
  | 'idempotency_key_in_use'
  | 'validation_error'
  | 'idempotency_key_reused'
  | 'payload_too_large'
  | 'rate_limit_exceeded'
  | 'lock_timeout'
  | 'internal_error';

/**
 * A failure the caller can act on. Anything else thrown is an internal fault and never shown to clients.
 * `param` is for input problems only (§7: "only for validation errors"), so only invalidRequest and
 * validationFailed set it.
 */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const notFound = (resource: string, id: string): ServiceError =>
  new ServiceError('resource_not_found', `No such ${resource}: '${id}'`);

export const stateConflict = (message: string): ServiceError => new ServiceError('state_conflict', message);

/** Too many requests changing one object at once to get through in time (Stripe's `lock_timeout`): retry shortly. */
export const lockTimeout = (message: string): ServiceError => new ServiceError('lock_timeout', message, undefined, { retry_after: 1 });

export const invalidRequest = (message: string, param?: string): ServiceError =>
  new ServiceError('invalid_request', message, param);

export const validationFailed = (message: string, param: string): ServiceError =>
  new ServiceError('validation_error', message, param);

export const invalidApiKey = (message = 'Invalid API key provided.'): ServiceError =>
  new ServiceError('invalid_api_key', message);

export const rateLimited = (retryAfterSeconds: number): ServiceError =>
  new ServiceError('rate_limit_exceeded', 'Too many requests. Retry after the number of seconds in retry_after.', undefined, {
    retry_after: retryAfterSeconds,
  });
