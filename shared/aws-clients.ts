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
  /** Replaces standard mode's strategy (tests only: unmeteredRetries). */
  retryStrategy?: ReturnType<typeof unmeteredRetries>;
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
  const chosen = settings(Number(optionalEnv('DYNAMODB_REQUEST_TIMEOUT_MS', env) ?? 3_000));
  if (optionalEnv('DYNAMODB_RETRY_QUOTA', env) !== 'off') return chosen;
  return { ...chosen, retryStrategy: unmeteredRetries(chosen.maxAttempts, Number(optionalEnv('DYNAMODB_THROTTLE_BACKOFF_MS', env) ?? 500)) };
}

/**
 * Standard mode's tries and backoff (a 500 ms base after a throttle, 100 ms otherwise) without its
 * retry quota: for the chaos tests only (DYNAMODB_RETRY_QUOTA=off). The local server is one process
 * with one client for every function, where AWS gives each Lambda instance a quota of its own; under a
 * sustained 50 % fault rate that one quota ran out after about 150 calls, every call was then tried
 * once, and the run never got past its first events. The chaos runs also shorten the throttle's base
 * (DYNAMODB_THROTTLE_BACKOFF_MS): the longer wait gives a real table's capacity time to come back,
 * while the fault proxy throttles a seeded share of requests however long the client waits.
 */
export function unmeteredRetries(maxAttempts: number, throttleBaseMs = 500) {
  const token = (count: number, delay: number) => ({ getRetryCount: () => count, getRetryDelay: () => delay, getRetryCost: () => 0 });
  return {
    acquireInitialRetryToken: async () => token(0, 0),
    refreshRetryTokenForRetry: async (previous: { getRetryCount(): number }, error: { errorType: string }) => {
      const count = previous.getRetryCount() + 1;
      if (count >= maxAttempts || error.errorType === 'CLIENT_ERROR') throw new Error('No retry left');
      return token(count, Math.random() * 2 ** count * (error.errorType === 'THROTTLING' ? throttleBaseMs : 100));
    },
    recordSuccess: () => {},
  };
}

/** EventBridge Scheduler, SQS, SES, End User Messaging SMS, KMS: slower control-plane calls, a 5 s deadline, 3 tries (~17 s at most). */
export function serviceClientSettings(): ClientSettings {
  return settings(5_000);
}

function settings(requestTimeout: number): ClientSettings {
  return { maxAttempts: 3, retryMode: 'standard', requestHandler: { connectionTimeout: 1_000, requestTimeout, throwOnRequestTimeout: true } };
}
