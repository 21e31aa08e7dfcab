import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeNotificationXml } from '../support/braintree-events.ts';
import { signedBraintreeNotification } from '../support/braintree-signing.ts';
import { startLocalServer, type RunningServer } from '../support/local-server.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { genericSignature } from '../support/webhooks.ts';

/**
 * Issue 20, item 1, as the audit found it: through `npm start` (without its timer, so time moves only
 * when the test says), a processor resends an event about a customer the merchant has erased. The
 * resend must be acknowledged and change nothing: no customer, no payment, no retry, no email, no
 * webhook. The generic processor's charge ids contain the customer's processor id, which erasure
 * replaces by a hash, so duplicate detection alone cannot recognise the resend.
 */
let server: RunningServer;
let receiver: Server;
/** What the merchant's webhook endpoint received, in order. */
const received: { type: string; data: Record<string, unknown> }[] = [];
const stripe = new Stripe('sk_test_unused');
const GENERIC_SECRET = 'e2e-erasure-secret-0123456789';
const STRIPE_SECRET = 'whsec_e2e_erasure_0123456789abcdef';
const BRAINTREE = { merchant_id: 'e2e_erasure', public_key: 'e2e_erasure_public', private_key: 'e2e_erasure_private' };

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(JSON.parse(body));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  server = await startLocalServer({}, ['--no-timer']);
  const endpoint = await api('POST', '/v1/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['*'] });
  expect(endpoint.status).toBe(201);
  // A campaign, so a hard decline of a customer we know is emailed an hour after it fails.
  const campaign = await api('POST', '/v1/campaigns', {
    name: 'Card declined',
    trigger: 'payment_failed',
    steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Your card', delay_hours: 1 }],
  });
  expect(campaign.status).toBe(201);
  expect((await api('POST', `/v1/campaigns/${campaign.body.data.id}/activate`)).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const api = (method: string, path: string, body?: unknown) => server.api(method, path, body);
const dev = (method: string, path: string, body?: unknown) => server.dev(method, path, body);

const serverSeconds = async (): Promise<number> => Math.floor(Date.parse((await dev('GET', 'clock')).now) / 1000);

async function connect(psp: string, body: object): Promise<string> {
  const response = await api('PUT', `/v1/processors/${psp}`, body);
  expect(response.status).toBe(200);
  return response.body.data.webhook_url;
}

async function post(url: string, body: string, contentType: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': contentType, ...headers }, body });
  return { status: response.status, body: (await response.json()) as any };
}

/** Everything the service did that a person could notice, from here on: emails and sms sent, webhooks received. */
async function sideEffects() {
  const outbox = (await dev('GET', 'outbox')).data as { channel: string; to: string }[];
  const sent = outbox.filter((entry) => entry.channel === 'email' || entry.channel === 'sms');
  const mark = { sent: sent.length, received: received.length };
  return {
    since: async () => ({
      sent: ((await dev('GET', 'outbox')).data as { channel: string }[]).filter((entry) => entry.channel === 'email' || entry.channel === 'sms').slice(mark.sent),
      received: received.slice(mark.received).map((event) => event.type),
    }),
  };
}

/** Lets everything due happen: events delivered, the first retry's and campaign step's times passed. */
async function letTimePass() {
  await dev('POST', 'run-due');
  for (let day = 0; day < 4; day++) {
    await dev('POST', 'clock', { advance_seconds: 86_400 });
    await dev('POST', 'run-due');
  }
}

/** The person's traces the merchant API can see: customers found by email, and payment counts. */
async function visible(email: string) {
  const customers = await api('GET', `/v1/customers?query=${encodeURIComponent(email)}`);
  const payments = await api('GET', '/v1/payments?per_page=1');
  return { customers: customers.body.pagination.total, payments: payments.body.pagination.total };
}

async function erase(customerId: string) {
  const erased = await api('DELETE', `/v1/customers/${customerId}`);
  expect(erased.status).toBe(200);
  await dev('POST', 'run-due');
}

describe('an erased customer is not brought back by a resent event (local server)', () => {
  it.each([
    ['a soft decline', 'insufficient_funds'],
    ['a hard decline', 'expired_card'],
  ])('generic processor, charge id containing the customer id, %s', async (_label, declineCode) => {
    // Prepare: the failure arrives, everything it starts happens, then the merchant erases the customer.
    const url = await connect('acme', { webhook_secret: GENERIC_SECRET });
    const customer = `pc${randomBytes(6).toString('hex')}`;
    const email = `${customer}@person.example`;
    const body = JSON.stringify({
      id: `evt_${customer}`,
      type: 'payment.failed',
      created: await serverSeconds(),
      customer: { id: customer, email, name: `Paula ${customer}` },
      subscription: { id: `sub_${customer}`, plan: 'pro', amount: 2900, currency: 'usd', status: 'past_due' },
      payment: { id: `inv_${customer}_2026_11`, amount: 2900, currency: 'usd', decline_code: declineCode },
      payment_method: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 1, exp_year: 2030 },
    });
    const send = async () => post(url, body, 'application/json', { 'X-Recovery-Signature': genericSignature(body, GENERIC_SECRET, await serverSeconds()) });
    const first = await send();
    expect(first.body.outcome).toBe('created');
    await letTimePass();
    await erase(first.body.customer_id);
    const before = await visible(email);
    expect(before.customers).toBe(0);
    const effects = await sideEffects();
    // Act
    const resent = await send();
    await letTimePass();
    // Assess
    expect(await effects.since()).toEqual({ sent: [], received: [] });
    expect(await visible(email)).toEqual(before);
    expect(resent).toEqual({ status: 200, body: { received: true, event_id: `evt_${customer}`, outcome: 'erased' } });
  });

  it('Stripe: the three events of the erased charge and its subscription', async () => {
    // Prepare
    const url = await connect('stripe', { webhook_secret: STRIPE_SECRET });
    const events = stripeChargeFailure({ declineCode: 'expired_card', customer: `cus_e${randomBytes(6).toString('hex')}` });
    const send = async (event: object) => {
      const payload = JSON.stringify(event);
      const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: await serverSeconds() });
      return post(url, payload, 'application/json', { 'Stripe-Signature': signature });
    };
    const first = await send(events.invoice);
    expect(first.body.outcome).toBe('created');
    await letTimePass();
    await erase(first.body.customer_id);
    const before = await visible('jenny@example.com');
    const effects = await sideEffects();
    // Act
    const resent = [];
    for (const event of [events.invoice, events.charge, events.paymentIntent, events.paid, events.canceled]) resent.push(await send(event));
    await letTimePass();
    // Assess
    expect(resent.map((response) => [response.status, response.body.outcome])).toEqual(Array(5).fill([200, 'erased']));
    expect(await visible('jenny@example.com')).toEqual(before);
    expect(await effects.since()).toEqual({ sent: [], received: [] });
  });

  it('Braintree: the erased subscription charge, resent', async () => {
    // Prepare
    const url = await connect('braintree', BRAINTREE);
    const tag = randomBytes(6).toString('hex');
    const email = `bt.${tag}@person.example`;
    const xml = chargeNotificationXml('subscription_charged_unsuccessfully', '2004', {
      subscriptionId: `bt_sub_${tag}`,
      transactionId: `bt_txn_${tag}`,
      customer: { id: `bt_cus_${tag}`, email, firstName: 'Grace', lastName: `Hopper ${tag}` },
      timestamp: new Date((await serverSeconds()) * 1000).toISOString(),
    });
    const { bt_signature, bt_payload } = signedBraintreeNotification(xml, { publicKey: BRAINTREE.public_key, privateKey: BRAINTREE.private_key });
    const send = () => post(url, new URLSearchParams({ bt_signature, bt_payload }).toString(), 'application/x-www-form-urlencoded');
    const first = await send();
    expect(first.body.outcome).toBe('created');
    await letTimePass();
    await erase(first.body.customer_id);
    const before = await visible(email);
    const effects = await sideEffects();
    // Act
    const resent = await send();
    await letTimePass();
    // Assess
    expect(resent).toMatchObject({ status: 200, body: { outcome: 'erased' } });
    expect(await visible(email)).toEqual(before);
    expect(await effects.since()).toEqual({ sent: [], received: [] });
  });
});
