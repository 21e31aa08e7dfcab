import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ErrorCode } from '../shared/model/errors.ts';

interface EnvelopedResponse {
  type: ResponseType;
  /** Absent keeps API Gateway's own status for the type (e.g. 504 for an integration timeout). */
  statusCode?: string;
  code: ErrorCode;
  /** A JSON string literal, or the gateway's own (already quoted) message. */
  message: string;
}

const GATEWAY_MESSAGE = '$context.error.messageString';

/**
 * Errors API Gateway answers itself, before any function runs. Unknown paths mostly reach the
 * fallback function, but a resource without a matching method can still yield "Missing
 * Authentication Token" (403), which to a client is simply a path that does not exist.
 */
const RESPONSES: EnvelopedResponse[] = [
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '404', code: 'resource_not_found', message: '"Unrecognized request URL."' },
  { type: ResponseType.RESOURCE_NOT_FOUND, statusCode: '404', code: 'resource_not_found', message: '"Unrecognized request URL."' },
  { type: ResponseType.THROTTLED, statusCode: '429', code: 'rate_limit_exceeded', message: '"Too many requests. Retry shortly."' },
  { type: ResponseType.QUOTA_EXCEEDED, statusCode: '429', code: 'rate_limit_exceeded', message: '"Too many requests. Retry shortly."' },
  { type: ResponseType.REQUEST_TOO_LARGE, statusCode: '413', code: 'payload_too_large', message: '"Request body too large."' },
  { type: ResponseType.DEFAULT_4XX, code: 'invalid_request', message: GATEWAY_MESSAGE },
  // Never the gateway's own text for 5xx: same generic answer as the functions' internal_error.
  {
    type: ResponseType.DEFAULT_5XX,
    code: 'internal_error',
    message: '"An unexpected error occurred. Retry later or contact support with the request_id."',
  },
];

function envelope(code: ErrorCode, message: string): string {
  return `{"error":{"code":"${code}","message":${message},"request_id":"$context.requestId"}}`;
}

/**
 * Rewrites API Gateway's own error bodies (`{"message": "..."}`) into the service's envelope, so a
 * client parses one shape whether the gateway or a function answered. Headers can only be static or
 * copied from the request, so the request id travels in the body (X-Request-Id needs a function).
 */
export function addEnvelopedGatewayResponses(api: RestApi, headers: Record<string, string> = {}): void {
  for (const response of RESPONSES) {
    api.addGatewayResponse(response.type.responseType, {
      type: response.type,
      ...(response.statusCode === undefined ? {} : { statusCode: response.statusCode }),
      responseHeaders: { 'Content-Type': "'application/json'", ...headers },
      templates: { 'application/json': envelope(response.code, response.message) },
    });
  }
}
