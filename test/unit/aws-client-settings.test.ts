import { describe, expect, it } from 'vitest';
import { dynamoDbClientSettings, unmeteredRetries } from '../../shared/aws-clients.ts';

describe('DynamoDB client settings', () => {
  it('keep standard mode with its retry quota unless the chaos tests turn the quota off', () => {
    expect(dynamoDbClientSettings({})).toEqual({ maxAttempts: 3, retryMode: 'standard', requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } });
    expect(dynamoDbClientSettings({ DYNAMODB_RETRY_QUOTA: 'off' }).retryStrategy).toBeDefined();
  });

  it('retry without a quota: three tries in all, none for a client error, backoff from 500 ms after a throttle', async () => {
    const strategy = unmeteredRetries(3);
    const first = await strategy.acquireInitialRetryToken();
    // As many retries as asked for, however many calls failed before: there is no quota to run out.
    for (let call = 0; call < 1_000; call++) await strategy.refreshRetryTokenForRetry(first, { errorType: 'TRANSIENT' });
    const second = await strategy.refreshRetryTokenForRetry(first, { errorType: 'THROTTLING' });
    expect(second.getRetryCount()).toBe(1);
    expect(second.getRetryDelay()).toBeLessThanOrEqual(1_000);
    const third = await strategy.refreshRetryTokenForRetry(second, { errorType: 'SERVER_ERROR' });
    expect(third.getRetryDelay()).toBeLessThanOrEqual(400);
    await expect(strategy.refreshRetryTokenForRetry(third, { errorType: 'TRANSIENT' })).rejects.toThrow('No retry left');
    await expect(strategy.refreshRetryTokenForRetry(first, { errorType: 'CLIENT_ERROR' })).rejects.toThrow('No retry left');
  });

  it("take the chaos runs' shorter throttle base only with the quota off", async () => {
    const throttled = async (env: NodeJS.ProcessEnv) => {
      const strategy = dynamoDbClientSettings(env).retryStrategy!;
      const delays = [];
      for (let i = 0; i < 200; i++) delays.push((await strategy.refreshRetryTokenForRetry(await strategy.acquireInitialRetryToken(), { errorType: 'THROTTLING' })).getRetryDelay());
      return Math.max(...delays);
    };
    expect(await throttled({ DYNAMODB_RETRY_QUOTA: 'off', DYNAMODB_THROTTLE_BACKOFF_MS: '100' })).toBeLessThanOrEqual(200);
    expect(await throttled({ DYNAMODB_RETRY_QUOTA: 'off' })).toBeGreaterThan(200);
    expect(dynamoDbClientSettings({ DYNAMODB_THROTTLE_BACKOFF_MS: '100' }).retryStrategy).toBeUndefined();
  });
});
