import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationXml, signedBraintreeNotification } from '../support/braintree-signing.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';
import { genericSignature } from '../support/webhooks.ts';

/**
 * The personal-data check of the logs, for processors' secrets: a server at the most verbose level
 * is given Stripe, Braintree and generic credentials, verifies webhooks with them (and refuses
 * forged ones), is refused malformed ones, and has its connections sealed again by the ops CLI;
 * then its output, and the CLI's, are searched for every secret and for its own vault key.
 */
const tag = randomBytes(6).toString('hex');
const SECRETS = {
  stripeWebhookSecret: `whsec_logs${tag}`,
  stripeApiKey: `sk_test_logs${tag}`,
  braintreePrivateKey: `bt-private-logs-${tag}`,
  genericSecret: `generic-secret-logs-${tag}`,
  refusedApiKey: `pk_live_logs${tag}`,
  refusedPrivateKey: ` bt-refused-logs-${tag}`,
};

let server: RunningServer;
let stopped = false;

beforeAll(async () => {
  server = await startLocalServer({ LOG_LEVEL: 'debug' });
});

afterAll(async () => {
  if (!stopped) await server?.stop();
});

const send = (...args: Parameters<RunningServer['send']>) => server.send(...args);
const request = (method: string, path: string, body?: unknown) => server.api(method, path, body);

async function connect(psp: string, body: Record<string, string>): Promise<string> {
  const response = await request('PUT', `/v1/processors/${psp}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return new URL(response.body.data.webhook_url).pathname;
}

function postStripe(path: string, secret: string) {
  const body = JSON.stringify({ id: `evt_logs_${tag}`, object: 'event', type: 'customer.created', created: Math.floor(Date.now() / 1000), data: { object: { id: 'cus_logs' } } });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return send('POST', path, body, { 'Content-Type': 'application/json', 'Stripe-Signature': `t=${timestamp},v1=${signature}` });
}

function postBraintree(path: string, privateKey: string) {
  const { bt_signature, bt_payload } = signedBraintreeNotification(notificationXml('check', new Date().toISOString(), ''), { publicKey: 'bt-public-logs', privateKey });
  return send('POST', path, new URLSearchParams({ bt_signature, bt_payload }).toString(), { 'Content-Type': 'application/x-www-form-urlencoded' });
}

function postGeneric(path: string, secret: string) {
  const body = JSON.stringify({ id: `evt_generic_logs_${tag}`, type: 'customer.updated', created: Math.floor(Date.now() / 1000) });
  return send('POST', path, body, { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, secret, Math.floor(Date.now() / 1000)) });
}

describe('processor secrets and the local server', () => {
  it('makes the vault key at start, readable by its owner only, and never logs a secret or the key', async () => {
    // Prepare: the key exists before any processor is connected
    const keyFile = join(server.localDir, 'vault.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const vaultKey = readFileSync(keyFile, 'utf8').trim();

    // Act: connect, verify, refuse, list, reseal
    const stripe = await connect('stripe', { webhook_secret: SECRETS.stripeWebhookSecret, api_key: SECRETS.stripeApiKey });
    const braintree = await connect('braintree', { merchant_id: 'logs-merchant', public_key: 'bt-public-logs', private_key: SECRETS.braintreePrivateKey });
    const generic = await connect('acme', { webhook_secret: SECRETS.genericSecret });
    expect((await postStripe(stripe, SECRETS.stripeWebhookSecret)).status).toBe(200);
    expect((await postStripe(stripe, 'whsec_forged')).status).toBe(400);
    expect((await postBraintree(braintree, SECRETS.braintreePrivateKey)).status).toBe(200);
    expect((await postBraintree(braintree, 'forged-private-key')).status).toBe(400);
    expect((await postGeneric(generic, SECRETS.genericSecret)).status).toBe(200);
    expect((await postGeneric(generic, 'forged-generic-secret-0123')).status).toBe(400);
    expect((await request('PUT', '/v1/processors/stripe', { webhook_secret: SECRETS.stripeWebhookSecret, api_key: SECRETS.refusedApiKey })).status).toBe(422);
    expect((await request('PUT', '/v1/processors/braintree', { merchant_id: 'm', public_key: 'p', private_key: SECRETS.refusedPrivateKey })).status).toBe(422);
    const listed = await request('GET', '/v1/processors');
    expect((await request('POST', '/__dev/forget-caches')).status).toBeLessThan(300);
    expect((await postStripe(stripe, SECRETS.stripeWebhookSecret)).status).toBe(200);
    const resealed = await server.ops(['processors', 'encrypt-secrets']);
    await server.stop();
    stopped = true;

    // Assess
    expect(resealed.code, resealed.stderr).toBe(0);
    expect(JSON.parse(resealed.stdout)).toMatchObject({ connection_items: 6, sealed_now: 0, already_sealed: 6 });
    expect(listed.body.data).toHaveLength(3);
    const output = `${server.output()}\n${resealed.stdout}\n${resealed.stderr}\n${JSON.stringify(listed.body)}`;
    expect(output).toContain('"level":"info"');
    for (const [name, secret] of Object.entries({ ...SECRETS, vaultKey })) {
      expect(output.includes(secret.trim()), `output contains ${name}`).toBe(false);
    }
  }, 180_000);
});
