import { optionalEnv } from './config.ts';

/**
 * How every AWS SDK client of the service waits and retries: the one place these are chosen
 * (docs/faults.md). The SDK's defaults suit a long-lived server (no request deadline, a socket
 * left hanging as long as the function lives); a Lambda answers within its own timeout (29 s
 * behind API Gateway), so each call gets a deadline and a few tries that fit inside it, and what
 * still fails surfaces as an error the handler answers 5xx, for its caller to deliver again.
 */
export interface ClientSettings {
  /** Tries in all, the first one included, in the SDK's standard mode (jittered backoff, a retry quota per client). */
  maxAttempts: number;
  retryMode: 'standard';
  requestHandler: {
    /** Opening a connection: DynamoDB and the other endpoints answer a TCP handshake in milliseconds. */
    connectionTimeout: number;
    /** The whole request, from sending to the last byte of the answer; past it the try fails and the SDK tries again. */
    requestTimeout: number;
    /** Without it the SDK only logs a request past its deadline and keeps waiting. */
    throwOnRequestTimeout: true;
  };
}

/**
 * DynamoDB: single-digit milliseconds when healthy, so 3 s is a fault, not a slow answer; 3 tries
 * at most ~10 s with the backoff. The chaos tests lower the deadline with DYNAMODB_REQUEST_TIMEOUT_MS,
 * so the fault proxy's "no answer in time" costs them less than a second.
 */
export function dynamoDbClientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  return settings(Number(optionalEnv('DYNAMODB_REQUEST_TIMEOUT_MS', env) ?? 3_000));
}

/** EventBridge Scheduler, SQS, SES, End User Messaging SMS, KMS: slower control-plane calls, a 5 s deadline, 3 tries (~17 s at most). */
export function serviceClientSettings(): ClientSettings {
  return settings(5_000);
}

function settings(requestTimeout: number): ClientSettings {
  return { maxAttempts: 3, retryMode: 'standard', requestHandler: { connectionTimeout: 1_000, requestTimeout, throwOnRequestTimeout: true } };
}
