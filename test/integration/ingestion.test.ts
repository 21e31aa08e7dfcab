import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant } from '../support/api.ts';
import { postBraintreeFailure, postBraintreeNotification } from '../support/braintree-events.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { BRAINTREE_CREDENTIALS, connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric, postStripe, STRIPE_SECRET } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

async function setUp(psp: 'stripe' | 'acme' = 'acme') {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const body = psp === 'stripe' ? { webhook_secret: STRIPE_SECRET } : { webhook_secret: GENERIC_SECRET };
  const path = await connect(merchant.keys.test_admin, psp, body);
  return { ...merchant, tenant, path };
}

const payments = (tenant: Tenant) => tenantItems(tenant, 'PAYMENT#');
const customers = (tenant: Tenant) => tenantItems(tenant, 'CUSTOMER#');

describe('failed-payment ingestion (generic processor)', () => {
  it('records a soft decline as a pending payment with its retry scheduled, and creates the customer', async () => {
    // Prepare
    const { tenant, path } = await setUp();
    const event = genericFailure({ code: 'insufficient_funds', amount: 2900, currency: 'EUR' });
    const before = runtime.clock.now().getTime();
    // Act
    const response = await postGeneric(path, event);
    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ received: true, outcome: 'created', event_id: event.id });
    const [payment] = await payments(tenant);
    expect(payment).toMatchObject({
      id: response.body.payment_id,
      customer_id: response.body.customer_id,
      amount: 2900,
      currency: 'eur',
      status: 'pending',
      decline_code: 'insufficient_funds',
      decline_category: 'soft_retry',
      decline_subcategory: 'Balance',
      psp: 'acme',
      psp_payment_id: event.payment.id,
      retry_count: 0,
      max_retries: 4,
      recovered_at: null,
    });
    expect(payment!.id).toMatch(/^pay_/);
    expect(payment!.subscription_id).toMatch(/^sub_/);
    expect(payment!.mapping_version).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    const delay = new Date(payment!.next_retry_at).getTime() - before;
    expect(delay).toBeGreaterThanOrEqual(48 * 3600_000);
    expect(delay).toBeLessThanOrEqual((48 + 6 * 24) * 3600_000);
    const localHour = Number(new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', hour: 'numeric', hourCycle: 'h23' }).format(new Date(payment!.next_retry_at)));
    expect(localHour >= 8 && localHour < 21).toBe(true);
    const [customer] = await customers(tenant);
    expect(customer).toMatchObject({
      id: response.body.customer_id,
      email: event.customer.email,
      name: event.customer.name,
      psp: 'acme',
      psp_customer_id: event.customer.id,
      status: 'active',
      total_payments: 1,
      failed_payments: 1,
      recovered_payments: 0,
      timezone: 'Europe/Berlin',
      payment_method: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2027 },
    });
    expect(customer!.subscriptions).toEqual([
      expect.objectContaining({ psp_subscription_id: event.subscription.id, plan: 'pro', amount: 2900, currency: 'eur', id: payment!.subscription_id }),
    ]);
    const due = await localRuntime().scheduler.due(new Date(payment!.next_retry_at));
    expect(due.filter((job) => job.payload.payment_id === payment!.id)).toEqual([
      expect.objectContaining({ kind: 'payment-retry', payload: { payment_id: payment!.id, attempt: 1 } }),
    ]);
    const events = (await tenantItems(tenant, 'EVENT#')).map((e) => e.type).sort();
    // The first retry is announced with the failure, as every later one is.
    expect(events).toEqual(['customer.created', 'payment.failed', 'payment.retry_scheduled']);
  });

  it.each([
    ['expired_card', 'hard_customer', 'communication_pending', 0],
    ['stolen_card', 'terminal', 'terminal', 0],
    ['weird_code_42', 'unknown', 'communication_pending', 0],
  ])('routes %s to %s (%s)', async (code, category, status, maxRetries) => {
    const { tenant, path } = await setUp();
    expect((await postGeneric(path, genericFailure({ code }))).status).toBe(200);
    const [payment] = await payments(tenant);
    expect(payment).toMatchObject({ decline_category: category, status, max_retries: maxRetries, next_retry_at: null });
    const [customer] = await customers(tenant);
    expect(customer!.failed_payments).toBe(status === 'terminal' ? 0 : 1);
  });

  it('adds a second failure to the same customer, one customer per processor customer id', async () => {
    const { tenant, path } = await setUp();
    await postGeneric(path, genericFailure({ customerId: 'cust_same' }));
    await postGeneric(path, genericFailure({ customerId: 'cust_same' }));
    expect(await payments(tenant)).toHaveLength(2);
    const all = await customers(tenant);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ total_payments: 2, failed_payments: 2 });
  });

  it('ends with one customer and one payment when the same event is delivered twice, or ten times at once', async () => {
    const { tenant, path } = await setUp();
    const event = genericFailure();
    expect((await postGeneric(path, event)).body.outcome).toBe('created');
    expect((await postGeneric(path, event)).body.outcome).toBe('duplicate');
    const burst = genericFailure({ customerId: 'cust_burst' });
    const responses = await Promise.all(Array.from({ length: 10 }, () => postGeneric(path, burst)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.filter((r) => r.body.outcome === 'created')).toHaveLength(1);
    expect(await payments(tenant)).toHaveLength(2);
    expect(await customers(tenant)).toHaveLength(2);
    const burstCustomer = (await customers(tenant)).find((c) => c.psp_customer_id === 'cust_burst');
    expect(burstCustomer).toMatchObject({ total_payments: 1, failed_payments: 1 });
  });

  it('creates one customer when two different first failures for it arrive at once', async () => {
    const { tenant, path } = await setUp();
    await Promise.all([postGeneric(path, genericFailure({ customerId: 'cust_race' })), postGeneric(path, genericFailure({ customerId: 'cust_race' }))]);
    const all = await customers(tenant);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ total_payments: 2, failed_payments: 2 });
  });

  it('records a burst of thirty failures for one customer, answering any it cannot fit in time with 429 lock_timeout, never a 500', async () => {
    const { tenant, path } = await setUp();
    const events = Array.from({ length: 30 }, () => genericFailure({ customerId: 'cust_burst' }));
    let pending = events;
    // As a processor does: whatever was not acknowledged is delivered again.
    for (let delivery = 0; pending.length > 0 && delivery < 5; delivery++) {
      const responses = await Promise.all(pending.map((event) => postGeneric(path, event)));
      for (const response of responses) {
        expect([200, 429], JSON.stringify(response.body)).toContain(response.status);
        if (response.status === 429) {
          expect(response.body.error).toMatchObject({ code: 'lock_timeout', retry_after: 1 });
          expect(response.headers['Retry-After']).toBe('1');
        }
      }
      pending = pending.filter((_, i) => responses[i]!.status !== 200);
    }
    expect(pending).toEqual([]);
    expect(await payments(tenant)).toHaveLength(30);
    const all = await customers(tenant);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ total_payments: 30, failed_payments: 30 });
  });

  it('refuses bad signatures, stale timestamps and malformed bodies with 400 and stores nothing', async () => {
    const { tenant, path } = await setUp();
    const event = genericFailure();
    const wrongSecret = await postGeneric(path, event, { secret: 'another-secret-entirely-123' });
    const stale = await postGeneric(path, event, { timestamp: nowSeconds() - 330 });
    const future = await postGeneric(path, event, { timestamp: nowSeconds() + 330 });
    const unsigned = await call('POST', path, { body: event });
    const malformed = await call('POST', path, { rawBody: '{not json', headers: { 'x-recovery-signature': 't=1,v1=00' } });
    for (const response of [wrongSecret, stale, future, unsigned, malformed]) {
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
    }
    const missingField = { ...genericFailure(), payment: { id: 'x', currency: 'usd', decline_code: 'insufficient_funds' } };
    expect((await postGeneric(path, missingField)).status).toBe(400);
    expect(await tenantItems(tenant, '')).toEqual(expect.not.arrayContaining([expect.objectContaining({ entity: 'payment' })]));
    expect(await payments(tenant)).toHaveLength(0);
    expect(await customers(tenant)).toHaveLength(0);
  });

  it('answers 404 for an unknown connection, or a connection of another processor', async () => {
    const { path } = await setUp();
    const unknown = await postGeneric('/webhooks/acme/con_00000000000000000000000000', genericFailure());
    expect(unknown.status).toBe(404);
    const otherPsp = await postGeneric(path.replace('/acme/', '/other/'), genericFailure());
    expect(otherPsp.status).toBe(404);
  });

  it('acknowledges event types it does not use with 200 and stores nothing', async () => {
    const { tenant, path } = await setUp();
    const response = await postGeneric(path, { id: 'evt_x', type: 'invoice.created', created: nowSeconds() });
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('ignored');
    expect(await payments(tenant)).toHaveLength(0);
  });

  it('marks the payment recovered on success, once, and the customer recovered when nothing is pending', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure({ amount: 1500, currency: 'usd' });
    await postGeneric(path, failure);
    const success = { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', payment: { ...failure.payment, decline_code: null } };
    advanceClock(3600);
    expect((await postGeneric(path, success)).body.outcome).toBe('updated');
    expect((await postGeneric(path, { ...success, id: `${success.id}_again` })).body.outcome).toBe('duplicate');
    const [payment] = await payments(tenant);
    expect(payment).toMatchObject({ status: 'recovered', next_retry_at: null });
    expect(payment!.recovered_at).not.toBeNull();
    const [customer] = await customers(tenant);
    expect(customer).toMatchObject({ status: 'recovered', failed_payments: 0, recovered_payments: 1, recovered_amounts: { usd: 1500 } });
    const due = await localRuntime().scheduler.due(new Date(Date.now() + 400 * 86400_000));
    expect(due.filter((job) => job.payload.payment_id === payment!.id)).toEqual([]);
    expect((await tenantItems(tenant, 'EVENT#')).filter((e) => e.type === 'payment.recovered')).toHaveLength(1);
  });

  it('keeps the newest card and details when an older failure arrives late (processors deliver out of order)', async () => {
    const { tenant, path } = await setUp();
    const newer = genericFailure({ lastFour: '1111', email: 'new@example.com' });
    const older = genericFailure({ customerId: newer.customer.id, lastFour: '0000', email: 'old@example.com' });
    expect((await postGeneric(path, newer)).body.outcome).toBe('created');
    // Sent a minute before the newer one, delivered after it.
    expect((await postGeneric(path, { ...older, created: newer.created - 60 })).body.outcome).toBe('created');
    const [customer] = await customers(tenant);
    expect(customer).toMatchObject({ email: 'new@example.com', payment_method: expect.objectContaining({ last_four: '1111' }) });
    expect(await payments(tenant)).toHaveLength(2);
    // A later event still moves them on.
    const latest = genericFailure({ customerId: newer.customer.id, lastFour: '2222', email: 'latest@example.com' });
    expect((await postGeneric(path, { ...latest, created: newer.created + 60 })).body.outcome).toBe('created');
    expect((await customers(tenant))[0]).toMatchObject({ email: 'latest@example.com', payment_method: expect.objectContaining({ last_four: '2222' }) });
  });

  it('records a failure whose success arrived first as already recovered: nothing retried or dunned', async () => {
    const { tenant, path, keys } = await setUp();
    const campaign = await call('POST', '/v1/campaigns', {
      key: keys.test_write,
      body: { name: 'Cards', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Update your card', delay_hours: 0 }] },
    });
    expect((await call('POST', `/v1/campaigns/${campaign.body.data.id}/activate`, { key: keys.test_write })).status).toBe(200);
    const failure = genericFailure({ amount: 1500, currency: 'usd', code: 'expired_card' });
    const success = { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', payment: { ...failure.payment, decline_code: null } };
    // The success is sent first, the failure (30 s older) after it, as processors may deliver them.
    expect((await postGeneric(path, success)).body.outcome).toBe('ignored');
    const late = await postGeneric(path, { ...failure, created: success.created - 30 });
    expect(late.body.outcome).toBe('created');
    const [payment] = await payments(tenant);
    expect(payment).toMatchObject({ status: 'recovered', recovery_channel: 'processor', next_retry_at: null, decline_code: 'expired_card' });
    const [customer] = await customers(tenant);
    expect(customer).toMatchObject({ status: 'recovered', failed_payments: 0, recovered_payments: 1, recovered_amounts: { usd: 1500 } });
    expect((await tenantItems(tenant, 'EVENT#')).map((event) => event.type)).toEqual(expect.arrayContaining(['payment.failed', 'payment.recovered']));
    await drainEvents();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
    const due = await localRuntime().scheduler.due(new Date(Date.now() + 400 * 86400_000));
    expect(due.filter((job) => job.payload.payment_id === payment!.id)).toEqual([]);
    // A terminal code the same way: paid, so recovered, counted once (not terminal as well).
    const fraud = genericFailure({ amount: 800, currency: 'usd', code: 'stolen_card', customerId: failure.customer.id });
    await postGeneric(path, { ...fraud, id: `${fraud.id}_ok`, type: 'payment.succeeded', payment: { ...fraud.payment, decline_code: null } });
    expect((await postGeneric(path, { ...fraud, created: fraud.created - 30 })).body.outcome).toBe('created');
    expect((await customers(tenant))[0]).toMatchObject({ failed_payments: 0, terminal_payments: 0, recovered_payments: 2, total_payments: 2 });
    // A failure of another charge of the same customer is not affected.
    expect((await postGeneric(path, genericFailure({ customerId: failure.customer.id }))).body.outcome).toBe('created');
    expect((await payments(tenant)).map((p) => p.status).sort()).toEqual(['pending', 'recovered', 'recovered']);
  });

  it('takes a processor event with broken text rather than lose its failure: NUL dropped, half a surrogate pair replaced', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure({ code: 'expired_card' });
    const broken = { ...failure, customer: { ...failure.customer, name: 'Ada\u0000 Love\udc00lace' } };
    expect((await postGeneric(path, broken)).body.outcome).toBe('created');
    expect((await customers(tenant))[0]).toMatchObject({ name: 'Ada Love\ufffdlace' });
  });

  it('credits a payment awaiting the customer that no campaign has messaged to the processor, not to dunning', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure({ code: 'expired_card' });
    await postGeneric(path, failure);
    await postGeneric(path, { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', payment: { ...failure.payment, decline_code: null } });
    expect((await payments(tenant))[0]).toMatchObject({ status: 'recovered', recovery_channel: 'processor' });
  });

  it('records a failure newer than a success of the same charge as a new failure', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure({ amount: 900, currency: 'usd', code: 'insufficient_funds' });
    const success = { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', payment: { ...failure.payment, decline_code: null } };
    expect((await postGeneric(path, success)).body.outcome).toBe('ignored');
    const later = await postGeneric(path, { ...failure, created: success.created + 60 });
    expect(later.status).toBe(200);
    expect(later.body.outcome).toBe('created');
    expect((await payments(tenant)).map((payment) => payment.status)).toEqual(['pending']);
  });

  it('ends paid whichever of a success and its older failure is recorded first when they arrive together', async () => {
    const { tenant, path } = await setUp();
    for (let round = 0; round < 6; round++) {
      const failure = genericFailure({ amount: 100 + round, currency: 'usd', code: 'insufficient_funds' });
      const success = { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', payment: { ...failure.payment, decline_code: null } };
      const answers = await Promise.all([postGeneric(path, success), postGeneric(path, { ...failure, created: success.created - 30 })]);
      for (const answer of answers) expect(answer.status).toBe(200);
    }
    const recorded = await payments(tenant);
    expect(recorded).toHaveLength(6);
    expect(recorded.map((payment) => payment.status)).toEqual(Array(6).fill('recovered'));
    const due = await localRuntime().scheduler.due(new Date(Date.now() + 400 * 86400_000));
    expect(due.filter((job) => recorded.some((payment) => job.payload.payment_id === payment.id))).toEqual([]);
  });

  it('marks the customer churned when the subscription is canceled, once', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure();
    await postGeneric(path, failure);
    const cancel = { id: `${failure.id}_cancel`, type: 'subscription.canceled', created: nowSeconds(), customer: failure.customer, subscription: { ...failure.subscription, status: 'canceled' } };
    expect((await postGeneric(path, cancel)).body.outcome).toBe('updated');
    expect((await postGeneric(path, { ...cancel, id: `${cancel.id}_2` })).body.outcome).toBe('duplicate');
    const [customer] = await customers(tenant);
    expect(customer!.status).toBe('churned');
    expect(customer!.subscriptions[0].status).toBe('canceled');
    const canceled = (await tenantItems(tenant, 'EVENT#')).filter((e) => e.type === 'customer.subscription_canceled');
    expect(canceled).toHaveLength(1);
    // The shape a cancel flow's churn has: the customer list item, which subscription, and the source.
    expect(canceled[0]!.data).toMatchObject({
      id: customer!.id,
      status: 'churned',
      subscription: { id: customer!.subscriptions[0].id, psp_subscription_id: failure.subscription.id },
      source: 'processor',
    });
  });

  it('records a card update on a known customer and ignores unknown customers', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure();
    await postGeneric(path, failure);
    const update = {
      id: `${failure.id}_pm`,
      type: 'payment_method.updated',
      created: nowSeconds(),
      customer: failure.customer,
      payment_method: { type: 'card', brand: 'mastercard', last_four: '5454', exp_month: 1, exp_year: 2030 },
    };
    expect((await postGeneric(path, update)).body.outcome).toBe('updated');
    const [customer] = await customers(tenant);
    expect(customer!.payment_method).toEqual({ type: 'card', brand: 'mastercard', last_four: '5454', exp_month: 1, exp_year: 2030 });
    const stranger = { ...update, id: 'evt_stranger', customer: { ...failure.customer, id: 'nobody' } };
    expect((await postGeneric(path, stranger)).body.outcome).toBe('ignored');
  });
});

describe('Stripe webhooks', () => {
  it.each([
    ['payment_intent, charge, invoice', ['paymentIntent', 'charge', 'invoice']],
    ['invoice, charge, payment_intent', ['invoice', 'charge', 'paymentIntent']],
    ['charge, invoice, payment_intent', ['charge', 'invoice', 'paymentIntent']],
  ] as const)('turns the three failure events of one charge into one payment (%s)', async (_, order) => {
    const { tenant, path } = await setUp('stripe');
    const events = stripeChargeFailure({ declineCode: 'insufficient_funds' });
    for (const name of order) expect((await postStripe(path, events[name])).status).toBe(200);
    const all = await payments(tenant);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      psp: 'stripe',
      psp_payment_id: events.ids.pi,
      decline_code: 'insufficient_funds',
      decline_category: 'soft_retry',
      status: 'pending',
      amount: 4900,
      currency: 'usd',
    });
    const [customer] = await customers(tenant);
    expect(customer).toMatchObject({ psp_customer_id: events.ids.cus, total_payments: 1, failed_payments: 1 });
    expect(customer!.subscriptions).toEqual([expect.objectContaining({ psp_subscription_id: events.ids.sub, id: all[0]!.subscription_id })]);
    expect(customer!.payment_method).toMatchObject({ brand: 'visa', last_four: '0341' });
  });

  it('takes the decline code from a later sibling when the first event had none', async () => {
    const { tenant, path } = await setUp('stripe');
    const events = stripeChargeFailure({ declineCode: 'insufficient_funds' });
    const bare = structuredClone(events.invoice);
    await postStripe(path, bare);
    expect((await payments(tenant))[0]).toMatchObject({ decline_category: 'unknown', status: 'communication_pending' });
    await postStripe(path, events.charge);
    const [payment] = await payments(tenant);
    expect(payment).toMatchObject({ decline_code: 'insufficient_funds', decline_category: 'soft_retry', status: 'pending' });
    expect(payment!.next_retry_at).not.toBeNull();
  });

  it('recovers on invoice.paid and churns on customer.subscription.deleted', async () => {
    const { tenant, path } = await setUp('stripe');
    const events = stripeChargeFailure({ declineCode: 'expired_card' });
    await postStripe(path, events.paymentIntent);
    await postStripe(path, events.invoice);
    expect((await postStripe(path, events.paid)).body.outcome).toBe('updated');
    expect((await payments(tenant))[0]).toMatchObject({ status: 'recovered' });
    const canceled = await postStripe(path, events.canceled);
    expect(canceled.body).toMatchObject({ outcome: 'updated' });
    expect((await customers(tenant))[0]).toMatchObject({ status: 'churned' });
  });

  it('keeps a known subscription as Stripe updates it, and never revives a canceled one', async () => {
    // Prepare: a failure makes the customer known, with the subscription past due.
    const { tenant, path, keys } = await setUp('stripe');
    const events = stripeChargeFailure({ declineCode: 'insufficient_funds' });
    await postStripe(path, events.paymentIntent);
    await postStripe(path, events.invoice);
    const [customer] = await customers(tenant);
    const updated = (status: string, periodEnd: number, id: string, created = events.canceled.created) => ({
      ...events.canceled,
      id,
      created,
      type: 'customer.subscription.updated',
      data: { object: { ...events.canceled.data.object, status, current_period_end: periodEnd } },
    });
    const subscriptionOf = async () => (await call('GET', `/v1/customers/${customer!.id}`, { key: keys.test_read })).body.data.subscriptions[0];
    // Act: the merchant's customer fixes the card; Stripe renews the period and marks it active.
    const renewedAt = nowSeconds() + 30 * 86_400;
    const active = await postStripe(path, updated('active', renewedAt, 'evt_upd_active'));
    // Assess
    expect(active.body).toMatchObject({ outcome: 'updated', customer_id: customer!.id });
    expect(await subscriptionOf()).toMatchObject({ status: 'active', current_period_end: new Date(renewedAt * 1000).toISOString() });
    expect((await postStripe(path, updated('active', renewedAt, 'evt_upd_again'))).body.outcome).toBe('duplicate');
    // Act: an update sent a minute before the renewal arrives after it (Stripe keeps no order).
    const stale = await postStripe(path, updated('past_due', renewedAt - 30 * 86_400, 'evt_upd_stale', events.canceled.created - 60));
    // Assess: the newer description stands.
    expect(stale.body.outcome).toBe('duplicate');
    expect(await subscriptionOf()).toMatchObject({ status: 'active', current_period_end: new Date(renewedAt * 1000).toISOString() });
    // Act: canceled (Stripe sends the update and the deletion), then an older update arrives late.
    expect((await postStripe(path, updated('canceled', renewedAt, 'evt_upd_canceled'))).body.outcome).toBe('updated');
    expect((await postStripe(path, events.canceled)).body.outcome).toBe('duplicate');
    expect((await postStripe(path, updated('past_due', renewedAt, 'evt_upd_late'))).body.outcome).toBe('duplicate');
    // Assess: churned once, still canceled.
    expect(await subscriptionOf()).toMatchObject({ status: 'canceled' });
    expect((await customers(tenant))[0]).toMatchObject({ status: 'churned' });
    const churnEvents = (await tenantItems(tenant, 'EVENT#')).filter((event) => event.type === 'customer.subscription_canceled');
    expect(churnEvents).toHaveLength(1);
  });

  it("follows a Braintree subscription back to active, and churns the customer when it expires", async () => {
    // Prepare
    const merchant = await newMerchant();
    const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
    const path = await connect(merchant.keys.test_admin, 'braintree', BRAINTREE_CREDENTIALS);
    const who = { subscriptionId: `bt_sub_life_${Date.now().toString(36)}`, customer: { id: `bt_cus_life_${Date.now().toString(36)}`, email: 'life@example.com', firstName: 'Ada', lastName: 'Lovelace' } };
    expect((await postBraintreeFailure(path, '2001', who)).status).toBe(200);
    const [customer] = await customers(tenant);
    const subscriptionOf = async () => (await call('GET', `/v1/customers/${customer!.id}`, { key: merchant.keys.test_read })).body.data.subscriptions[0];
    expect(await subscriptionOf()).toMatchObject({ status: 'past_due' });
    // Act
    const active = await postBraintreeNotification(path, 'subscription_went_active', '1000', { ...who, status: 'Active' });
    // Assess
    expect(active.body).toMatchObject({ outcome: 'updated' });
    expect(await subscriptionOf()).toMatchObject({ status: 'active' });
    // Act
    const expired = await postBraintreeNotification(path, 'subscription_expired', '1000', { ...who, status: 'Expired' });
    // Assess
    expect(expired.body).toMatchObject({ outcome: 'updated' });
    expect(await subscriptionOf()).toMatchObject({ status: 'canceled' });
    expect((await customers(tenant))[0]).toMatchObject({ status: 'churned' });
  });

  it('refuses a payload signed with another secret, or signed more than 300 s ago', async () => {
    const { tenant, path } = await setUp('stripe');
    const events = stripeChargeFailure({ declineCode: 'insufficient_funds' });
    expect((await postStripe(path, events.charge, { secret: 'whsec_wrong000000000000' })).status).toBe(400);
    expect((await postStripe(path, events.charge, { timestamp: nowSeconds() - 330 })).status).toBe(400);
    expect(await payments(tenant)).toHaveLength(0);
  });
});
