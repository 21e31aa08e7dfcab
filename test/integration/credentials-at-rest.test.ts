import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { newId } from '../../shared/ids.ts';
import { tenantKey } from '../../shared/store/keys.ts';
import { clearInstanceCaches } from '../../shared/store/instance-cache.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { call, newMerchant } from '../support/api.ts';
import { notificationXml, signedBraintreeNotification } from '../support/braintree-signing.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { scanTable } from '../support/tenant-items.ts';
import { connect, genericFailure, postGeneric, postStripe } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Secrets no other test uses, so a scan of the whole table can look for them. */
function uniqueSecrets() {
  const tag = randomBytes(8).toString('hex');
  return {
    stripeWebhookSecret: `whsec_atrest${tag}`,
    stripeApiKey: `sk_test_atrest${tag}`,
    braintreePrivateKey: `bt-private-atrest-${tag}`,
    braintreePublicKey: `bt-public-atrest-${tag}`,
    genericSecret: `generic-secret-atrest-${tag}`,
  };
}

/** Items anywhere in the table whose stored form contains any of these values. */
async function itemsHolding(values: readonly string[]): Promise<Record<string, unknown>[]> {
  return (await scanTable()).filter((item) => values.some((value) => JSON.stringify(item).includes(value)));
}

function postBraintreeCheck(path: string, keys: { publicKey: string; privateKey: string }) {
  const { bt_signature, bt_payload } = signedBraintreeNotification(notificationXml('check', new Date().toISOString(), ''), keys);
  return call('POST', path, { rawBody: new URLSearchParams({ bt_signature, bt_payload }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

/** `npm run ops -- processors encrypt-secrets` against this run's DynamoDB Local and key vault (TABLE_NAME is set, so the CLI uses the environment as it is). */
function encryptSecretsCommand(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const cli = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bin/ops.ts', 'processors', 'encrypt-secrets'], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    cli.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A Stripe connection as the code before sealing wrote it: both items, the credentials in the clear. */
async function storePlaintextConnection(tenant: Tenant, credentials: { webhookSecret: string; apiKey: string }): Promise<string> {
  const now = runtime.clock.now();
  const id = newId('con', now);
  const item = {
    entity: 'processor_connection',
    id,
    merchant_id: tenant.merchantId,
    environment: tenant.environment,
    psp: 'stripe',
    credentials: { kind: 'stripe', ...credentials },
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  for (const key of [
    tenantKey(tenant, 'PROCESSOR#stripe'),
    { pk: `CONNECTION#${id}`, sk: 'CONNECTION' },
  ]) {
    await runtime.db.send(new PutCommand({ TableName: runtime.tableName, Item: { ...key, ...item } }));
  }
  return `/webhooks/stripe/${id}`;
}

describe('processor credentials at rest', () => {
  it('stores no secret of a Stripe, Braintree or generic connection anywhere in the table, and still verifies their webhooks with them', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const secrets = uniqueSecrets();
    // Act
    const stripePath = await connect(keys.test_admin, 'stripe', { webhook_secret: secrets.stripeWebhookSecret, api_key: secrets.stripeApiKey });
    const braintreePath = await connect(keys.test_admin, 'braintree', {
      merchant_id: 'atrest-merchant',
      public_key: secrets.braintreePublicKey,
      private_key: secrets.braintreePrivateKey,
    });
    const genericPath = await connect(keys.test_admin, 'acme', { webhook_secret: secrets.genericSecret });
    const stripeReceipt = await postStripe(stripePath, stripeChargeFailure({ declineCode: 'insufficient_funds' }).charge, { secret: secrets.stripeWebhookSecret });
    const braintreeReceipt = await postBraintreeCheck(braintreePath, { publicKey: secrets.braintreePublicKey, privateKey: secrets.braintreePrivateKey });
    const braintreeForged = await postBraintreeCheck(braintreePath, { publicKey: secrets.braintreePublicKey, privateKey: 'guessed-private-key' });
    const genericReceipt = await postGeneric(genericPath, genericFailure(), { secret: secrets.genericSecret });
    const listed = await call('GET', '/v1/processors', { key: keys.test_admin });

    // Assess: the secrets opened where they are used…
    expect(stripeReceipt.body).toMatchObject({ received: true, outcome: 'created' });
    expect(braintreeReceipt.body).toMatchObject({ received: true, outcome: 'ignored' });
    expect(braintreeForged.status).toBe(400);
    expect(genericReceipt.body).toMatchObject({ received: true, outcome: 'created' });
    expect(listed.body.data.map((connection: { psp: string; retries_enabled: boolean }) => [connection.psp, connection.retries_enabled])).toEqual([
      ['acme', false],
      ['braintree', true],
      ['stripe', true],
    ]);
    expect(JSON.stringify(listed.body)).not.toMatch(/atrest/);
    // …and stored nowhere in the clear
    expect(await itemsHolding(Object.values(secrets))).toEqual([]);
    const connectionItems = (await scanTable()).filter((item) => item.entity === 'processor_connection' && item.merchant_id === merchantId);
    expect(connectionItems).toHaveLength(6);
    for (const item of connectionItems) {
      expect(item.credentials, String(item.sk)).toBeUndefined();
      expect(item.sealed_credentials, String(item.sk)).toEqual({
        v: 1,
        key_id: localRuntime().keyVault.keyId,
        wrapped_key: expect.any(String),
        iv: expect.any(String),
        tag: expect.any(String),
        ciphertext: expect.any(String),
      });
    }
  });

  // Two runs of the CLI, each a fresh process importing the runtime: several seconds apiece on a busy machine.
  it('seals connections stored in the clear with `ops processors encrypt-secrets`, once, and they keep working', { timeout: 180_000 }, async () => {
    // Prepare: a connection written before sealing, which works while it waits for the migration
    const { merchantId, keys } = await newMerchant();
    const { stripeWebhookSecret, stripeApiKey } = uniqueSecrets();
    const path = await storePlaintextConnection({ merchantId, environment: 'test' }, { webhookSecret: stripeWebhookSecret, apiKey: stripeApiKey });
    expect(await itemsHolding([stripeWebhookSecret, stripeApiKey])).toHaveLength(2);
    expect((await postStripe(path, stripeChargeFailure({ declineCode: 'insufficient_funds' }).charge, { secret: stripeWebhookSecret })).status).toBe(200);

    // Act
    const first = await encryptSecretsCommand();
    const second = await encryptSecretsCommand();
    clearInstanceCaches();

    // Assess: both items sealed by the first run, nothing by the second (other files' connections are sealed already)
    expect(first.code, first.stderr).toBe(0);
    const firstReport = JSON.parse(first.stdout);
    expect(firstReport).toMatchObject({ sealed_now: 2, changed_meanwhile: 0 });
    expect(firstReport.already_sealed).toBe(firstReport.connection_items - 2);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ sealed_now: 0, changed_meanwhile: 0 });
    expect(await itemsHolding([stripeWebhookSecret, stripeApiKey])).toEqual([]);
    const event = stripeChargeFailure({ declineCode: 'insufficient_funds' }).charge;
    expect((await postStripe(path, event, { secret: stripeWebhookSecret })).body).toMatchObject({ received: true, outcome: 'created' });
    expect((await postStripe(path, event, { secret: 'whsec_guessed' })).status).toBe(400);
    const listed = await call('GET', '/v1/processors', { key: keys.test_admin });
    expect(listed.body.data).toEqual([expect.objectContaining({ psp: 'stripe', retries_enabled: true })]);
  });
});
