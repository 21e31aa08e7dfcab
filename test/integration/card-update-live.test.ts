/**
 * The card-update page's live paths against the local fakes of Stripe's and Braintree's APIs (no
 * real network): Checkout in setup mode for the right customer, its completion making the card the
 * default and starting the retries through the normal claim; Braintree's Drop-in nonce vaulted and
 * made the subscription's payment method.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { createBraintreeCardSetup } from '../../shared/adapters/aws/braintree-card-setup.ts';
import { createStripeCardSetup } from '../../shared/adapters/aws/stripe-card-setup.ts';
import { localCardSetup } from '../../shared/adapters/local/local-card-setup.ts';
import { updatePage } from '../../shared/composition/update-page.ts';
import { completeStripeReturn, showUpdatePage, submitCard, type PagePorts } from '../../shared/domain/card-updates/card-update-page.ts';
import { issueUpdateLink } from '../../shared/domain/card-updates/update-links.ts';
import type { CardSetup } from '../../shared/ports/card-setup.ts';
import { runtime } from '../../shared/runtime.ts';
import { findCustomer } from '../../shared/store/customers.ts';
import { listEvents } from '../../shared/store/events.ts';
import { getPayment } from '../../shared/store/payments.ts';
import { newMerchant } from '../support/api.ts';
import { postBraintreeFailure } from '../support/braintree-events.ts';
import { startFakeBraintree, subscriptionXml, type FakeBraintree } from '../support/fake-braintree.ts';
import { ok, startFakeStripe, stripeError, type FakeStripe } from '../support/fake-stripe.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { BRAINTREE_CREDENTIALS, connect, postStripe, STRIPE_SECRET } from '../support/webhooks.ts';

let stripe: FakeStripe;
let braintree: FakeBraintree;

beforeAll(async () => {
  [stripe, braintree] = await Promise.all([startFakeStripe(), startFakeBraintree()]);
});

afterAll(async () => {
  await Promise.all([stripe?.close(), braintree?.close()]);
});

const portsWith = (cardSetup: CardSetup): PagePorts => ({ scheduler: localRuntime().scheduler, keyVault: localRuntime().keyVault, cardSetup, updatePage });

/** A live failure of `psp` and a personal link for its customer, as a dunning message would carry. */
async function linkFor(merchantId: string, customerId: string, paymentId: string) {
  const tenant = { merchantId, environment: 'live' as const };
  const { url, link } = await issueUpdateLink({ updatePage }, tenant, { customer_id: customerId, campaign_id: 'cmp_live', id: 'enr_live', payment_id: paymentId }, 'email', runtime.clock.now());
  return { tenant, link, token: url.split('/update/')[1]! };
}

/** A Checkout Session of `customer` completed in setup mode with `paymentMethod`, and the customer and subscription updates that follow. */
function completedSetupAtStripe(sessionId: string, customer: string, subscriptionId: string, paymentMethod: object) {
  const setupIntent = { id: `seti_${sessionId}`, status: 'succeeded', customer, payment_method: paymentMethod };
  stripe.on('GET', `/v1/checkout/sessions/${sessionId}`, ok({ id: sessionId, mode: 'setup', status: 'complete', customer, setup_intent: setupIntent }));
  stripe.on('POST', `/v1/customers/${customer}`, ok({ id: customer }));
  stripe.on('POST', `/v1/subscriptions/${subscriptionId}`, ok({ id: subscriptionId }));
}

describe('live card updates', () => {
  it('Stripe: Checkout in setup mode for the customer, then its card made the default and the failure retried', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.live_admin, 'stripe', { webhook_secret: STRIPE_SECRET, api_key: 'sk_live_card_update' });
    const failure = stripeChargeFailure({ declineCode: 'expired_card', customer: 'cus_live_card' });
    const received = await postStripe(path, failure.invoice);
    expect(received.status).toBe(200);
    const { tenant, token } = await linkFor(merchantId, received.body.customer_id, received.body.payment_id);
    const ports = portsWith(createStripeCardSetup({ host: stripe.host, port: stripe.port, protocol: 'http' }));
    stripe.on('POST', '/v1/checkout/sessions', ok({ id: 'cs_live_1', object: 'checkout.session', url: 'https://checkout.stripe.com/c/pay/cs_live_1', mode: 'setup', customer: 'cus_live_card' }));
    completedSetupAtStripe('cs_live_1', 'cus_live_card', failure.ids.sub, { id: 'pm_new', type: 'card', card: { brand: 'mastercard', last4: '4444', exp_month: 5, exp_year: 2031 } });

    // Act
    const shown = await showUpdatePage(ports, token, '198.51.100.7', runtime.clock.now());
    const started = await submitCard(ports, token, {}, '198.51.100.7', runtime.clock.now());
    const completed = await completeStripeReturn(ports, token, 'cs_live_1', '198.51.100.7', runtime.clock.now());

    // Assess
    expect(shown.entry).toEqual({ kind: 'stripe_checkout' });
    expect(started).toEqual({ redirect: 'https://checkout.stripe.com/c/pay/cs_live_1' });
    const session = stripe.requests.find((request) => request.path === '/v1/checkout/sessions')!;
    expect(session.headers.authorization).toBe('Bearer sk_live_card_update');
    expect(session.form.get('mode')).toBe('setup');
    expect(session.form.get('customer')).toBe('cus_live_card');
    expect(session.form.get('success_url')).toBe(`${updatePage.linkFor(token)}/stripe-return?session_id={CHECKOUT_SESSION_ID}`);
    expect(session.form.get('metadata[customer_id]')).toBe(received.body.customer_id);
    expect(completed.entry).toEqual({ kind: 'done', retried: 1 });
    expect(stripe.requests.find((request) => request.path === '/v1/customers/cus_live_card')!.form.get('invoice_settings[default_payment_method]')).toBe('pm_new');
    expect(stripe.requests.find((request) => request.path === `/v1/subscriptions/${failure.ids.sub}`)!.form.get('default_payment_method')).toBe('pm_new');
    expect((await findCustomer(tenant, received.body.customer_id))!.payment_method).toMatchObject({ brand: 'mastercard', last_four: '4444' });
    expect(await getPayment(tenant, received.body.payment_id)).toMatchObject({ status: 'retrying', retry_trigger: 'card_update', retry_count: 1 });
  });

  it("Stripe: checkout.session.completed at the webhook completes the update once; redelivery and the return change nothing", async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.live_admin, 'stripe', { webhook_secret: STRIPE_SECRET, api_key: 'sk_live_event' });
    const failure = stripeChargeFailure({ declineCode: 'expired_card', customer: 'cus_live_event' });
    const received = await postStripe(path, failure.invoice);
    const { tenant, link, token } = await linkFor(merchantId, received.body.customer_id, received.body.payment_id);
    completedSetupAtStripe('cs_live_event', 'cus_live_event', failure.ids.sub, { id: 'pm_event', type: 'card', card: { brand: 'visa', last4: '1881', exp_month: 7, exp_year: 2032 } });
    // The receiver's card setup is the local stand-in (it reaches no processor): here it reaches the fake.
    const atFake = createStripeCardSetup({ host: stripe.host, port: stripe.port, protocol: 'http' });
    const complete = vi.spyOn(localCardSetup, 'complete').mockImplementation((request) => atFake.complete(request));
    const metadata = { merchant_id: merchantId, environment: 'live', customer_id: received.body.customer_id, link_id: link.link_id };
    const event = { id: 'evt_setup_1', type: 'checkout.session.completed', created: Math.floor(runtime.clock.now().getTime() / 1000), data: { object: { id: 'cs_live_event', object: 'checkout.session', mode: 'setup', metadata } } };
    const otherMode = { ...event, id: 'evt_pay_1', data: { object: { ...event.data.object, id: 'cs_live_pay', mode: 'payment' } } };
    const notOurs = { ...event, id: 'evt_setup_2', data: { object: { ...event.data.object, id: 'cs_live_theirs', metadata: { merchant_id: 'mer_someone_else', environment: 'live', customer_id: 'cus_x', link_id: 'lnk_x' } } } };

    try {
      // Act
      const first = await postStripe(path, event);
      const afterFirst = { customer: await findCustomer(tenant, received.body.customer_id), payment: await getPayment(tenant, received.body.payment_id) };
      const again = await postStripe(path, event);
      const returned = await completeStripeReturn(portsWith(atFake), token, 'cs_live_event', '198.51.100.9', runtime.clock.now());
      const ignored = [await postStripe(path, otherMode), await postStripe(path, notOurs)];

      // Assess
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ received: true, outcome: 'updated', customer_id: received.body.customer_id });
      expect(again.body).toMatchObject({ received: true, outcome: 'duplicate' });
      expect(returned.entry).toMatchObject({ kind: 'done' });
      expect(ignored.map((answer) => [answer.status, answer.body.outcome])).toEqual([[200, 'ignored'], [200, 'ignored']]);
      expect(stripe.requests.find((request) => request.path === '/v1/customers/cus_live_event')!.form.get('invoice_settings[default_payment_method]')).toBe('pm_event');
      expect(stripe.requests.find((request) => request.path === `/v1/subscriptions/${failure.ids.sub}`)!.form.get('default_payment_method')).toBe('pm_event');
      expect(afterFirst.customer!.payment_method).toMatchObject({ brand: 'visa', last_four: '1881' });
      expect(afterFirst.payment).toMatchObject({ status: 'retrying', retry_trigger: 'card_update', retry_count: 1 });
      expect(await findCustomer(tenant, received.body.customer_id)).toEqual(afterFirst.customer);
      expect(await getPayment(tenant, received.body.payment_id)).toEqual(afterFirst.payment);
      const events = await listEvents(tenant);
      expect(events.filter((recorded) => recorded.type === 'customer.payment_method_updated')).toHaveLength(1);
      expect(events.filter((recorded) => recorded.type === 'card_update.completed')).toHaveLength(1);
    } finally {
      complete.mockRestore();
    }
  });

  it('Stripe: an event Stripe cannot confirm now is answered 5xx, so its redelivery completes the update', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.live_admin, 'stripe', { webhook_secret: STRIPE_SECRET, api_key: 'sk_live_down' });
    const failure = stripeChargeFailure({ declineCode: 'expired_card', customer: 'cus_live_down' });
    const received = await postStripe(path, failure.invoice);
    const { tenant, link } = await linkFor(merchantId, received.body.customer_id, received.body.payment_id);
    completedSetupAtStripe('cs_live_down', 'cus_live_down', failure.ids.sub, { id: 'pm_down', type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2033 } });
    const confirmed = ok({ id: 'cs_live_down', mode: 'setup', status: 'complete', customer: 'cus_live_down', setup_intent: { id: 'seti_down', status: 'succeeded', customer: 'cus_live_down', payment_method: { id: 'pm_down', type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2033 } } } });
    const down = stripeError(500, { type: 'api_error', message: 'Something went wrong on our end' }, { 'Stripe-Should-Retry': 'false' });
    stripe.on('GET', '/v1/checkout/sessions/cs_live_down', down, confirmed);
    const atFake = createStripeCardSetup({ host: stripe.host, port: stripe.port, protocol: 'http' });
    const complete = vi.spyOn(localCardSetup, 'complete').mockImplementation((request) => atFake.complete(request));
    const metadata = { merchant_id: merchantId, environment: 'live', customer_id: received.body.customer_id, link_id: link.link_id };
    const event = { id: 'evt_setup_down', type: 'checkout.session.completed', created: Math.floor(runtime.clock.now().getTime() / 1000), data: { object: { id: 'cs_live_down', object: 'checkout.session', mode: 'setup', metadata } } };
    const before = await findCustomer(tenant, received.body.customer_id);

    try {
      // Act
      const first = await postStripe(path, event);
      const afterFirst = await findCustomer(tenant, received.body.customer_id);
      const redelivered = await postStripe(path, event);

      // Assess: nothing changed on the refused delivery; the redelivery did the whole update
      expect(first.status).toBeGreaterThanOrEqual(500);
      expect(afterFirst).toEqual(before);
      expect(redelivered.status).toBe(200);
      expect(redelivered.body).toMatchObject({ outcome: 'updated', customer_id: received.body.customer_id });
      expect((await findCustomer(tenant, received.body.customer_id))!.payment_method).toMatchObject({ brand: 'visa', last_four: '4242' });
      expect(await getPayment(tenant, received.body.payment_id)).toMatchObject({ status: 'retrying', retry_trigger: 'card_update' });
    } finally {
      complete.mockRestore();
    }
  });

  it("Stripe: a session of another customer is refused and changes nothing", async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.live_admin, 'stripe', { webhook_secret: STRIPE_SECRET, api_key: 'sk_live_other' });
    const received = await postStripe(path, stripeChargeFailure({ declineCode: 'expired_card', customer: 'cus_mine' }).invoice);
    const { tenant, token } = await linkFor(merchantId, received.body.customer_id, received.body.payment_id);
    stripe.on('GET', '/v1/checkout/sessions/cs_theirs', ok({ id: 'cs_theirs', mode: 'setup', status: 'complete', customer: 'cus_theirs', setup_intent: { id: 'seti_x', status: 'succeeded', customer: 'cus_theirs', payment_method: { id: 'pm_x', type: 'card' } } }));
    const ports = portsWith(createStripeCardSetup({ host: stripe.host, port: stripe.port, protocol: 'http' }));
    const before = await findCustomer(tenant, received.body.customer_id);
    // Act
    const outcome = await completeStripeReturn(ports, token, 'cs_theirs', '198.51.100.8', runtime.clock.now());
    // Assess
    expect(outcome.entry).toMatchObject({ kind: 'stripe_checkout', problem: expect.stringContaining('not a card update of this customer') });
    expect(await findCustomer(tenant, received.body.customer_id)).toEqual(before);
    expect((await getPayment(tenant, received.body.payment_id)).status).not.toBe('retrying');
  });

  it('Braintree: the Drop-in gets a client token; its nonce is vaulted and made the subscription payment method', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.live_admin, 'braintree', { ...BRAINTREE_CREDENTIALS, merchant_account_id: 'acct' });
    const received = await postBraintreeFailure(path, '2004', { subscriptionId: 'bt_sub_card', customer: { id: 'bt_cus_1', email: 'ada@example.com', firstName: 'Ada', lastName: 'L' } });
    expect(received.status, JSON.stringify(received.body)).toBe(200);
    const { tenant, token } = await linkFor(merchantId, received.body.customer_id, received.body.payment_id);
    const base = `/merchants/${BRAINTREE_CREDENTIALS.merchant_id}`;
    braintree.on('POST', `${base}/client_token`, { status: 201, xml: '<client-token><value>client-token-abc</value></client-token>' });
    braintree.on('POST', `${base}/payment_methods`, {
      status: 201,
      xml: '<credit-card><token>vaulted_tok</token><card-type>Visa</card-type><last-4>1881</last-4><expiration-month>12</expiration-month><expiration-year>2031</expiration-year></credit-card>',
    });
    braintree.on('PUT', `${base}/subscriptions/bt_sub_card`, { status: 200, xml: subscriptionXml({ id: 'bt_sub_card', status: 'Past Due' }) });
    const ports = portsWith(createBraintreeCardSetup({ environmentOverride: braintree.environment }));

    // Act
    const shown = await showUpdatePage(ports, token, '198.51.100.9', runtime.clock.now());
    const done = await submitCard(ports, token, { payment_method_nonce: 'nonce-from-drop-in' }, '198.51.100.9', runtime.clock.now());

    // Assess
    expect(shown.entry).toEqual({ kind: 'braintree_drop_in', clientToken: 'client-token-abc' });
    expect(braintree.requests.find((request) => request.path === `${base}/client_token`)!.json).toEqual({ client_token: { customer_id: 'bt_cus_1', version: 2 } });
    expect(braintree.requests.find((request) => request.path === `${base}/payment_methods`)!.json).toEqual({
      payment_method: { customer_id: 'bt_cus_1', payment_method_nonce: 'nonce-from-drop-in', options: { make_default: true, verify_card: true } },
    });
    expect(braintree.requests.find((request) => request.path === `${base}/subscriptions/bt_sub_card`)!.json).toEqual({ subscription: { payment_method_token: 'vaulted_tok' } });
    expect('entry' in done && done.entry).toEqual({ kind: 'done', retried: 1 });
    expect((await findCustomer(tenant, received.body.customer_id))!.payment_method).toMatchObject({ brand: 'visa', last_four: '1881', exp_month: 12, exp_year: 2031 });
    expect(await getPayment(tenant, received.body.payment_id)).toMatchObject({ status: 'retrying', retry_trigger: 'card_update' });
  });

  it('never offers the test form in live mode', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const path = await connect(keys.live_admin, 'stripe', { webhook_secret: STRIPE_SECRET, api_key: 'sk_live_x' });
    const received = await postStripe(path, stripeChargeFailure({ declineCode: 'expired_card' }).invoice);
    const { token } = await linkFor(merchantId, received.body.customer_id, received.body.payment_id);
    const ports = portsWith(createStripeCardSetup({ host: stripe.host, port: stripe.port, protocol: 'http' }));
    // Act
    const posted = submitCard(ports, token, { number: '4242424242424242', expiry: '12/30', cvc: '123' }, '198.51.100.10', runtime.clock.now());
    // Assess
    await expect(posted).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
