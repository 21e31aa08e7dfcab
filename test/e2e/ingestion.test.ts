import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationXml, signedBraintreeNotification, subscriptionXml } from '../support/braintree-signing.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { genericFailure, genericSignature } from '../support/webhooks.ts';

let server: RunningServer;
const stripe = new Stripe('sk_test_unused');
const STRIPE_SECRET = 'whsec_e2e_0123456789abcdef';
const GENERIC_SECRET = 'e2e-generic-secret-0123456789';
const BRAINTREE = { merchant_id: 'e2e_merchant', public_key: 'e2e_public', private_key: 'e2e_private' };

beforeAll(async () => {
  server = await startLocalServer();
});

afterAll(async () => {
  await server?.stop();
});

async function connect(psp: string, body: object): Promise<string> {
  const response = await fetch(`${server.baseUrl}/v1/processors/${psp}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${server.credentials.keys.test_admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as any;
  expect(data.webhook_url.startsWith(server.baseUrl)).toBe(true);
  return data.webhook_url;
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as any };
}

const epoch = () => Math.floor(Date.now() / 1000);

describe('processor webhooks through the local server', () => {
  it('accepts Stripe events signed by the stripe package, once per charge', async () => {
    const url = await connect('stripe', { webhook_secret: STRIPE_SECRET });
    const events = stripeChargeFailure({ declineCode: 'insufficient_funds' });
    const send = (event: object, secret = STRIPE_SECRET) => {
      const payload = JSON.stringify(event);
      const signature = stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: epoch() });
      return post(url, payload, { 'Content-Type': 'application/json', 'Stripe-Signature': signature });
    };
    const first = await send(events.charge);
    expect(first).toMatchObject({ status: 200, body: { outcome: 'created' } });
    const sibling = await send(events.paymentIntent);
    expect(sibling.body.payment_id).toBe(first.body.payment_id);
    expect((await send(events.charge, 'whsec_not_the_secret_000')).status).toBe(400);
  });

  it('accepts Braintree notifications in its form-encoded, signed format', async () => {
    const url = await connect('braintree', BRAINTREE);
    const xml = notificationXml(
      'subscription_charged_unsuccessfully',
      new Date().toISOString(),
      subscriptionXml({
        id: 'bt_e2e_sub',
        planId: 'gold',
        price: '10.00',
        status: 'Past Due',
        billingPeriodStartDate: '2026-11-01',
        billingPeriodEndDate: '2026-11-30',
        transactions: [
          {
            id: 'bt_e2e_txn',
            amount: '10.00',
            currencyIsoCode: 'EUR',
            status: 'processor_declined',
            processorResponseCode: '2004',
            customer: { id: 'bt_e2e_customer', email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' },
            creditCard: { cardType: 'Visa', last4: '1881', expirationMonth: '01', expirationYear: '2026' },
          },
        ],
      }),
    );
    const { bt_signature, bt_payload } = signedBraintreeNotification(xml, { publicKey: BRAINTREE.public_key, privateKey: BRAINTREE.private_key });
    const form = new URLSearchParams({ bt_signature, bt_payload }).toString();
    const response = await post(url, form, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(response).toMatchObject({ status: 200, body: { outcome: 'created' } });
    const tampered = form.replace('bt_signature=e2e_public%7C', 'bt_signature=e2e_public%7C0');
    expect((await post(url, tampered, { 'Content-Type': 'application/x-www-form-urlencoded' })).status).toBe(400);
  });

  it('accepts generic JSON events with X-Recovery-Signature and refuses stale ones', async () => {
    const url = await connect('acme', { webhook_secret: GENERIC_SECRET });
    const body = JSON.stringify(genericFailure({ code: 'card_expired_2024' }));
    const fresh = await post(url, body, { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, GENERIC_SECRET, epoch()) });
    expect(fresh).toMatchObject({ status: 200, body: { outcome: 'created' } });
    const replay = await post(url, body, { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, GENERIC_SECRET, epoch()) });
    expect(replay.body.outcome).toBe('duplicate');
    const stale = await post(url, body, { 'Content-Type': 'application/json', 'X-Recovery-Signature': genericSignature(body, GENERIC_SECRET, epoch() - 600) });
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe('invalid_request');
  });
});
