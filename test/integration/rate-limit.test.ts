import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { secondOf } from '../../shared/model/sliding-window.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { newId } from '../../shared/ids.ts';
import { admitRequest } from '../../shared/store/rate-limits.ts';
import { rateLimitPk } from '../../shared/store/keys.ts';
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
    // A second is held until all of it has left the window: a burst within one second waits up to 61.
    expect(refused.body.error.retry_after).toBeLessThanOrEqual(61);
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

  it('counts the publishable key in a window of its own: a page that embeds it cannot spend the server keys\' budget', async () => {
    const { keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 20; i++) expect((await call('GET', ME, { key: keys.pub })).status).toBe(200);
    expect((await call('GET', ME, { key: keys.pub })).status).toBe(429);
    const server = await call('GET', ME, { key: keys.test_read });
    expect(server.status).toBe(200);
    expect(server.headers['X-RateLimit-Remaining']).toBe('19');
  });

  it('follows plan changes: growth allows 100, a custom enterprise limit applies at once', async () => {
    const { merchantId, keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 20; i++) await call('GET', ME, { key: keys.test_read });
    expect((await call('GET', ME, { key: keys.test_read })).status).toBe(429);
    const { changeMerchantTerms } = await import('../../shared/domain/access/merchant-onboarding.ts');
    await changeMerchantTerms(merchantId, { plan: 'growth' }, runtime.clock.now());
    const upgraded = await call('GET', ME, { key: keys.test_read });
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers['X-RateLimit-Limit']).toBe('100');
    expect(upgraded.headers['X-RateLimit-Remaining']).toBe('79');
    await changeMerchantTerms(merchantId, { plan: 'enterprise', rateLimitOverride: 5 }, runtime.clock.now());
    const capped = await call('GET', ME, { key: keys.test_read });
    expect(capped.status).toBe(429);
    expect(capped.headers['X-RateLimit-Limit']).toBe('5');
    // §8: only the top plan's limit is customisable. A downgrade takes the plan's limit back; another plan cannot be given one.
    await changeMerchantTerms(merchantId, { plan: 'growth' }, runtime.clock.now());
    expect((await call('GET', ME, { key: keys.test_read })).headers['X-RateLimit-Limit']).toBe('100');
    expect((await call('GET', ME, { key: keys.test_read })).body.data.rate_limit.limit).toBe(100);
    await expect(changeMerchantTerms(merchantId, { rateLimitOverride: 500 }, runtime.clock.now())).rejects.toThrow(/enterprise plan only/);
    await expect(changeMerchantTerms(merchantId, { plan: 'scale', rateLimitOverride: 500 }, runtime.clock.now())).rejects.toThrow(/enterprise plan only/);
    await expect(newMerchant({ plan: 'starter', rateLimitOverride: 50 })).rejects.toThrow(/enterprise plan only/);
  });

  it('takes a custom limit up to what one window item serves with room to spare (10,000 a minute), and refuses more', async () => {
    const { merchantId, keys } = await newMerchant({ plan: 'enterprise' });
    const { changeMerchantTerms } = await import('../../shared/domain/access/merchant-onboarding.ts');
    await expect(changeMerchantTerms(merchantId, { rateLimitOverride: 10_001 }, runtime.clock.now())).rejects.toThrow('rate limit override must be an integer from 1 to 10000');
    await changeMerchantTerms(merchantId, { rateLimitOverride: 10_000 }, runtime.clock.now());
    expect((await call('GET', ME, { key: keys.test_read })).headers['X-RateLimit-Limit']).toBe('10000');
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

  it('answers a refused write with 429 before its invalid body, and an admitted one with the body error, counted', async () => {
    // Prepare: a write's body is validated while its admission is in flight (shared/http/rate-limit.ts)
    const { keys } = await newMerchant({ plan: 'starter' });
    for (let i = 0; i < 19; i++) await call('GET', ME, { key: keys.test_read });
    const invalidBody = { name: '', trigger: 'payment_failed', channels: ['email'], steps: [] };

    // Act
    const admitted = await call('POST', '/v1/campaigns', { key: keys.test_write, body: invalidBody });
    const refused = await call('POST', '/v1/campaigns', { key: keys.test_write, body: invalidBody });

    // Assess
    expect(admitted.status).toBe(422);
    expect(admitted.body.error.code).toBe('validation_error');
    expect(admitted.headers['X-RateLimit-Remaining']).toBe('0');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
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

describe('the window item (shared/store/rate-limits.ts)', () => {
  const aTenant = (): Tenant => ({ merchantId: newId('mer'), environment: 'test' });
  const windowItem = async (tenant: Tenant) =>
    (await runtime.db.send(new GetCommand({ TableName: runtime.tableName, Key: { pk: rateLimitPk(tenant, 'secret'), sk: 'RATE' }, ConsistentRead: true }))).Item!;
  const secondsKept = (item: Record<string, unknown>) => Object.keys(item).filter((name) => /^s\d+$/.test(name)).length;

  /** DynamoDB's size of an item of strings and numbers: names and strings by their UTF-8 bytes, numbers by about one byte per two digits, plus one. */
  const itemBytes = (item: Record<string, unknown>) =>
    Object.entries(item).reduce(
      (sum, [name, value]) =>
        sum + Buffer.byteLength(name) + (typeof value === 'number' ? Math.ceil(String(value).length / 2) + 1 : Buffer.byteLength(String(value))),
      0,
    );

  it('stays one count per second: a busy merchant over three minutes keeps at most the window\'s seconds, in one write unit', async () => {
    // Prepare
    const tenant = aTenant();
    let now = runtime.clock.now().getTime();
    // Act: three requests a second for 200 s, as one instance sees them
    for (let second = 0; second < 200; second++, now += 1_000) {
      for (let i = 0; i < 3; i++) expect((await admitRequest(rateLimitPk(tenant, 'secret'), 1_000, now + i)).admitted).toBe(true);
    }
    // Assess
    const item = await windowItem(tenant);
    // The window's 61 seconds (the current one among them) and up to four that left and wait to be removed together.
    expect(secondsKept(item)).toBeLessThanOrEqual(65);
    expect(item.total).toBe(Object.entries(item).reduce((sum, [name, value]) => (/^s\d+$/.test(name) ? sum + (value as number) : sum), 0));
    expect(itemBytes(item)).toBeLessThanOrEqual(1_024);
  });

  it('admits on an instance that never saw the item, though the seconds it holds sum past the limit, and drops them', async () => {
    // Prepare: another instance left 20 requests from two minutes ago, and an item from before the per-second counts carried its log
    const tenant = aTenant();
    const now = runtime.clock.now().getTime();
    const old = secondOf(now) - 120;
    await runtime.db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: { pk: rateLimitPk(tenant, 'secret'), sk: 'RATE', total: 20, [`s${old}`]: 12, [`s${old + 1}`]: 8, log: Array.from({ length: 20 }, (_, i) => now - 120_000 + i) },
      }),
    );
    // Act: this process has never seen the tenant's item
    const outcome = await admitRequest(rateLimitPk(tenant, 'secret'), 20, now);
    // Assess
    expect(outcome.admitted).toBe(true);
    // Removed by TTL once its last second has left the window.
    const expiresAt = secondOf(now) + 61;
    expect(await windowItem(tenant)).toEqual({ pk: rateLimitPk(tenant, 'secret'), sk: 'RATE', total: 1, [`s${secondOf(now)}`]: 1, expires_at: expiresAt });
  });

  it('refuses exactly at the limit when the window is full, whatever the instance knew', async () => {
    // Prepare
    const tenant = aTenant();
    const now = runtime.clock.now().getTime();
    await runtime.db.send(
      new PutCommand({ TableName: runtime.tableName, Item: { pk: rateLimitPk(tenant, 'secret'), sk: 'RATE', total: 5, [`s${secondOf(now) - 59}`]: 3, [`s${secondOf(now) - 1}`]: 2 } }),
    );
    // Act
    const refused = await admitRequest(rateLimitPk(tenant, 'secret'), 5, now);
    const stillRefused = await admitRequest(rateLimitPk(tenant, 'secret'), 5, now + 1_000);
    const admitted = await admitRequest(rateLimitPk(tenant, 'secret'), 5, (secondOf(now) - 59 + 61) * 1000);
    // Assess
    expect([refused.admitted, stillRefused.admitted, admitted.admitted]).toEqual([false, false, true]);
    const item = await windowItem(tenant);
    expect(item.total).toBe(3);
    expect(item[`s${secondOf(now) - 59}`]).toBeUndefined();
  });
});
