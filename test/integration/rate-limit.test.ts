import { describe, expect, it } from 'vitest';
import { advanceClock, call, newMerchant } from '../support/api.ts';

const ME = '/v1/auth/me';

describe('rate limit (§8)', () => {
  it('gives a starter merchant 20 requests per sliding minute, then 429 with retry_after and headers', async () => {
    // Prepare
    const { keys } = await newMerchant({ plan: 'starter' });
    // Act
    const admitted = [];
    for (let i = 0; i < 20; i++) admitted.push(await call('GET', ME, { key: keys.test_read }));
    const refused = await call('GET', ME, { key: keys.test_read });
    // Assess
    admitted.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.headers['X-RateLimit-Limit']).toBe('20');
      expect(response.headers['X-RateLimit-Remaining']).toBe(String(19 - i));
      expect(Number(response.headers['X-RateLimit-Reset'])).toBeGreaterThan(Date.now() / 1000);
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number.isInteger(refused.body.error.retry_after)).toBe(true);
    expect(refused.body.error.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused.body.error.retry_after).toBeLessThanOrEqual(60);
    expect(refused.headers['Retry-After']).toBe(String(refused.body.error.retry_after));
    expect(refused.headers['X-RateLimit-Remaining']).toBe('0');
    expect(refused.headers['X-RateLimit-Limit']).toBe('20');
  });

  it('slides: slots free up as the oldest requests leave the 60 s window', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 10; i++) await call('GET', ME, { key: keys.test_read });
    advanceClock(30);
    for (let i = 0; i < 10; i++) expect((await call('GET', ME, { key: keys.test_read })).status).toBe(200);
    expect((await call('GET', ME, { key: keys.test_read })).status).toBe(429);
    advanceClock(31); // the first ten are now older than 60 s; the second ten are not
    const again = await call('GET', ME, { key: keys.test_read });
    expect(again.status).toBe(200);
    expect(again.headers['X-RateLimit-Remaining']).toBe('9');
  });

  it('never admits more than the limit under a concurrent burst', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    const burst = await Promise.all(Array.from({ length: 60 }, () => call('GET', ME, { key: keys.test_read })));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(20);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(40);
    const remaining = burst.filter((r) => r.status === 200).map((r) => Number(r.headers['X-RateLimit-Remaining']));
    expect(new Set(remaining).size).toBe(20);
  });

  it('counts per merchant and environment, errors included, and shares the budget across keys', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 10; i++) await call('GET', ME, { key: keys.test_read });
    for (let i = 0; i < 9; i++) {
      const forbidden = await call('GET', '/v1/api-keys', { key: keys.test_write });
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers['X-RateLimit-Remaining']).toBeDefined();
    }
    expect((await call('GET', ME, { key: keys.test_admin })).headers['X-RateLimit-Remaining']).toBe('0');
    expect((await call('GET', ME, { key: keys.test_admin })).status).toBe(429);
    expect((await call('GET', ME, { key: keys.live_admin })).status).toBe(200);
    const other = await newMerchant({ plan: 'starter' });
    expect((await call('GET', ME, { key: other.keys.test_read })).status).toBe(200);
  });

  it('follows plan changes: growth allows 100, a custom enterprise limit applies at once', async () => {
    const { merchantId, keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 20; i++) await call('GET', ME, { key: keys.test_read });
    expect((await call('GET', ME, { key: keys.test_read })).status).toBe(429);
    const { changeMerchantTerms } = await import('../../shared/domain/merchant-onboarding.ts');
    await changeMerchantTerms(merchantId, { plan: 'growth' }, new Date());
    const upgraded = await call('GET', ME, { key: keys.test_read });
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers['X-RateLimit-Limit']).toBe('100');
    expect(upgraded.headers['X-RateLimit-Remaining']).toBe('79');
    await changeMerchantTerms(merchantId, { plan: 'enterprise', rateLimitOverride: 5 }, new Date());
    const capped = await call('GET', ME, { key: keys.test_read });
    expect(capped.status).toBe(429);
    expect(capped.headers['X-RateLimit-Limit']).toBe('5');
  });

  it('takes a custom limit up to what one sliding-log item can serve (2,000 a minute), and refuses more', async () => {
    const { merchantId, keys } = await newMerchant({ plan: 'enterprise' });
    const { changeMerchantTerms } = await import('../../shared/domain/merchant-onboarding.ts');
    await expect(changeMerchantTerms(merchantId, { rateLimitOverride: 2_001 }, new Date())).rejects.toThrow('rate limit override must be an integer from 1 to 2000');
    await changeMerchantTerms(merchantId, { rateLimitOverride: 2_000 }, new Date());
    expect((await call('GET', ME, { key: keys.test_read })).headers['X-RateLimit-Limit']).toBe('2000');
  });

  it('answers a refused read with 429 before its own outcome: a missing payment or a missing scope', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 20; i++) await call('GET', ME, { key: keys.test_read });
    const missing = await call('GET', '/v1/payments/pay_00000000000000000000000000', { key: keys.test_read });
    const forbidden = await call('GET', '/v1/api-keys', { key: keys.test_read });
    const invalid = await call('GET', '/v1/payments', { key: keys.test_read, query: { per_page: '0' } });
    for (const refused of [missing, forbidden, invalid]) {
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limit_exceeded');
      expect(refused.headers['X-RateLimit-Remaining']).toBe('0');
    }
  });

  it('answers an admitted read that fails with its own error and the window headers', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    const missing = await call('GET', '/v1/payments/pay_00000000000000000000000000', { key: keys.test_read });
    expect(missing.status).toBe(404);
    expect(missing.headers['X-RateLimit-Remaining']).toBe('19');
  });

  it('never runs a refused write: the campaign is not created', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 20; i++) await call('GET', ME, { key: keys.test_read });
    const refused = await call('POST', '/v1/campaigns', {
      key: keys.test_write,
      body: { name: 'Refused', trigger: 'payment_failed', channels: ['email'], steps: [{ delay_hours: 0, channel: 'email', template: 'reminder' }] },
    });
    expect(refused.status).toBe(429);
    advanceClock(61);
    const campaigns = await call('GET', '/v1/campaigns', { key: keys.test_read });
    expect(campaigns.status).toBe(200);
    expect(campaigns.body.data).toEqual([]);
  });
});
