import { describe, expect, it, vi } from 'vitest';
import { lambdaContext, toLambdaEvent } from '../../bin/local/lambda-event.ts';
import type { ServiceContext } from '../../shared/http/context.ts';
import { publicHandler } from '../../shared/http/public-handler.ts';
import { call, newMerchant } from '../support/api.ts';
import { captureLogLines } from '../support/log-lines.ts';

describe('error envelope (§7)', () => {
  it('answers malformed JSON with 400 invalid_request', async () => {
    const { keys } = await newMerchant();
    const response = await call('POST', '/v1/api-keys', { key: keys.test_admin, rawBody: '{"name": ' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', request_id: response.headers['X-Request-Id'] });
    expect(response.body.error.param).toBeUndefined();
  });

  it('answers a deeply nested body in the envelope, never a 500', async () => {
    const { keys } = await newMerchant();
    const deep = `{"name":${'['.repeat(6_000)}"x"${']'.repeat(6_000)},"scopes":["read"]}`;
    const response = await call('POST', '/v1/api-keys', { key: keys.test_admin, rawBody: deep });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'validation_error', param: 'name' });
  });

  it('answers a missing required field with 400 invalid_request naming it', async () => {
    const { keys } = await newMerchant();
    const response = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { scopes: ['read'] } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'name' });
  });

  it('answers a field failing validation with 422 validation_error and a dotted param', async () => {
    const { keys } = await newMerchant();
    const badScope = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'x', scopes: ['read', 'root'] } });
    expect(badScope.status).toBe(422);
    expect(badScope.body.error).toMatchObject({ code: 'validation_error', param: 'scopes.1' });
    const badType = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 42, scopes: ['read'] } });
    expect(badType.status).toBe(422);
    expect(badType.body.error.param).toBe('name');
    const past = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'x', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' } });
    expect(past.status).toBe(422);
    expect(past.body.error.param).toBe('expires_at');
  });

  it('refuses unknown body and query parameters with 400 naming them', async () => {
    const { keys } = await newMerchant();
    const body = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'x', scopes: ['read'], admin: true } });
    expect(body.status).toBe(400);
    expect(body.body.error).toMatchObject({ code: 'invalid_request', param: 'admin' });
    const query = await call('GET', '/v1/api-keys', { key: keys.test_admin, query: { sort_by: 'name' } });
    expect(query.status).toBe(400);
    expect(query.body.error).toMatchObject({ code: 'invalid_request', param: 'sort_by' });
    // A parameter sent twice is refused too, instead of the last value silently winning.
    const twice = await call('GET', '/v1/payments', { key: keys.test_admin, query: [['status', 'pending'], ['status', 'recovered']] });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({ code: 'invalid_request', param: 'status', message: 'Received more than one value for query parameter: status' });
  });

  it('refuses a body that is not a JSON object, and a non-JSON content type', async () => {
    const { keys } = await newMerchant();
    const array = await call('POST', '/v1/api-keys', { key: keys.test_admin, rawBody: '[1,2]' });
    expect(array.status).toBe(400);
    expect(array.body.error.code).toBe('invalid_request');
    const form = await call('POST', '/v1/api-keys', {
      key: keys.test_admin,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.body.error.message).toContain('application/json');
  });

  it('answers unknown paths with 404 and wrong methods with 405 and Allow, in the envelope, with the rate-limit headers under /v1', async () => {
    const { keys } = await newMerchant();
    const missing = await call('GET', '/v1/does-not-exist', { key: keys.test_read });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'resource_not_found', request_id: missing.headers['X-Request-Id'] });
    const wrongMethod = await call('DELETE', '/v1/auth/me', { key: keys.test_read });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe('method_not_allowed');
    expect(wrongMethod.headers.Allow).toBe('GET');
    // §8: every REST response carries the window, and these requests count in it like any other.
    for (const response of [missing, wrongMethod]) expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(Number(wrongMethod.headers['X-RateLimit-Remaining'])).toBe(Number(missing.headers['X-RateLimit-Remaining']) - 1);
    // The merchant API checks the key first, on any path under /v1; outside it there is no key to check.
    const anonymous = await call('GET', '/v1/does-not-exist');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('invalid_api_key');
    const elsewhere = await call('GET', '/nothing-here');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers).not.toHaveProperty('X-RateLimit-Limit');
    // Served by two routes (Stripe's own and the generic processor one): each method once.
    const processorGet = await call('GET', '/webhooks/stripe/con_00000000000000000000000000');
    expect(processorGet.status).toBe(405);
    expect(processorGet.headers.Allow).toBe('POST');
    expect(processorGet.body.error.message).toContain('Allowed: POST.');
  });

  it('names a param only for input problems: a missing resource or a conflict has none (§7)', async () => {
    const { keys } = await newMerchant();
    const missing = await call('GET', '/v1/payments/pay_01jd3k00000000000000000000', { key: keys.test_read });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_not_found');
    expect(missing.body.error).not.toHaveProperty('param');
    const key = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'once', scopes: ['read'] } });
    await call('POST', `/v1/api-keys/${key.body.data.id}/revoke`, { key: keys.test_admin });
    const again = await call('POST', `/v1/api-keys/${key.body.data.id}/revoke`, { key: keys.test_admin });
    expect(again.status).toBe(409);
    expect(again.body.error).not.toHaveProperty('param');
  });

  it('turns an unexpected fault into a bare 500 internal_error, logged with the request id, no stack', async () => {
    // Prepare
    const failing = publicHandler(async () => {
      throw new Error('connection string postgres://secret@db');
    });
    const errors = captureLogLines('stderr');
    const event = toLambdaEvent(
      { method: 'GET', path: '/boom', query: new URLSearchParams(), headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
      '/boom',
      null,
    );
    // Act
    const result = await failing(event, lambdaContext('boom') as ServiceContext);
    // Assess
    const body = JSON.parse(result.body);
    expect(result.statusCode).toBe(500);
    expect(body.error.code).toBe('internal_error');
    expect(body.error.request_id).toBe(event.requestContext.requestId);
    expect(result.body).not.toContain('postgres');
    expect(result.body).not.toContain('.ts');
    vi.restoreAllMocks();
    const logged = errors.join('\n');
    expect(logged).toContain(event.requestContext.requestId);
    expect(logged).toContain('postgres://secret@db');
  });

  it('puts X-Request-Id on every response, successes included', async () => {
    const { keys } = await newMerchant();
    const response = await call('GET', '/v1/auth/me', { key: keys.test_read });
    expect(response.headers['X-Request-Id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('pagination (§8)', () => {
  it('defaults to page 1 of 20 and reports totals', async () => {
    const { keys } = await newMerchant();
    const response = await call('GET', '/v1/api-keys', { key: keys.test_admin });
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 4, page: 1, per_page: 20, total_pages: 1 });
    expect(response.body.data).toHaveLength(4);
  });

  it('walks pages until page reaches total_pages', async () => {
    const { keys } = await newMerchant();
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const response = await call('GET', '/v1/api-keys', { key: keys.test_admin, query: { page: String(page), per_page: '2' } });
      seen.push(...response.body.data.map((key: { id: string }) => key.id));
      expect(response.body.pagination).toMatchObject({ total: 4, page, per_page: 2, total_pages: 2 });
      if (page >= response.body.pagination.total_pages) break;
    }
    expect(new Set(seen).size).toBe(4);
  });

  it('answers a page past the end with an empty list, not an error', async () => {
    const { keys } = await newMerchant();
    const response = await call('GET', '/v1/api-keys', { key: keys.test_admin, query: { page: '10000' } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
  });

  it.each([
    ['page', '0'],
    ['page', '10001'],
    ['page', 'two'],
    ['page', '1.5'],
    ['per_page', '0'],
    ['per_page', '101'],
    ['per_page', '-5'],
  ])('refuses %s=%s with 400 naming the parameter', async (param, value) => {
    const { keys } = await newMerchant();
    const response = await call('GET', '/v1/api-keys', { key: keys.test_admin, query: { [param]: value } });
    expect(response.status).toBe(400);
    const bounds = param === 'page' ? '1 to 10000' : '1 to 100';
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param, message: `Invalid ${param}: must be an integer from ${bounds}` });
  });

  it('accepts the bounds themselves', async () => {
    const { keys } = await newMerchant();
    const first = await call('GET', '/v1/api-keys', { key: keys.test_admin, query: { page: '1', per_page: '1' } });
    const last = await call('GET', '/v1/api-keys', { key: keys.test_admin, query: { page: '10000', per_page: '100' } });
    expect([first.status, last.status]).toEqual([200, 200]);
  });
});
