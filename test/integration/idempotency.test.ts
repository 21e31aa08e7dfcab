import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_LOCK_SECONDS } from '../../shared/http/idempotency.ts';
import { ROUTE_TIMEOUT_SECONDS } from '../../shared/routes.ts';
import { runtime } from '../../shared/runtime.ts';
import { advanceClock, call, newMerchant } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';

async function keyCount(adminKey: string): Promise<number> {
  return (await call('GET', '/v1/api-keys', { key: adminKey })).body.pagination.total;
}

describe('Idempotency-Key on POST', () => {
  it('replays the first response for the same key and body, without running the operation again', async () => {
    // Prepare
    const { keys } = await newMerchant();
    const request = { key: keys.test_admin, body: { name: 'ci', scopes: ['read'] }, headers: { 'idempotency-key': 'create-ci-1' } };
    // Act
    const first = await call('POST', '/v1/api-keys', request);
    const second = await call('POST', '/v1/api-keys', request);
    // Assess
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['Idempotent-Replayed']).toBe('true');
    expect(second.headers['X-Request-Id']).not.toBe(first.headers['X-Request-Id']);
    expect(await keyCount(keys.test_admin)).toBe(5);
  });

  it('compares parameters, not bytes: the same JSON re-serialised replays', async () => {
    const { keys } = await newMerchant();
    const headers = { 'idempotency-key': 'reordered-1' };
    const first = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'ci', scopes: ['read'] }, headers });
    const again = await call('POST', '/v1/api-keys', { key: keys.test_admin, rawBody: '{ "scopes": [ "read" ],\n  "name": "ci" }', headers });
    expect(again.status).toBe(201);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it('refuses the same key with a different body: 422 idempotency_key_reused', async () => {
    const { keys } = await newMerchant();
    const headers = { 'idempotency-key': 'k-1' };
    await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'a', scopes: ['read'] }, headers });
    const reused = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'b', scopes: ['read'] }, headers });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused' });
    // Not an input problem: §7 gives param to validation errors only.
    expect(reused.body.error).not.toHaveProperty('param');
  });

  it('runs concurrent requests with one key once', async () => {
    const { keys } = await newMerchant();
    const request = { key: keys.test_admin, body: { name: 'burst', scopes: ['read'] }, headers: { 'idempotency-key': 'burst-1' } };
    const responses = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/v1/api-keys', request)));
    const succeeded = responses.filter((r) => r.status === 201);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    expect(new Set(succeeded.map((r) => r.body.data.id)).size).toBe(1);
    for (const other of responses.filter((r) => r.status !== 201)) expect(other.body.error.code).toBe('idempotency_key_in_use');
    expect(await keyCount(keys.test_admin)).toBe(5);
  });

  it('keeps keys per merchant and environment, and forgets them after 24 hours', async () => {
    const { keys } = await newMerchant();
    const body = { name: 'daily', scopes: ['read'] };
    const headers = { 'idempotency-key': 'same-key' };
    const test = await call('POST', '/v1/api-keys', { key: keys.test_admin, body, headers });
    const live = await call('POST', '/v1/api-keys', { key: keys.live_admin, body, headers });
    expect(live.body.data.id).not.toBe(test.body.data.id);
    advanceClock(24 * 3600 + 1);
    const later = await call('POST', '/v1/api-keys', { key: keys.test_admin, body, headers });
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(test.body.data.id);
  });

  it('does not save validation failures: the corrected request runs under the same key', async () => {
    const { keys } = await newMerchant();
    const headers = { 'idempotency-key': 'fix-me' };
    const bad = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: '', scopes: ['read'] }, headers });
    expect(bad.status).toBe(422);
    const fixed = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'ok', scopes: ['read'] }, headers });
    expect(fixed.status).toBe(201);
  });

  it('replays conflicts too: a second revoke under the same key returns the first answer', async () => {
    const { keys } = await newMerchant();
    const created = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'x', scopes: ['read'] } });
    const path = `/v1/api-keys/${created.body.data.id}/revoke`;
    const first = await call('POST', path, { key: keys.test_admin, headers: { 'idempotency-key': 'rv' } });
    const again = await call('POST', path, { key: keys.test_admin, headers: { 'idempotency-key': 'rv' } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    const fresh = await call('POST', path, { key: keys.test_admin, headers: { 'idempotency-key': 'rv-2' } });
    expect(fresh.status).toBe(409);
  });

  it('keeps a response that shows a secret sealed: the same API key gets it again, another key and the table never do', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const anotherAdmin = (await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'second admin', scopes: ['admin'] } })).body.data.secret;
    const request = { body: { name: 'deploy', scopes: ['write'] }, headers: { 'idempotency-key': 'sealed-1' } };
    const endpointRequest = { body: { url: 'https://hooks.example.com/recovery', events: ['payment.recovered'] }, headers: { 'idempotency-key': 'sealed-2' } };
    // Act
    const first = await call('POST', '/v1/api-keys', { key: keys.test_admin, ...request });
    const again = await call('POST', '/v1/api-keys', { key: keys.test_admin, ...request });
    const byAnotherKey = await call('POST', '/v1/api-keys', { key: anotherAdmin, ...request });
    const endpoint = await call('POST', '/v1/webhooks', { key: keys.test_admin, ...endpointRequest });
    const endpointAgain = await call('POST', '/v1/webhooks', { key: keys.test_admin, ...endpointRequest });
    // Assess
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(byAnotherKey.status).toBe(422);
    expect(byAnotherKey.body.error).toMatchObject({ code: 'idempotency_key_reused', message: expect.stringContaining('another API key') });
    expect(JSON.stringify(byAnotherKey.body)).not.toContain(first.body.data.secret);
    expect(endpointAgain.body.data.secret).toBe(endpoint.body.data.secret);
    const stored = JSON.stringify(await tenantItems({ merchantId, environment: 'test' }, 'IDEMPOTENCY#'));
    expect(stored).toContain('sealed-1');
    expect(stored).not.toContain(first.body.data.secret);
    expect(stored).not.toContain(endpoint.body.data.secret);
    // Not sealed: a response without a secret is replayed to any key of the merchant, as before.
    const revoke = { headers: { 'idempotency-key': 'plain-1' } };
    const revoked = await call('POST', `/v1/api-keys/${first.body.data.id}/revoke`, { key: keys.test_admin, ...revoke });
    const revokedAgain = await call('POST', `/v1/api-keys/${first.body.data.id}/revoke`, { key: anotherAdmin, ...revoke });
    expect(revokedAgain.body).toEqual(revoked.body);
    expect(await keyCount(keys.test_admin)).toBe(6);
  });

  it('keeps the key of a try that failed and could not release it only while that try could still run', async () => {
    // Prepare: the operation's write and then the release of its key fail, past the SDK's tries.
    const { keys } = await newMerchant();
    const request = { key: keys.test_admin, body: { name: 'stuck', scopes: ['read'] }, headers: { 'idempotency-key': 'stuck-1' } };
    const unavailable = () => Object.assign(new Error('We currently do not have sufficient capacity'), { name: 'InternalServerError', $fault: 'server' });
    runtime.db.middlewareStack.add(
      (next: (args: any) => Promise<any>, context: { commandName?: string }) => async (args: any) => {
        if (args.input?.TransactItems || (context.commandName === 'DeleteItemCommand' && String(args.input?.Key?.sk).startsWith('IDEMPOTENCY#'))) throw unavailable();
        return next(args);
      },
      { step: 'initialize', name: 'failedTryAndRelease' },
    );
    const claimedAfter = runtime.clock.now().getTime();
    let failed: unknown;
    try {
      // The release's error escapes the handler: the invocation fails (API Gateway answers 502).
      failed = await call('POST', '/v1/api-keys', request).catch((error: Error) => error.name);
    } finally {
      runtime.db.middlewareStack.remove('failedTryAndRelease');
    }
    const claimedBefore = runtime.clock.now().getTime();
    // Act: a resend while the failed try could still be running (its function's timeout not yet reached), then one past the lock.
    advanceClock((claimedAfter + (ROUTE_TIMEOUT_SECONDS - 6) * 1000 - runtime.clock.now().getTime()) / 1000);
    const whileHeld = await call('POST', '/v1/api-keys', request);
    advanceClock(Math.max(0, (claimedBefore + IDEMPOTENCY_LOCK_SECONDS * 1000 - runtime.clock.now().getTime()) / 1000));
    const afterLock = await call('POST', '/v1/api-keys', request);
    const replayed = await call('POST', '/v1/api-keys', request);
    // Assess
    expect(failed).toBe('InternalServerError');
    expect(whileHeld.status).toBe(409);
    expect(whileHeld.body.error.code).toBe('idempotency_key_in_use');
    expect(afterLock.status).toBe(201);
    expect(replayed.headers['Idempotent-Replayed']).toBe('true');
    expect(replayed.body.data.id).toBe(afterLock.body.data.id);
    expect(await keyCount(keys.test_admin)).toBe(5);
  });

  it('refuses a malformed key with 400', async () => {
    const { keys } = await newMerchant();
    const response = await call('POST', '/v1/api-keys', {
      key: keys.test_admin,
      body: { name: 'x', scopes: ['read'] },
      headers: { 'idempotency-key': 'x'.repeat(300) },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('Idempotency-Key');
  });
});
