import type { APIGatewayProxyResult } from 'aws-lambda';
import { ServiceError, type ErrorCode } from '../model/errors.ts';
import { describeError, log } from '../log.ts';
import { jsonResult } from './responses.ts';

/** The one mapping from error codes to HTTP statuses (§7). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_api_key: 401,
  invalid_signature: 401,
  insufficient_scope: 403,
  trial_expired: 403,
  ip_not_allowed: 403,
  recovery_attempt_limit_exceeded: 403,
  network_retry_limit: 403,
  campaign_limit_exceeded: 403,
  resource_not_found: 404,
  method_not_allowed: 405,
  state_conflict: 409,
  idempotency_key_in_use: 409,
  validation_error: 422,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  rate_limit_exceeded: 429,
  lock_timeout: 429,
  internal_error: 500,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string; request_id: string; retry_after?: number };
}

export function errorBody(error: ServiceError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: requestId,
      ...(typeof error.details.retry_after === 'number' ? { retry_after: error.details.retry_after } : {}),
    },
  };
}

/** Turns anything thrown into the envelope; unexpected faults are logged in full and shown as a bare 500. */
export function errorResult(error: unknown, requestId: string): APIGatewayProxyResult {
  if (error instanceof ServiceError) {
    const headers: Record<string, string> = {};
    if (typeof error.details.retry_after === 'number') headers['Retry-After'] = String(error.details.retry_after);
    if (Array.isArray(error.details.allow)) headers.Allow = error.details.allow.join(', ');
    return jsonResult(STATUS_BY_CODE[error.code], errorBody(error, requestId), headers);
  }
  log.error('Unhandled error', describeError(error));
  const internal = new ServiceError('internal_error', 'An unexpected error occurred. Retry later or contact support with the request_id.');
  return jsonResult(500, errorBody(internal, requestId));
}
