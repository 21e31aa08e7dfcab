import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { hashKey } from '../../shared/model/api-key.ts';
import { KEY_CACHE_SECONDS } from '../../shared/store/api-keys.ts';
import { advanceClock, call, newMerchant } from '../support/api.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

const ME = '/v1/auth/me';

function expectEnvelope(response: { status: number; body: any; headers: Record<string, string> }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body.error.code).toBe(code);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.request_id).toBe(response.headers['X-Request-Id']);
  expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts:\d+/);
}

describe('API key authentication (§5)', () => {
  it('identifies merchant, environment, scopes and plan from the key', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant({ plan: 'growth' });
    // Act
    const response = await call('GET', ME, { key: keys.test_read });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      merchant_id: merchantId,
      environment: 'test',
      livemode: false,
      key_type: 'secret',
      scopes: ['read'],
      plan: 'growth',
      key_expires_at: null,
      rate_limit: { limit: 100, window_seconds: 60 },
    });
    expect(response.body.data.key_id).toMatch(/^key_/);
    const live = await call('GET', ME, { key: keys.live_admin });
    expect(live.body.data).toMatchObject({ environment: 'live', livemode: true, scopes: ['admin'] });
  });

  it.each([
    ['no Authorization header', {}],
    ['a non-Bearer scheme', { headers: { authorization: 'Basic abc' } }],
    ['a malformed key', { key: 'svc_test_short' }],
    ['an unknown prefix', { key: 'sk_test_0123456789012345678901234567890a' }],
    ['an unknown well-formed key', { key: 'svc_test_0123456789abcdefghijABCDEFGHIJ01' }],
  ])('refuses %s with 401 invalid_api_key', async (_, options) => {
    const response = await call('GET', ME, options);
    expectEnvelope(response, 401, 'invalid_api_key');
    expect(response.headers['X-RateLimit-Limit']).toBeUndefined();
  });

  it('refuses a key whose prefix was changed to another environment', async () => {
    const { keys } = await newMerchant();
    const relabelled = keys.live_admin.replace('svc_live_', 'svc_test_');
    expectEnvelope(await call('GET', ME, { key: relabelled }), 401, 'invalid_api_key');
  });

  it('refuses a test key used on a live resource, and the reverse (§5 rule 1)', async () => {
    const { keys } = await newMerchant();
    const liveKey = await call('POST', '/v1/api-keys', { key: keys.live_admin, body: { name: 'live ops', scopes: ['read'] } });
    expect(liveKey.status).toBe(201);
    const crossed = await call('POST', `/v1/api-keys/${liveKey.body.data.id}/revoke`, { key: keys.test_admin });
    expectEnvelope(crossed, 401, 'invalid_api_key');
    expect(crossed.body.error.message).toContain('live mode');
    const testKey = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'test ops', scopes: ['read'] } });
    expectEnvelope(await call('POST', `/v1/api-keys/${testKey.body.data.id}/rotate`, { key: keys.live_admin }), 401, 'invalid_api_key');
  });

  it("cannot reach another merchant's key: 404", async () => {
    const first = await newMerchant();
    const second = await newMerchant();
    const created = await call('POST', '/v1/api-keys', { key: first.keys.test_admin, body: { name: 'mine', scopes: ['read'] } });
    const response = await call('POST', `/v1/api-keys/${created.body.data.id}/revoke`, { key: second.keys.test_admin });
    expectEnvelope(response, 404, 'resource_not_found');
  });

  it('stops accepting a key created with an expiry once it passes', async () => {
    const { keys } = await newMerchant();
    const expiresAt = new Date(Date.now() + 3600_000 * 48).toISOString();
    const created = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'temp', scopes: ['read'], expires_at: expiresAt } });
    expect(created.status).toBe(201);
    const me = await call('GET', ME, { key: created.body.data.secret });
    expect(me.body.data.key_expires_at).toBe(expiresAt);
    advanceClock(49 * 3600);
    const expired = await call('GET', ME, { key: created.body.data.secret });
    expectEnvelope(expired, 401, 'invalid_api_key');
    expect(expired.body.error.message).toContain('expired');
  });

  it('keeps a rotated key working for 24 hours, then refuses it', async () => {
    // Prepare
    const { keys } = await newMerchant();
    const created = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'rotating', scopes: ['read'] } });
    const oldSecret = created.body.data.secret;
    // Act
    const rotated = await call('POST', `/v1/api-keys/${created.body.data.id}/rotate`, { key: keys.test_admin });
    // Assess
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.secret;
    expect(newSecret).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.data.rotated_at).not.toBeNull();
    const oldDuringGrace = await call('GET', ME, { key: oldSecret });
    expect(oldDuringGrace.status).toBe(200);
    expect(oldDuringGrace.body.data.key_expires_at).not.toBeNull();
    advanceClock(24 * 3600 - 5);
    expect((await call('GET', ME, { key: oldSecret })).status).toBe(200);
    advanceClock(10);
    expectEnvelope(await call('GET', ME, { key: oldSecret }), 401, 'invalid_api_key');
    expect((await call('GET', ME, { key: newSecret })).status).toBe(200);
  });

  it('revocation stops the key and any secret still in its grace period at once', async () => {
    const { keys } = await newMerchant();
    const created = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'revoked', scopes: ['read'] } });
    const rotated = await call('POST', `/v1/api-keys/${created.body.data.id}/rotate`, { key: keys.test_admin });
    const revoked = await call('POST', `/v1/api-keys/${created.body.data.id}/revoke`, { key: keys.test_admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.status).toBe('revoked');
    expectEnvelope(await call('GET', ME, { key: created.body.data.secret }), 401, 'invalid_api_key');
    expectEnvelope(await call('GET', ME, { key: rotated.body.data.secret }), 401, 'invalid_api_key');
    expectEnvelope(await call('POST', `/v1/api-keys/${created.body.data.id}/revoke`, { key: keys.test_admin }), 409, 'state_conflict');
    expectEnvelope(await call('POST', `/v1/api-keys/${created.body.data.id}/rotate`, { key: keys.test_admin }), 409, 'state_conflict');
  });

  it('concurrent rotations never lose one: one current secret, every replaced one in its grace period', async () => {
    // Prepare
    const { keys } = await newMerchant();
    const created = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'raced', scopes: ['read'] } });
    // Act
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call('POST', `/v1/api-keys/${created.body.data.id}/rotate`, { key: keys.test_admin })),
    );
    // Assess
    const winners = results.filter((r) => r.status === 200);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    for (const loser of results.filter((r) => r.status !== 200)) expectEnvelope(loser, 409, 'state_conflict');
    const secrets = [created.body.data.secret, ...winners.map((r) => r.body.data.secret)];
    const expiries = await Promise.all(secrets.map(async (secret) => (await call('GET', ME, { key: secret })).body.data.key_expires_at));
    expect(expiries.filter((expiry) => expiry === null)).toHaveLength(1);
    expect(expiries.filter((expiry) => typeof expiry === 'string')).toHaveLength(secrets.length - 1);
  });
});

describe('key lookups cached per instance', () => {
  it('rotation and revocation through this instance apply to its cached lookups at once', async () => {
    // Prepare: the key authenticated once, so this instance holds its lookup
    const { keys } = await newMerchant();
    const created = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'cached', scopes: ['read'] } });
    expect((await call('GET', ME, { key: created.body.data.secret })).body.data.key_expires_at).toBeNull();
    // Act
    const rotated = await call('POST', `/v1/api-keys/${created.body.data.id}/rotate`, { key: keys.test_admin });
    const inGrace = await call('GET', ME, { key: created.body.data.secret });
    await call('POST', `/v1/api-keys/${created.body.data.id}/revoke`, { key: keys.test_admin });
    // Assess
    expect(inGrace.body.data.key_expires_at).not.toBeNull();
    expectEnvelope(await call('GET', ME, { key: created.body.data.secret }), 401, 'invalid_api_key');
    expectEnvelope(await call('GET', ME, { key: rotated.body.data.secret }), 401, 'invalid_api_key');
  });

  it(`a key revoked on another instance stops working here within ${KEY_CACHE_SECONDS} s (docs/decisions.md)`, async () => {
    // Prepare
    const { keys } = await newMerchant();
    expect((await call('GET', ME, { key: keys.test_read })).status).toBe(200);
    // Act: what another instance's revocation leaves in the table
    await runtime.db.send(new DeleteCommand({ TableName: runtime.tableName, Key: { pk: `KEYHASH#${hashKey(keys.test_read)}`, sk: 'KEYHASH' } }));
    const stillCached = await call('GET', ME, { key: keys.test_read });
    advanceClock(KEY_CACHE_SECONDS);
    const afterTtl = await call('GET', ME, { key: keys.test_read });
    // Assess
    expect(stillCached.status).toBe(200);
    expectEnvelope(afterTtl, 401, 'invalid_api_key');
  });
});

describe('scopes (§5 rule 4)', () => {
  it('needs admin to manage keys; read, write and publishable keys get 403 insufficient_scope', async () => {
    const { keys } = await newMerchant();
    for (const key of [keys.test_read, keys.test_write, keys.pub]) {
      expectEnvelope(await call('GET', '/v1/api-keys', { key }), 403, 'insufficient_scope');
      expectEnvelope(await call('POST', '/v1/api-keys', { key, body: { name: 'x', scopes: ['read'] } }), 403, 'insufficient_scope');
    }
    expect((await call('GET', '/v1/api-keys', { key: keys.test_admin })).status).toBe(200);
  });

  it('lets any valid key, publishable included, read /v1/auth/me', async () => {
    const { keys } = await newMerchant();
    const response = await call('GET', ME, { key: keys.pub });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key_type: 'publishable', scopes: ['widget'], environment: 'test' });
    // What a web page may learn: not the merchant's plan, trial or allowed networks.
    expect(response.body.data).not.toHaveProperty('ip_allowlist');
    expect(response.body.data).not.toHaveProperty('plan');
    expect(response.body.data).not.toHaveProperty('trial_ends_at');
    expect((await call('GET', ME, { key: keys.test_read })).body.data).toMatchObject({ plan: 'enterprise', ip_allowlist: [] });
  });
});

describe('trial expiry (§5)', () => {
  it('blocks writes with 403 trial_expired and keeps reads working', async () => {
    const { keys } = await newMerchant({ trialEndsAt: new Date(Date.now() - 1000).toISOString() });
    expect((await call('GET', '/v1/api-keys', { key: keys.test_admin })).status).toBe(200);
    expectEnvelope(await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'x', scopes: ['read'] } }), 403, 'trial_expired');
  });

  it('keeps the safety actions allowed after the trial ends, while every other write still gets trial_expired', async () => {
    // Prepare: a merchant whose trial ends in an hour, with a key, two webhook endpoints, a processor and a customer.
    const { keys } = await newMerchant({ trialEndsAt: new Date(runtime.clock.now().getTime() + 3_600_000).toISOString() });
    const admin = keys.test_admin;
    const leaked = (await call('POST', '/v1/api-keys', { key: admin, body: { name: 'leaked', scopes: ['read'] } })).body.data;
    const endpoint = async () => (await call('POST', '/v1/webhooks', { key: admin, body: { url: 'https://example.com/hooks', events: ['*'] } })).body.data.id as string;
    const [toDisable, toDelete] = [await endpoint(), await endpoint()];
    const webhookPath = await connect(admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const failed = await postGeneric(webhookPath, genericFailure());
    expect(failed.status).toBe(200);
    advanceClock(2 * 3600);
    // Act
    const revoked = await call('POST', `/v1/api-keys/${leaked.id}/revoke`, { key: admin });
    const erased = await call('DELETE', `/v1/customers/${failed.body.customer_id}`, { key: admin });
    const disabled = await call('PUT', `/v1/webhooks/${toDisable}`, { key: admin, body: { enabled: false } });
    const deleted = await call('DELETE', `/v1/webhooks/${toDelete}`, { key: admin });
    const replaced = await call('PUT', '/v1/processors/acme', { key: admin, body: { webhook_secret: 'replaced-after-the-trial-0123456789' } });
    const rolled = await call('POST', '/v1/cancel-flows/signing-secret/roll', { key: admin, body: { expire_previous: 'now' } });
    const refused = [
      await call('POST', '/v1/api-keys', { key: admin, body: { name: 'new', scopes: ['read'] } }),
      await call('POST', `/v1/api-keys/${leaked.id}/rotate`, { key: admin }),
      await call('POST', '/v1/webhooks', { key: admin, body: { url: 'https://example.com/more', events: ['*'] } }),
      // Only an update that just disables is the safety action.
      await call('PUT', `/v1/webhooks/${toDisable}`, { key: admin, body: { enabled: true } }),
      await call('PUT', `/v1/webhooks/${toDisable}`, { key: admin, body: { enabled: false, url: 'https://example.com/elsewhere' } }),
      await call('PUT', `/v1/webhooks/${toDisable}`, { key: admin, body: { enabled: 'false' } }),
      await call('PUT', `/v1/webhooks/${toDisable}`, { key: admin, rawBody: '{"enabled": false', headers: { 'content-type': 'application/json' } }),
      await call('POST', '/v1/cancel-flows', { key: admin, body: { name: 'x', steps: [] } }),
    ];
    // Assess
    for (const [answer, status] of [[revoked, 200], [erased, 200], [disabled, 200], [deleted, 200], [replaced, 200], [rolled, 200]] as const) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    }
    expect(revoked.body.data.revoked_at).not.toBeNull();
    expect((await call('GET', '/v1/auth/me', { key: leaked.secret })).status).toBe(401);
    expect((await call('GET', `/v1/customers/${failed.body.customer_id}`, { key: admin })).status).toBe(404);
    expect((await call('GET', `/v1/webhooks/${toDisable}`, { key: admin })).body.data).toMatchObject({ enabled: false, disabled_reason: 'merchant', url: 'https://example.com/hooks' });
    expect((await call('GET', `/v1/webhooks/${toDelete}`, { key: admin })).status).toBe(404);
    // The replaced secret cut the old one off: events signed with it are refused.
    expect((await postGeneric(webhookPath, genericFailure())).status).toBe(400);
    for (const answer of refused) expectEnvelope(answer, 403, 'trial_expired');
    expect(refused[0]!.body.error.message).toContain('revoking API keys');
  });

  it('allows writes while the trial runs', async () => {
    const { keys } = await newMerchant({ trialEndsAt: new Date(Date.now() + 7 * 86400_000).toISOString() });
    expect((await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'x', scopes: ['read'] } })).status).toBe(201);
  });
});

describe('IP allowlist (§5 rule 5)', () => {
  it('admits listed addresses and CIDR ranges, refuses others with 403 ip_not_allowed', async () => {
    const { keys } = await newMerchant({ ipAllowlist: ['198.51.100.7', '10.20.0.0/16'] });
    expect((await call('GET', ME, { key: keys.test_read, sourceIp: '198.51.100.7' })).status).toBe(200);
    expect((await call('GET', ME, { key: keys.test_read, sourceIp: '10.20.255.1' })).status).toBe(200);
    const refused = await call('GET', ME, { key: keys.test_read, sourceIp: '10.21.0.1' });
    expectEnvelope(refused, 403, 'ip_not_allowed');
    expectEnvelope(await call('GET', ME, { key: keys.test_read, sourceIp: '198.51.100.8' }), 403, 'ip_not_allowed');
  });

  it('applies a changed allowlist to existing keys at once', async () => {
    const { merchantId, keys } = await newMerchant();
    expect((await call('GET', ME, { key: keys.test_read, sourceIp: '192.0.2.1' })).status).toBe(200);
    const { changeMerchantTerms } = await import('../../shared/domain/access/merchant-onboarding.ts');
    await changeMerchantTerms(merchantId, { ipAllowlist: ['192.0.2.128/25'] }, new Date());
    expectEnvelope(await call('GET', ME, { key: keys.test_read, sourceIp: '192.0.2.1' }), 403, 'ip_not_allowed');
    expect((await call('GET', ME, { key: keys.test_read, sourceIp: '192.0.2.200' })).status).toBe(200);
  });
});
