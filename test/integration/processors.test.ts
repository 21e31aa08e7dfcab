import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { sealCredentials } from '../../shared/domain/ingestion/processor-credentials.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { call, newMerchant } from '../support/api.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const REPLACED_SECRET = 'replaced-generic-secret-0123456789';

/** What another instance's `PUT /v1/processors/{psp}` leaves in the table, without this instance hearing of it. */
async function replaceSecretOnAnotherInstance(tenant: Tenant, webhookPath: string, webhookSecret: string): Promise<void> {
  const connectionId = webhookPath.split('/').pop()!;
  const sealed = await sealCredentials(localRuntime().keyVault, tenant, 'acme', { kind: 'generic', webhookSecret });
  await runtime.db.send(
    new UpdateCommand({
      TableName: runtime.tableName,
      Key: { pk: `CONNECTION#${connectionId}`, sk: 'CONNECTION' },
      UpdateExpression: 'SET sealed_credentials = :sealed',
      ExpressionAttributeValues: { ':sealed': sealed },
    }),
  );
}

describe('processor connections', () => {
  it('connects stripe, braintree and a generic processor; lists them with webhook URLs and no secrets', async () => {
    // Prepare
    const { keys } = await newMerchant();
    // Act
    const stripe = await call('PUT', '/v1/processors/stripe', { key: keys.test_admin, body: { webhook_secret: 'whsec_abcdef0123456789', api_key: 'sk_test_abc123' } });
    const braintree = await call('PUT', '/v1/processors/braintree', {
      key: keys.test_admin,
      body: { merchant_id: 'm1', public_key: 'pub', private_key: 'priv', merchant_account_id: 'acct' },
    });
    const adyen = await call('PUT', '/v1/processors/adyen', { key: keys.test_admin, body: { webhook_secret: 'a-long-generic-secret-value' } });
    // Assess
    for (const response of [stripe, braintree, adyen]) expect(response.status).toBe(200);
    expect(stripe.body.data).toMatchObject({ psp: 'stripe', retries_enabled: true });
    expect(stripe.body.data.id).toMatch(/^con_/);
    expect(stripe.body.data.webhook_url).toMatch(new RegExp(`/webhooks/stripe/${stripe.body.data.id}$`));
    expect(adyen.body.data.webhook_url).toMatch(new RegExp(`/webhooks/adyen/${adyen.body.data.id}$`));
    const listed = await call('GET', '/v1/processors', { key: keys.test_admin });
    expect(listed.body.data.map((c: { psp: string }) => c.psp)).toEqual(['adyen', 'braintree', 'stripe']);
    const text = JSON.stringify(listed.body);
    for (const secret of ['whsec_abcdef0123456789', 'sk_test_abc123', 'priv', 'a-long-generic-secret-value']) expect(text).not.toContain(secret);
  });

  it("builds the webhook URL from the configured base URL, whatever the request's Host and X-Forwarded-Proto say", async () => {
    // Prepare
    const { keys } = await newMerchant();
    const spoofed = { host: 'attacker.example', 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'attacker.example' };
    // Act
    const connected = await call('PUT', '/v1/processors/acme', { key: keys.test_admin, headers: spoofed, body: { webhook_secret: GENERIC_SECRET } });
    const listed = await call('GET', '/v1/processors', { key: keys.test_admin, headers: spoofed });
    // Assess
    const expected = `${process.env.API_BASE_URL}/webhooks/acme/${connected.body.data.id}`;
    expect(connected.status).toBe(200);
    expect(connected.body.data.webhook_url).toBe(expected);
    expect(listed.body.data.map((connection: { webhook_url: string }) => connection.webhook_url)).toEqual([expected]);
  });

  it('keeps the connection id (and webhook URL) when secrets are replaced', async () => {
    const { keys } = await newMerchant();
    const first = await call('PUT', '/v1/processors/stripe', { key: keys.test_admin, body: { webhook_secret: 'whsec_first000000000000' } });
    const second = await call('PUT', '/v1/processors/stripe', { key: keys.test_admin, body: { webhook_secret: 'whsec_second00000000000' } });
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.body.data.retries_enabled).toBe(false);
  });

  it('keeps connections per environment', async () => {
    const { keys } = await newMerchant();
    await call('PUT', '/v1/processors/stripe', { key: keys.test_admin, body: { webhook_secret: 'whsec_test0000000000000' } });
    expect((await call('GET', '/v1/processors', { key: keys.live_admin })).body.data).toEqual([]);
  });

  it.each([
    ['stripe', { webhook_secret: 'not-a-whsec' }, 422, 'webhook_secret'],
    ['stripe', {}, 400, 'webhook_secret'],
    ['braintree', { merchant_id: 'm', public_key: 'p' }, 400, 'private_key'],
    ['adyen', { webhook_secret: 'short' }, 422, 'webhook_secret'],
    ['Bad Name', { webhook_secret: 'a-long-generic-secret-value' }, 400, 'psp'],
    // Used exactly as sent, so a pasted space around a credential is refused, not trimmed away.
    ['adyen', { webhook_secret: '  a-long-generic-secret-value  ' }, 422, 'webhook_secret'],
    ['braintree', { merchant_id: 'm', public_key: 'p', private_key: 'secret\n' }, 422, 'private_key'],
  ])('validates %s credentials (%j → %i on %s)', async (psp, body, status, param) => {
    const { keys } = await newMerchant();
    const response = await call('PUT', `/v1/processors/${encodeURIComponent(psp)}`, { key: keys.test_admin, body });
    expect(response.status).toBe(status);
    expect(response.body.error.param).toBe(param);
    expect((await call('GET', '/v1/processors', { key: keys.test_admin })).body.data).toEqual([]);
  });

  it('needs the admin scope', async () => {
    const { keys } = await newMerchant();
    const response = await call('PUT', '/v1/processors/stripe', { key: keys.test_write, body: { webhook_secret: 'whsec_x000000000000000' } });
    expect(response.status).toBe(403);
    expect((await call('GET', '/v1/processors', { key: keys.test_read })).status).toBe(403);
  });
});

describe('replacing a webhook secret while instances cache the connection', () => {
  it('refuses the old secret and accepts the new one at once when replaced through this instance', async () => {
    // Prepare: a webhook was verified, so this instance holds the connection
    const { keys } = await newMerchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    expect((await postGeneric(path, genericFailure())).status).toBe(200);
    // Act
    await connect(keys.test_admin, 'acme', { webhook_secret: REPLACED_SECRET });
    const signedWithOld = await postGeneric(path, genericFailure());
    const signedWithNew = await postGeneric(path, genericFailure(), { secret: REPLACED_SECRET });
    // Assess
    expect(signedWithOld.status).toBe(400);
    expect(signedWithNew.status).toBe(200);
  });

  it('accepts a secret replaced on another instance at once: a refused signature is checked against a fresh read', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    expect((await postGeneric(path, genericFailure())).status).toBe(200);
    await replaceSecretOnAnotherInstance({ merchantId, environment: 'test' }, path, REPLACED_SECRET);
    // Act
    const signedWithNew = await postGeneric(path, genericFailure(), { secret: REPLACED_SECRET });
    const signedWithOld = await postGeneric(path, genericFailure());
    const signedWithNeither = await postGeneric(path, genericFailure(), { secret: 'some-other-secret-0123456789' });
    // Assess
    expect(signedWithNew.body).toMatchObject({ received: true, outcome: 'created' });
    expect(signedWithOld.status).toBe(400);
    expect(signedWithNeither.status).toBe(400);
  });
});
