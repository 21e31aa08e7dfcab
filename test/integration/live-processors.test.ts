/**
 * The live processor adapters against local HTTP fakes of the Stripe and Braintree APIs: the exact
 * requests (paths, bodies, credentials, idempotency keys) and the mapping of each kind of answer to a
 * retry outcome.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBraintreeProcessor } from '../../shared/adapters/aws/braintree-processor.ts';
import { createStripeProcessor } from '../../shared/adapters/aws/stripe-processor.ts';
import { liveProcessorFor } from '../../shared/adapters/live-processors.ts';
import type { Payment } from '../../shared/model/payment.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import type { RetryRequest } from '../../shared/ports/payment-processor.ts';
import { apiErrorXml, startFakeBraintree, subscriptionXml, transactionXml, type FakeBraintree } from '../support/fake-braintree.ts';
import { ok, startFakeStripe, stripeCustomer, stripeError, stripeInvoice, stripePaymentIntent, type FakeStripe } from '../support/fake-stripe.ts';
import type { ProcessorConnection, ProcessorCredentials } from '../../shared/model/processor-connection.ts';

const tenant: Tenant = { merchantId: 'mer_live_processors', environment: 'live' };
const STRIPE_KEY = 'sk_live_fake_51abc';
const BT = { merchantId: 'bt_merchant_1', publicKey: 'bt_public', privateKey: 'bt_private' };

let attempts = 0;

const stripeCredentials = (apiKey: string | null = STRIPE_KEY): ProcessorCredentials => ({ kind: 'stripe', webhookSecret: 'whsec_fake', apiKey });
const braintreeCredentials = (): ProcessorCredentials => ({ kind: 'braintree', ...BT, merchantAccountId: null });

/** A payment as ingestion stores it; `psp_references` lists every processor id of the failed charge. */
function payment(fields: Partial<Payment>): Payment {
  return {
    id: 'pay_1',
    customer_id: 'cus_internal_1',
    subscription_id: null,
    amount: 1999,
    currency: 'usd',
    status: 'retrying',
    decline_code: 'insufficient_funds',
    decline_category: 'soft_retry',
    decline_subcategory: 'Balance',
    psp: 'stripe',
    psp_payment_id: 'pi_1',
    retry_count: 1,
    max_retries: 4,
    next_retry_at: null,
    recovered_at: null,
    created_at: '2026-12-01T10:00:00.000Z',
    updated_at: '2026-12-01T10:00:00.000Z',
    mapping_version: 'test',
    customer_action: null,
    cooldown_hours: null,
    psp_subscription_id: null,
    psp_references: [],
    retry_initiated_at: null,
    consecutive_no_answers: 0,
    retries: [],
    recovery_channel: null,
    version: 1,
    ...fields,
  };
}

function retryRequest(forPayment: Payment, credentials: ProcessorCredentials | undefined): RetryRequest {
  attempts += 1;
  return { tenant, credentials: async () => credentials, payment: forPayment, attempt: 1, idempotencyKey: `retry_${forPayment.id}_${attempts}`, cardLastFour: null };
}

// ---------------------------------------------------------------------------------------------------

describe('Stripe live processor', () => {
  let fake: FakeStripe;
  let processor: ReturnType<typeof createStripeProcessor>;

  beforeAll(async () => {
    fake = await startFakeStripe();
    processor = createStripeProcessor({ host: fake.host, port: fake.port, protocol: 'http' });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const invoicePayment = () => payment({ psp_payment_id: 'pi_inv', psp_references: ['pi_inv', 'ch_inv', 'in_inv'], psp_subscription_id: 'sub_1' });

  it('pays the open invoice with the attempt idempotency key and the connection API key', async () => {
    // Prepare
    fake.on('POST', '/v1/invoices/in_inv/pay', ok(stripeInvoice('in_inv', { status: 'paid', amount_paid: 1999 })));
    const request = retryRequest(invoicePayment(), stripeCredentials());
    // Act
    const outcome = await processor.retry(request);
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/invoices/in_inv/pay' });
    expect(sent!.headers['idempotency-key']).toBe(request.idempotencyKey);
    expect(sent!.headers.authorization).toBe(`Bearer ${STRIPE_KEY}`);
    expect(sent!.form.toString()).toBe('');
  });

  it('maps a card decline on invoice payment to declined with the decline code', async () => {
    // Prepare
    fake.on(
      'POST',
      '/v1/invoices/in_inv/pay',
      stripeError(402, { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' }),
    );
    // Act
    const outcome = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'declined', declineCode: 'insufficient_funds' });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/invoices/in_inv/pay']);
  });

  it('answers succeeded when the invoice turns out to be paid already (an earlier answer was lost)', async () => {
    // Prepare
    fake.on('POST', '/v1/invoices/in_inv/pay', stripeError(400, { type: 'invalid_request_error', message: 'Invoice is already paid' }));
    fake.on('GET', '/v1/invoices/in_inv', ok(stripeInvoice('in_inv', { status: 'paid' })));
    // Act
    const outcome = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/invoices/in_inv/pay', 'GET /v1/invoices/in_inv']);
  });

  it('answers closed when the invoice was voided or written off, and a refusal awaiting the merchant for a draft', async () => {
    // Prepare
    const refusedPay = stripeError(400, { type: 'invalid_request_error', message: 'You can only pay an invoice that is open.' });
    fake.on('POST', '/v1/invoices/in_inv/pay', refusedPay, refusedPay, refusedPay);
    fake.on(
      'GET',
      '/v1/invoices/in_inv',
      ok(stripeInvoice('in_inv', { status: 'void' })),
      ok(stripeInvoice('in_inv', { status: 'uncollectible' })),
      ok(stripeInvoice('in_inv', { status: 'draft' })),
    );
    // Act
    const voided = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    const writtenOff = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    const draft = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    // Assess
    expect(voided).toEqual({ outcome: 'closed', reason: 'Stripe invoice in_inv is void: there is nothing to pay' });
    expect(writtenOff).toEqual({ outcome: 'closed', reason: 'Stripe invoice in_inv is uncollectible: there is nothing to pay' });
    expect(draft).toEqual({ outcome: 'refused', awaits: 'merchant', reason: 'Stripe invoice in_inv is a draft: it can be paid once the merchant finalizes it' });
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(3);
  });

  it('answers closed for a canceled payment intent, and asks the customer when the intent has no payment method to charge', async () => {
    // Prepare
    fake.on('GET', '/v1/payment_intents/pi_5', ok(stripePaymentIntent('pi_5', { status: 'canceled' })));
    fake.on('GET', '/v1/payment_intents/pi_6', ok(stripePaymentIntent('pi_6', { customer: stripeCustomer('cus_6') })));
    // Act
    const canceled = await processor.retry(retryRequest(payment({ psp_payment_id: 'pi_5', psp_references: ['pi_5'] }), stripeCredentials()));
    const nothingToCharge = await processor.retry(retryRequest(payment({ psp_payment_id: 'pi_6', psp_references: ['pi_6'] }), stripeCredentials()));
    // Assess
    expect(canceled).toEqual({ outcome: 'closed', reason: 'Stripe payment intent pi_5 is canceled: it cannot be charged again' });
    expect(nothingToCharge).toEqual({
      outcome: 'refused',
      awaits: 'customer',
      reason: 'Stripe payment intent pi_6 has no payment method to charge: the customer must add one',
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/payment_intents/pi_5', 'GET /v1/payment_intents/pi_6']);
  });

  it('answers no_answer for a payment intent status it does not know, rather than ending the payment', async () => {
    fake.on('GET', '/v1/payment_intents/pi_7', ok(stripePaymentIntent('pi_7', { status: 'requires_review' })));
    const outcome = await processor.retry(retryRequest(payment({ psp_payment_id: 'pi_7', psp_references: ['pi_7'] }), stripeCredentials()));
    expect(outcome).toEqual({ outcome: 'no_answer', reason: 'Stripe payment intent pi_7 is requires_review, a status this service does not know' });
  });

  it('maps an invoice needing 3-D Secure to an authentication_required decline', async () => {
    // Prepare
    fake.on(
      'POST',
      '/v1/invoices/in_inv/pay',
      stripeError(402, { type: 'card_error', code: 'invoice_payment_intent_requires_action', message: 'This payment requires additional user action.' }),
    );
    // Act
    const outcome = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'declined', declineCode: 'authentication_required' });
  });

  it('confirms the payment intent off-session with the customer default payment method when there is no invoice', async () => {
    // Prepare
    fake.on(
      'GET',
      '/v1/payment_intents/pi_2',
      ok(
        stripePaymentIntent('pi_2', {
          customer: stripeCustomer('cus_2', { invoice_settings: { default_payment_method: 'pm_updated' } }),
          last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', payment_method: { id: 'pm_failed', object: 'payment_method' } },
        }),
      ),
    );
    fake.on('POST', '/v1/payment_intents/pi_2/confirm', ok(stripePaymentIntent('pi_2', { status: 'succeeded', payment_method: 'pm_updated' })));
    const request = retryRequest(payment({ psp_payment_id: 'pi_2', psp_references: ['pi_2', 'ch_2'] }), stripeCredentials());
    // Act
    const outcome = await processor.retry(request);
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/payment_intents/pi_2', 'POST /v1/payment_intents/pi_2/confirm']);
    const [read, confirm] = fake.requests;
    expect(read!.query.getAll('expand[0]')).toEqual(['customer']);
    expect(read!.headers['idempotency-key']).toBeUndefined();
    expect(Object.fromEntries(confirm!.form)).toEqual({ payment_method: 'pm_updated', off_session: 'true' });
    expect(confirm!.headers['idempotency-key']).toBe(request.idempotencyKey);
    expect(confirm!.headers.authorization).toBe(`Bearer ${STRIPE_KEY}`);
  });

  it('retries the card that failed when the customer has no default, and maps its decline', async () => {
    // Prepare
    fake.on(
      'GET',
      '/v1/payment_intents/pi_3',
      ok(stripePaymentIntent('pi_3', { customer: stripeCustomer('cus_3'), last_payment_error: { type: 'card_error', payment_method: { id: 'pm_failed' } } })),
    );
    fake.on(
      'POST',
      '/v1/payment_intents/pi_3/confirm',
      stripeError(402, { type: 'card_error', code: 'card_declined', decline_code: 'do_not_honor', message: 'Your card was declined.' }),
    );
    // Act
    const outcome = await processor.retry(retryRequest(payment({ psp_payment_id: 'pi_3', psp_references: ['pi_3'] }), stripeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'declined', declineCode: 'do_not_honor' });
    expect(fake.requests[1]!.form.get('payment_method')).toBe('pm_failed');
  });

  it('does not confirm a payment intent that has already succeeded', async () => {
    // Prepare
    fake.on('GET', '/v1/payment_intents/pi_4', ok(stripePaymentIntent('pi_4', { status: 'succeeded' })));
    // Act
    const outcome = await processor.retry(retryRequest(payment({ psp_payment_id: 'pi_4', psp_references: ['pi_4'] }), stripeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('maps a persistent 500 to no_answer after the client retried with the same idempotency key', async () => {
    // Prepare
    fake.on('POST', '/v1/invoices/in_inv/pay', stripeError(500, { type: 'api_error', message: 'An unknown error occurred' }));
    const request = retryRequest(invoicePayment(), stripeCredentials());
    // Act
    const outcome = await processor.retry(request);
    // Assess
    expect(outcome).toMatchObject({ outcome: 'no_answer' });
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual(Array(3).fill(request.idempotencyKey));
  });

  it('recovers from a transient 503 within the call, repeating the same idempotency key', async () => {
    // Prepare
    fake.on(
      'POST',
      '/v1/invoices/in_inv/pay',
      stripeError(503, { type: 'api_error', message: 'Service unavailable' }),
      ok(stripeInvoice('in_inv', { status: 'paid' })),
    );
    const request = retryRequest(invoicePayment(), stripeCredentials());
    // Act
    const outcome = await processor.retry(request);
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual([request.idempotencyKey, request.idempotencyKey]);
  });

  it('maps 429 to no_answer', async () => {
    // Prepare
    fake.on('POST', '/v1/invoices/in_inv/pay', stripeError(429, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' }));
    // Act
    const outcome = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    // Assess
    expect(outcome).toMatchObject({ outcome: 'no_answer' });
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 401 to a refusal awaiting the merchant, carrying the message, without repeating the request', async () => {
    // Prepare
    fake.on('POST', '/v1/invoices/in_inv/pay', stripeError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_live_****51abc' }));
    // Act
    const outcome = await processor.retry(retryRequest(invoicePayment(), stripeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'refused', awaits: 'merchant', reason: expect.stringContaining('Invalid API Key provided') });
    expect(fake.requests).toHaveLength(1);
  });

  it('gives no_answer within the timeout when Stripe never answers', async () => {
    // Prepare: a server of its own, as the client keeps retrying the abandoned request in the background
    const silent = await startFakeStripe();
    try {
      const impatient = createStripeProcessor({ host: silent.host, port: silent.port, protocol: 'http', timeoutMs: 300 });
      silent.on('POST', '/v1/invoices/in_inv/pay', { hang: true });
      const request = retryRequest(invoicePayment(), stripeCredentials());
      const started = Date.now();
      // Act
      const outcome = await impatient.retry(request);
      // Assess
      const elapsed = Date.now() - started;
      expect(outcome).toEqual({ outcome: 'no_answer', reason: 'Stripe did not answer within 300 ms' });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(1_000);
      // The request that may still land later carries the same idempotency key, so it charges at most once.
      await expect.poll(() => silent.requests.length, { timeout: 3_000 }).toBeGreaterThanOrEqual(2);
      expect(new Set(silent.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([request.idempotencyKey]));
    } finally {
      await silent.close();
    }
  });

  it('makes no request without an API key on the connection, or without an invoice or payment intent', async () => {
    // Act
    const withoutKey = await processor.retry(retryRequest(invoicePayment(), stripeCredentials(null)));
    const withoutConnection = await processor.retry(retryRequest(invoicePayment(), undefined));
    const bareCharge = await processor.retry(retryRequest(payment({ psp_payment_id: 'ch_9', psp_references: ['ch_9'] }), stripeCredentials()));
    // Assess
    const noKey = { outcome: 'refused', awaits: 'merchant', reason: 'No Stripe API key on the connection: live retries are off' };
    expect(withoutKey).toEqual(noKey);
    expect(withoutConnection).toEqual(noKey);
    expect(bareCharge).toMatchObject({ outcome: 'refused', awaits: 'customer' });
    expect(fake.requests).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('Braintree live processor', () => {
  let fake: FakeBraintree;
  let processor: ReturnType<typeof createBraintreeProcessor>;
  const subscriptionPath = `/merchants/${BT.merchantId}/subscriptions/bt_sub_1`;
  const transactionsPath = `/merchants/${BT.merchantId}/transactions`;
  const failed = { id: 'txn_failed', status: 'processor_declined', processorResponseCode: '2001', billingPeriodStartDate: '2026-12-01' };
  const pastDue = subscriptionXml({ id: 'bt_sub_1', status: 'Past Due', billingPeriodStartDate: '2026-12-01', transactions: [failed] });

  beforeAll(async () => {
    fake = await startFakeBraintree();
    processor = createBraintreeProcessor({ environmentOverride: fake.environment });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const btPayment = (fields: Partial<Payment> = {}) =>
    payment({
      psp: 'braintree',
      psp_payment_id: 'txn_failed',
      psp_subscription_id: 'bt_sub_1',
      psp_references: ['txn_failed', 'sub:bt_sub_1:2026-12-01'],
      decline_code: '2001',
      ...fields,
    });

  it('reads the subscription, then retries its charge for the amount, submitted for settlement', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: pastDue });
    fake.on('POST', transactionsPath, { status: 201, xml: transactionXml({ id: 'txn_retry', status: 'submitted_for_settlement', processorResponseCode: '1000' }) });
    // Act
    const outcome = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${subscriptionPath}`, `POST ${transactionsPath}`]);
    const sale = fake.requests[1]!;
    expect(sale.json).toEqual({ transaction: { amount: '19.99', subscription_id: 'bt_sub_1', options: { submit_for_settlement: true }, type: 'sale' } });
    expect(sale.headers.authorization).toBe(`Basic ${Buffer.from(`${BT.publicKey}:${BT.privateKey}`).toString('base64')}`);
    expect(sale.headers['idempotency-key']).toBeUndefined(); // Braintree has none: see the adapter
  });

  it('maps a processor decline to declined with the processor response code', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: pastDue });
    fake.on('POST', transactionsPath, {
      status: 422,
      xml: apiErrorXml('Insufficient Funds', { transaction: { id: 'txn_retry', status: 'processor_declined', processorResponseCode: '2001', processorResponseText: 'Insufficient Funds' } }),
    });
    // Act
    const outcome = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'declined', declineCode: '2001' });
  });

  it('maps a 5xx on the sale to no_answer, without sending the sale again', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: pastDue });
    fake.on('POST', transactionsPath, { status: 500 });
    // Act
    const outcome = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toMatchObject({ outcome: 'no_answer' });
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('answers succeeded without charging when the failed period was collected already', async () => {
    // Prepare
    const collected = { id: 'txn_lost_answer', status: 'settled', processorResponseCode: '1000', billingPeriodStartDate: '2026-12-01' };
    fake.on('GET', subscriptionPath, {
      status: 200,
      xml: subscriptionXml({ id: 'bt_sub_1', status: 'Active', balance: '0.00', billingPeriodStartDate: '2026-12-01', transactions: [collected, failed] }),
    });
    // Act
    const outcome = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('does not charge a subscription that is no longer Past Due: nothing is left to collect', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: subscriptionXml({ id: 'bt_sub_1', status: 'Canceled', transactions: [failed] }) });
    // Act
    const outcome = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'closed', reason: expect.stringContaining('Canceled') });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('maps validation errors to a refusal awaiting the merchant', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: pastDue });
    fake.on('POST', transactionsPath, {
      status: 422,
      xml: apiErrorXml('Subscription status must be Past Due in order to retry.', {
        errors: [{ code: '91531', attribute: 'base', message: 'Subscription status must be Past Due in order to retry.' }],
      }),
    });
    // Act
    const outcome = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'refused', awaits: 'merchant', reason: expect.stringContaining('91531') });
  });

  it('maps a 503 on the subscription read to no_answer, and 401 to a refusal awaiting the merchant', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 503 }, { status: 401 });
    // Act
    const unavailable = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    const unauthorized = await processor.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(unavailable).toEqual({ outcome: 'no_answer', reason: expect.stringContaining('Braintree') });
    expect(unauthorized).toEqual({ outcome: 'refused', awaits: 'merchant', reason: expect.stringContaining('Braintree') });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('gives no_answer within the timeout, and never sends the sale afterwards', async () => {
    // Prepare
    const impatient = createBraintreeProcessor({ environmentOverride: fake.environment, timeoutMs: 300 });
    fake.on('GET', subscriptionPath, { hang: true });
    fake.on('POST', transactionsPath, { status: 201, xml: transactionXml({ id: 'txn_late', status: 'submitted_for_settlement' }) });
    const started = Date.now();
    // Act
    const outcome = await impatient.retry(retryRequest(btPayment(), braintreeCredentials()));
    // Assess
    expect(outcome).toEqual({ outcome: 'no_answer', reason: 'Braintree did not answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('formats the amount with the currency digits', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: pastDue });
    fake.on('POST', transactionsPath, { status: 201, xml: transactionXml({ id: 'txn_jpy', status: 'authorized' }) });
    // Act
    await processor.retry(retryRequest(btPayment({ amount: 1500, currency: 'jpy' }), braintreeCredentials()));
    // Assess
    expect(fake.requests[1]!.json).toMatchObject({ transaction: { amount: '1500' } });
  });

  it('makes no request without a subscription or without keys', async () => {
    // Act
    const noSubscription = await processor.retry(retryRequest(btPayment({ psp_subscription_id: null }), braintreeCredentials()));
    const noKeys = await processor.retry(retryRequest(btPayment(), undefined));
    // Assess
    expect(noSubscription).toMatchObject({ outcome: 'refused', awaits: 'customer' });
    expect(noKeys).toMatchObject({ outcome: 'refused', awaits: 'merchant' });
    expect(fake.requests).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('liveProcessorFor', () => {
  it('answers for processors without live retries that the customer is asked to update their payment method', async () => {
    // Act
    const outcome = await liveProcessorFor('adyen').retry(retryRequest(payment({ psp: 'adyen', psp_payment_id: 'psp_ref_1' }), undefined));
    // Assess
    expect(outcome).toEqual({
      outcome: 'refused',
      awaits: 'customer',
      reason: 'Live retries are not available for adyen: the customer is asked to update their payment method instead',
    });
  });

  it('returns the Stripe and Braintree adapters for their processors', async () => {
    // Act
    const stripe = await liveProcessorFor('stripe').retry(retryRequest(payment({ psp_references: ['in_x'] }), stripeCredentials(null)));
    const braintree = await liveProcessorFor('braintree').retry(retryRequest(payment({ psp: 'braintree' }), undefined));
    // Assess
    expect(stripe).toEqual({ outcome: 'refused', awaits: 'merchant', reason: 'No Stripe API key on the connection: live retries are off' });
    expect(braintree).toEqual({ outcome: 'refused', awaits: 'merchant', reason: 'No Braintree API keys on the connection: live retries are off' });
  });
});
