import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await startLocalServer();
});

afterAll(async () => {
  await server?.stop();
});

async function api(path: string, key: string | undefined, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (key) headers.set('Authorization', `Bearer ${key}`);
  if (init.body) headers.set('Content-Type', 'application/json');
  const response = await fetch(`${server.baseUrl}${path}`, { ...init, headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** A request from another loopback address, to exercise the IP allowlist with a real socket. */
function getFrom(localAddress: string, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.baseUrl);
    const req = request(url, { localAddress, headers: { Authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('local server, as a client sees it', () => {
  it('seeds a demo merchant and serves /v1/auth/me with its keys', async () => {
    const { credentials } = server;
    expect(credentials.base_url).toBe(server.baseUrl);
    expect(Object.keys(credentials.keys).sort()).toEqual(['live_admin', 'pub', 'test_admin', 'test_read', 'test_write']);
    const me = await api('/v1/auth/me', credentials.keys.test_admin);
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ merchant_id: credentials.merchant_id, plan: 'enterprise', environment: 'test' });
    expect(me.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(me.headers.get('x-request-id')).toBeTruthy();
  });

  it('creates, lists, rotates and revokes API keys over HTTP', async () => {
    const admin = server.credentials.keys.test_admin;
    const created = await api('/v1/api-keys', admin, { method: 'POST', body: JSON.stringify({ name: 'reporting', scopes: ['read', 'analytics'] }) });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'reporting', scopes: ['read', 'analytics'], environment: 'test' });
    const secret: string = created.body.data.secret;
    expect((await api('/v1/auth/me', secret)).body.data.scopes).toEqual(['read', 'analytics']);
    const listed = await api('/v1/api-keys?per_page=100', admin);
    const entry = listed.body.data.find((key: { id: string }) => key.id === created.body.data.id);
    expect(entry).toBeDefined();
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const rotated = await api(`/v1/api-keys/${created.body.data.id}/rotate`, admin, { method: 'POST' });
    expect(rotated.status).toBe(200);
    expect((await api('/v1/auth/me', secret)).status).toBe(200);
    const clock = await fetch(`${server.baseUrl}/__dev/clock`, { method: 'POST', body: JSON.stringify({ advance_seconds: 24 * 3600 + 1 }) });
    expect(clock.status).toBe(200);
    expect((await api('/v1/auth/me', secret)).status).toBe(401);
    expect((await api('/v1/auth/me', rotated.body.data.secret)).status).toBe(200);
    const revoked = await api(`/v1/api-keys/${created.body.data.id}/revoke`, admin, { method: 'POST' });
    expect(revoked.body.data.status).toBe('revoked');
    expect((await api('/v1/auth/me', rotated.body.data.secret)).status).toBe(401);
  });

  it('answers unknown routes and bad input in the envelope', async () => {
    const missing = await api('/v1/nothing-here', server.credentials.keys.test_read);
    expect(missing.status).toBe(404);
    expect(missing.body.error.request_id).toBe(missing.headers.get('x-request-id'));
    expect(missing.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect((await api('/v1/nothing-here', undefined)).status).toBe(401);
    const malformed = await fetch(`${server.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.credentials.keys.test_admin}`, 'Content-Type': 'application/json' },
      body: '{oops',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe('invalid_request');
    // Over API Gateway's 10 MB: an answer in the envelope, not a reset connection.
    const oversized = await fetch(`${server.baseUrl}/v1/campaigns`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.credentials.keys.test_admin}`, 'Content-Type': 'application/json' },
      body: `"${'a'.repeat(11 * 1024 * 1024)}"`,
    });
    expect(oversized.status).toBe(413);
    const tooLarge = (await oversized.json()) as any;
    expect(tooLarge.error).toMatchObject({ code: 'payload_too_large', request_id: oversized.headers.get('x-request-id') });
  });

  it("answers a URL or headers over API Gateway's limits as API Gateway would, in the envelope", async () => {
    // Prepare: 20 KB each, past Node's own 16 KB default and API Gateway's 10,240 bytes
    const key = server.credentials.keys.test_read;
    const longQuery = `/v1/payments?status=${'x'.repeat(20 * 1024)}`;
    const largeHeader = { 'X-Trace': 'y'.repeat(20 * 1024) };
    // Act
    const uriTooLong = await api(longQuery, key);
    const headersTooLarge = await api('/v1/auth/me', key, { headers: largeHeader });
    const pastNodeLimit = await api('/v1/auth/me', key, { headers: { 'X-Trace': 'z'.repeat(70 * 1024) } });
    const justUnder = await api('/v1/auth/me', key, { headers: { 'X-Trace': 'p'.repeat(9 * 1024) } });
    // Assess
    expect(uriTooLong.status).toBe(414);
    expect(uriTooLong.body.error).toEqual({
      code: 'invalid_request',
      message: 'The request URL is longer than 10,240 characters, the most API Gateway accepts',
      request_id: uriTooLong.headers.get('x-request-id'),
    });
    for (const refused of [headersTooLarge, pastNodeLimit]) {
      expect(refused.status).toBe(431);
      expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(refused.body.error).toEqual({
        code: 'invalid_request',
        message: 'The request line and headers are larger than 10,240 bytes, the most API Gateway accepts',
        request_id: refused.headers.get('x-request-id'),
      });
    }
    expect(justUnder.status).toBe(200);
  });

  it("signs the demo page's starts as a merchant's server would, with the demo merchant's test secret", async () => {
    // Prepare
    const { credentials } = server;
    const secret = (await api('/v1/cancel-flows/signing-secret', credentials.keys.test_admin)).body.data.secret as string;
    // Act
    const page = await (await fetch(`${server.baseUrl}/demo/cancel?customer=cust_demo_signed&subscription=sub_demo_signed`)).text();
    const signature = /data-auth-hash="([0-9a-f]{64})"/.exec(page)?.[1];
    const started = await api('/api/cancel-session/start', undefined, {
      method: 'POST',
      body: JSON.stringify({ merchant_id: credentials.merchant_id, customer_id: 'cust_demo_signed', subscription_id: 'sub_demo_signed', environment: 'test', auth_hash: signature }),
    });
    // Assess
    expect(signature).toBe(createHmac('sha256', secret).update('cust_demo_signed:sub_demo_signed').digest('hex'));
    expect(started.status).toBe(201);
  });

  it('ops CLI creates and updates merchants and keys against the running server', async () => {
    const made = await server.ops(['merchant', 'create', '--plan', 'starter', '--ip-allowlist', '127.0.0.2/32']);
    expect(made.code).toBe(0);
    const merchant = JSON.parse(made.stdout);
    expect(merchant.merchant_id).toMatch(/^mer_/);
    expect(Object.keys(merchant.keys)).toHaveLength(5);
    // Allowlisted for 127.0.0.2 only: a request from 127.0.0.1 is refused, one from 127.0.0.2 admitted.
    expect(await getFrom('127.0.0.1', '/v1/auth/me', merchant.keys.test_read)).toBe(403);
    expect(await getFrom('127.0.0.2', '/v1/auth/me', merchant.keys.test_read)).toBe(200);

    const updated = await server.ops(['merchant', 'update', merchant.merchant_id, '--plan', 'growth', '--ip-allowlist', '']);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ plan: 'growth', ip_allowlist: [] });
    const me = await api('/v1/auth/me', merchant.keys.test_read);
    expect(me.status).toBe(200);
    expect(me.body.data.plan).toBe('growth');

    const key = await server.ops(['key', 'create', '--merchant', merchant.merchant_id, '--env', 'live', '--scopes', 'read,webhooks']);
    expect(key.code).toBe(0);
    const issued = JSON.parse(key.stdout);
    expect(issued.secret).toMatch(/^svc_live_/);
    const liveMe = await api('/v1/auth/me', issued.secret);
    expect(liveMe.body.data).toMatchObject({ environment: 'live', scopes: ['read', 'webhooks'], merchant_id: merchant.merchant_id });

    const bad = await server.ops(['merchant', 'create', '--plan', 'platinum']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr.split('\n').find((line) => line.startsWith('{'))!).error.message).toContain('--plan');
  }, 180_000);
});

describe('local server bound to a non-loopback address (HOST=0.0.0.0)', () => {
  let open: RunningServer;

  beforeAll(async () => {
    open = await startLocalServer({ HOST: '0.0.0.0' });
  });

  afterAll(async () => {
    await open?.stop();
  });

  it("answers /__dev/* with the API's 404 or 405, says so at start, and serves the API as usual", async () => {
    // Prepare
    const before = await fetch(`${server.baseUrl}/__dev/clock`);
    // Act
    const clock = await fetch(`${open.baseUrl}/__dev/clock`);
    const advance = await fetch(`${open.baseUrl}/__dev/clock`, { method: 'POST', body: JSON.stringify({ advance_seconds: 86_400 }) });
    const outbox = await fetch(`${open.baseUrl}/__dev/outbox`);
    const me = await fetch(`${open.baseUrl}/v1/auth/me`, { headers: { Authorization: `Bearer ${open.credentials.keys.test_admin}` } });
    // Assess
    expect(before.status).toBe(200);
    for (const refused of [clock, advance, outbox]) {
      expect([404, 405]).toContain(refused.status);
      const body = (await refused.json()) as any;
      expect(body.error.code).toMatch(/^(resource_not_found|method_not_allowed)$/);
      expect(body.error.request_id).toBeTruthy();
    }
    expect(me.status).toBe(200);
    expect(open.output()).toContain('"dev_routes": "off: 0.0.0.0 is not a loopback address');
    expect(server.output()).not.toContain('dev_routes');
  });
});
