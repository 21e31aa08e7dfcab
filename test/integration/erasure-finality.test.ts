import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { recordErasedCustomer } from '../../shared/store/erased-references.ts';
import { findErasure, startErasure } from '../../shared/store/erasures.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { postBraintreeFailure, postBraintreeNotification } from '../support/braintree-events.ts';
import { stripeChargeFailure } from '../support/stripe-events.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { BRAINTREE_CREDENTIALS, connect, GENERIC_SECRET, nowSeconds, postGeneric, postStripe, STRIPE_SECRET } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

/**
 * Issue 20, item 1: erasure is final for everything that happened before it. Events from before the
 * erasure, resent or late, through each receiver's real handler, are acknowledged `erased` and leave
 * the tenant exactly as it was; events from after it start a fresh record.
 */

async function merchant() {
  const created = await newMerchant();
  const tenant: Tenant = { merchantId: created.merchantId, environment: 'test' };
  return { ...created, tenant };
}

/** A person whose processor ids are found nowhere else; the generic charge id contains the customer id, as `inv_<customer>_2026_11`. */
function person() {
  const tag = randomBytes(6).toString('hex');
  return { customer: `pc${tag}`, email: `final.${tag}@person.example`, name: `Fay Nality ${tag}`, subscription: `psub_${tag}`, charge: `inv_pc${tag}_2026_11` };
}

type Person = ReturnType<typeof person>;

function genericEvent(who: Person, type: string, overrides: { id?: string; charge?: string; code?: string; created?: number } = {}) {
  return {
    id: overrides.id ?? `evt_${type}_${randomBytes(4).toString('hex')}`,
    type,
    created: overrides.created ?? nowSeconds(),
    customer: { id: who.customer, email: who.email, name: who.name },
    subscription: { id: who.subscription, plan: 'pro', amount: 2900, currency: 'usd', status: type === 'subscription.canceled' ? 'canceled' : 'past_due' },
    payment: { id: overrides.charge ?? who.charge, amount: 2900, currency: 'usd', decline_code: overrides.code ?? 'insufficient_funds' },
    payment_method: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 1, exp_year: 2030 },
  };
}

/**
 * Everything an event could leave: every item of the tenant's partition (customers, payments,
 * references, events, counters), the jobs scheduled for the tenant, and what the local adapters sent.
 */
async function footprint(tenant: Tenant) {
  const items = (await tenantItems(tenant, '')).map((item) => JSON.stringify(item)).sort();
  const jobs = (await localRuntime().scheduler.due(new Date('2999-01-01T00:00:00Z'))).filter((job) => job.tenant?.merchantId === tenant.merchantId);
  return { items, jobs: jobs.map((job) => job.jobId).sort(), sent: localRuntime().outbox.entries().length };
}

const erase = async (key: string, customerId: string) => {
  const response = await call('DELETE', `/v1/customers/${customerId}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  await drainEvents();
  return response.body.data as { id: string; deleted: true; anonymized_records: number };
};

/** Posts until the answer is not 429 (a processor redelivers on it), as the race may make one wait. */
async function delivered(post: () => Promise<{ status: number; body: any }>) {
  for (let attempt = 0; ; attempt++) {
    const response = await post();
    if (response.status !== 429 || attempt === 20) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('an erasure is final for what happened before it', () => {
  it.each([
    ['a soft decline', 'insufficient_funds'],
    ['a hard decline', 'expired_card'],
  ])('generic: a resent %s whose charge id names the customer is acknowledged erased, and nothing is stored, scheduled, sent or emitted', async (_label, code) => {
    // Prepare
    const { keys, tenant } = await merchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const who = person();
    const failure = genericEvent(who, 'payment.failed', { code });
    const first = await postGeneric(path, failure);
    expect(first.body.outcome).toBe('created');
    await drainEvents();
    await erase(keys.test_admin, first.body.customer_id);
    const before = await footprint(tenant);
    // Act
    const resent = await postGeneric(path, failure);
    // Assess
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ received: true, event_id: failure.id, outcome: 'erased' });
    expect(await drainEvents()).toEqual({ events: 0, failed: 0 });
    expect(await footprint(tenant)).toEqual(before);
    // The first failure's own retry may fall due within these days (its time depends on today's date)
    // and then ends as a no-op on the terminal payment: nothing new may appear, nothing may be sent.
    advanceClock(5 * 86_400);
    await runDueJobs();
    const after = await footprint(tenant);
    expect({ items: after.items, sent: after.sent }).toEqual({ items: before.items, sent: before.sent });
    expect(before.jobs).toEqual(expect.arrayContaining(after.jobs));
    expect((await call('GET', '/v1/customers', { key: keys.test_read, query: { query: who.email } })).body.pagination.total).toBe(0);
  });

  it('generic: a success, a cancellation and a card update from before the erasure are erased too', async () => {
    // Prepare
    const { keys, tenant } = await merchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const who = person();
    const created = nowSeconds();
    const first = await postGeneric(path, genericEvent(who, 'payment.failed', { created }));
    await drainEvents();
    await erase(keys.test_admin, first.body.customer_id);
    const before = await footprint(tenant);
    // Act: what the processor sent around the failure, arriving after the erasure.
    const late = [];
    for (const type of ['payment.succeeded', 'subscription.canceled', 'payment_method.updated']) late.push(await postGeneric(path, genericEvent(who, type, { created })));
    // Assess
    expect(late.map((response) => [response.status, response.body.outcome])).toEqual([
      [200, 'erased'],
      [200, 'erased'],
      [200, 'erased'],
    ]);
    expect(await drainEvents()).toEqual({ events: 0, failed: 0 });
    expect(await footprint(tenant)).toEqual(before);
  });

  it('generic: an event from after the erasure is a new relationship, even for a charge id erasure hashed', async () => {
    // Prepare
    const { keys } = await merchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const who = person();
    const first = await postGeneric(path, genericEvent(who, 'payment.failed'));
    await erase(keys.test_admin, first.body.customer_id);
    advanceClock(60);
    // Act: the processor tries the same invoice again, a minute after the erasure.
    const again = await postGeneric(path, genericEvent(who, 'payment.failed'));
    // Assess
    expect(again.body).toMatchObject({ outcome: 'created' });
    expect(again.body.customer_id).not.toBe(first.body.customer_id);
    const fresh = await call('GET', `/v1/customers/${again.body.customer_id}`, { key: keys.test_read });
    expect(fresh.body.data).toMatchObject({ psp_customer_id: who.customer, email: who.email, total_payments: 1 });
    const payment = await call('GET', `/v1/payments/${again.body.payment_id}`, { key: keys.test_read });
    expect(payment.body.data).toMatchObject({ psp_payment_id: who.charge, customer_id: again.body.customer_id, status: 'pending' });
    // Erasing the new relationship makes its own events final in turn.
    const beforeSecondErasure = nowSeconds();
    await erase(keys.test_admin, again.body.customer_id);
    expect((await postGeneric(path, genericEvent(who, 'payment.failed', { created: beforeSecondErasure }))).body.outcome).toBe('erased');
  });

  it('Stripe: the charge, payment intent and invoice events, the invoice paid and the subscription deleted, all from before the erasure', async () => {
    // Prepare
    const { keys, tenant } = await merchant();
    const path = await connect(keys.test_admin, 'stripe', { webhook_secret: STRIPE_SECRET });
    const events = stripeChargeFailure({ declineCode: 'insufficient_funds', customer: `cus_f${randomBytes(6).toString('hex')}` });
    const first = await postStripe(path, events.invoice);
    expect(first.body.outcome).toBe('created');
    expect((await postStripe(path, events.charge)).body.payment_id).toBe(first.body.payment_id);
    await drainEvents();
    expect(await erase(keys.test_admin, first.body.customer_id)).toMatchObject({ anonymized_records: 1 });
    const before = await footprint(tenant);
    // Act
    const resent = [];
    for (const event of [events.invoice, events.charge, events.paymentIntent, events.paid, events.canceled]) resent.push(await postStripe(path, event));
    // Assess
    expect(resent.map((response) => [response.status, response.body.outcome])).toEqual(Array(5).fill([200, 'erased']));
    expect(await drainEvents()).toEqual({ events: 0, failed: 0 });
    expect(await footprint(tenant)).toEqual(before);
    // A failure a minute after the erasure starts a fresh customer.
    advanceClock(60);
    const later = stripeChargeFailure({ declineCode: 'insufficient_funds', customer: events.ids.cus });
    const fresh = await postStripe(path, later.invoice);
    expect(fresh.body.outcome).toBe('created');
    expect(fresh.body.customer_id).not.toBe(first.body.customer_id);
  });

  it('Braintree: the charge, its success and the cancellation, from before the erasure; a hard decline', async () => {
    // Prepare
    const { keys, tenant } = await merchant();
    const path = await connect(keys.test_admin, 'braintree', BRAINTREE_CREDENTIALS);
    const tag = randomBytes(6).toString('hex');
    const options = {
      subscriptionId: `btsub_${tag}`,
      transactionId: `txn_${tag}`,
      customer: { id: `btc_${tag}`, email: `bt.${tag}@person.example`, firstName: 'Brai', lastName: `Ntree ${tag}` },
      timestamp: runtime.clock.now().toISOString(),
    };
    const first = await postBraintreeFailure(path, '2004', options);
    expect(first.body.outcome).toBe('created');
    await drainEvents();
    await erase(keys.test_admin, first.body.customer_id);
    const before = await footprint(tenant);
    // Act
    const resent = [
      await postBraintreeFailure(path, '2004', options),
      await postBraintreeNotification(path, 'subscription_charged_successfully', '1000', { ...options, status: 'Active' }),
      await postBraintreeNotification(path, 'subscription_canceled', '2004', { ...options, status: 'Canceled' }),
    ];
    // Assess
    expect(resent.map((response) => [response.status, response.body.outcome])).toEqual(Array(3).fill([200, 'erased']));
    expect(await drainEvents()).toEqual({ events: 0, failed: 0 });
    expect(await footprint(tenant)).toEqual(before);
    advanceClock(60);
    const later = await postBraintreeFailure(path, '2004', { ...options, transactionId: `txn2_${tag}`, timestamp: runtime.clock.now().toISOString() });
    expect(later.body.outcome).toBe('created');
    expect(later.body.customer_id).not.toBe(first.body.customer_id);
  });

  it('waits for an erasure under way (429) with an event from after it began, then starts fresh', async () => {
    // Prepare: the state an erasure is in while it runs (or after it stopped halfway).
    const { keys, tenant } = await merchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const who = person();
    const old = genericEvent(who, 'payment.failed');
    const first = await postGeneric(path, old);
    const { started_at: startedAt } = await startErasure(tenant, first.body.customer_id, runtime.clock.now());
    await recordErasedCustomer(tenant, 'acme', who.customer, first.body.customer_id, startedAt);
    advanceClock(60);
    const newer = genericEvent(who, 'payment.failed', { charge: `chg_${randomBytes(4).toString('hex')}` });
    // Act
    const waiting = await postGeneric(path, newer);
    const resent = await postGeneric(path, old);
    // Assess
    expect(waiting.status).toBe(429);
    expect(waiting.body.error.code).toBe('lock_timeout');
    expect(resent.body.outcome).toBe('erased');
    expect((await call('GET', `/v1/customers/${first.body.customer_id}`, { key: keys.test_read })).body.data.total_payments).toBe(1);
    await erase(keys.test_admin, first.body.customer_id);
    const redelivered = await postGeneric(path, newer);
    expect(redelivered.body.outcome).toBe('created');
    expect(redelivered.body.customer_id).not.toBe(first.body.customer_id);
  });

  it('a resend and a late failure racing the erasure never leave the person behind', async () => {
    const { keys, tenant } = await merchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    for (let round = 0; round < 8; round++) {
      // Prepare: a customer with one failure; a second failure that happened just before the erasure is on its way.
      const who = person();
      const failure = genericEvent(who, 'payment.failed', { code: 'expired_card' });
      const first = await postGeneric(path, failure);
      const late = genericEvent(who, 'payment.failed', { charge: `${who.charge}_b`, created: nowSeconds() - 1 });
      // Act: the two deliveries start at different moments of the erasure in different rounds.
      const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const [erased, resent, lateAnswer] = await Promise.all([
        erase(keys.test_admin, first.body.customer_id),
        after(round * 15).then(() => delivered(() => postGeneric(path, failure))),
        after((7 - round) * 15).then(() => delivered(() => postGeneric(path, late))),
      ]);
      // Assess: each event was either taken before the erasure (and erased with the customer) or acknowledged erased.
      expect(resent.status).toBe(200);
      expect(lateAnswer.status).toBe(200);
      expect(['duplicate', 'erased']).toContain(resent.body.outcome);
      expect(['created', 'erased']).toContain(lateAnswer.body.outcome);
      const kept = (await tenantItems(tenant, 'PAYMENT#')).filter((payment) => [first.body.payment_id, lateAnswer.body.payment_id].includes(payment.id));
      expect(kept).toHaveLength(lateAnswer.body.outcome === 'created' ? 2 : 1);
      expect(erased.anonymized_records).toBe(kept.length);
      for (const payment of kept) expect(payment).toMatchObject({ customer_id: null, status: 'terminal' });
      const traces = (await tenantItems(tenant, '')).filter((item) => {
        const text = JSON.stringify(item);
        return [who.customer, who.email, who.name].some((value) => text.includes(value));
      });
      expect(traces).toEqual([]);
      expect((await findErasure(tenant, first.body.customer_id))!.state).toBe('completed');
    }
    // Nothing was sent to anyone, whatever came first.
    advanceClock(5 * 86_400);
    await runDueJobs();
    expect(localRuntime().outbox.entries().filter((entry) => entry.to.includes('@person.example'))).toEqual([]);
  });
});
