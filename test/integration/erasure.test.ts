import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { anonymizePayment, personalValues, scrub } from '../../shared/domain/customers/customer-erasure.ts';
import { findCustomer } from '../../shared/store/customers.ts';
import { countAnonymizedWrite, findErasure, startErasure } from '../../shared/store/erasures.ts';
import { anonymizeEvent } from '../../shared/store/events.ts';
import { claimIdempotencyKey, recordIdempotentResponse } from '../../shared/store/idempotency.ts';
import { findPayment, paymentChangeWrites } from '../../shared/store/payments.ts';
import { transact } from '../../shared/store/transactions.ts';
import { advanceClock, call, drainEvents, runDueJobs } from '../support/api.ts';
import { postBraintreeFailure } from '../support/braintree-events.ts';
import { merchantWithProcessors, recordFailure, recordSuccess, storedCustomers, storedPayments } from '../support/recovery-data.ts';
import { activeFlow, advance, answer, complete, getSession, startSession } from '../support/cancel-flows.ts';
import { scanTable, tenantItems } from '../support/tenant-items.ts';
import { BRAINTREE_CREDENTIALS, connect, genericFailure, postGeneric } from '../support/webhooks.ts';

/** Items anywhere in the table whose stored form contains any of these values, any case. */
async function itemsHolding(values: readonly string[]): Promise<Record<string, unknown>[]> {
  const lowered = values.map((value) => value.toLowerCase());
  return (await scanTable()).filter((item) => {
    const text = JSON.stringify(item).toLowerCase();
    return lowered.some((value) => text.includes(value));
  });
}

/** A person no other test uses, so a whole-table scan can look for them. */
function uniquePerson() {
  const tag = randomBytes(6).toString('hex');
  return { customer: `cust_erase_${tag}`, email: `erase.me.${tag}@person.example`, name: `Erin Rasure ${tag}`, subscription: `psub_erase_${tag}` };
}

async function erasableCustomer() {
  const merchant = await merchantWithProcessors();
  const person = uniquePerson();
  const spec = { customer: person.customer, email: person.email, name: person.name, subscription: person.subscription };
  const recovered = await recordFailure(merchant.paths, { ...spec, code: 'insufficient_funds', amount: 4900 });
  await recordSuccess(merchant.paths.acme, recovered.event);
  const pending = await recordFailure(merchant.paths, { ...spec, code: 'insufficient_funds', amount: 2900, after: 3600 });
  const terminal = await recordFailure(merchant.paths, { ...spec, code: 'stolen_card', amount: 1900, after: 3600 });
  const retried = await call('POST', `/v1/payments/${pending.paymentId}/retry`, { key: merchant.keys.test_write, headers: { 'idempotency-key': `retry-${randomBytes(6).toString('hex')}` } });
  expect(retried.status).toBe(200);
  const cancel = await postGeneric(merchant.paths.acme, { ...terminal.event, id: `${terminal.event.id}_cancel`, type: 'subscription.canceled' });
  expect(cancel.status).toBe(200);
  // A stored idempotent response that carries the customer (as a response naming them would).
  const body = JSON.stringify({ data: { id: recovered.customerId, email: person.email, name: person.name } });
  await claimIdempotencyKey(merchant.tenant, `enroll-${person.customer}`, 'fp', new Date(), new Date(Date.now() + 86_400_000), new Date(Date.now() + 60_000));
  await recordIdempotentResponse(merchant.tenant, `enroll-${person.customer}`, 'fp', { statusCode: 200, headers: {}, body });
  const control = await recordFailure(merchant.paths, { customer: `control_${randomBytes(6).toString('hex')}`, email: 'control.person@other.example', name: 'Control Person', after: 60 });
  return {
    ...merchant,
    person,
    customerId: recovered.customerId,
    paymentIds: [recovered.paymentId, pending.paymentId, terminal.paymentId],
    firstEvent: pending.event,
    control,
  };
}

const erase = (key: string, id: string) => call('DELETE', `/v1/customers/${id}`, { key });

describe('DELETE /v1/customers/{id} (GDPR erasure)', () => {
  it('deletes every trace of the person, keeps the payments anonymised, and leaves nothing in the whole table', async () => {
    // Prepare
    const subject = await erasableCustomer();
    const { person, customerId, keys, tenant } = subject;
    const paymentsBefore = (await storedPayments(tenant)).filter((p) => p.customer_id === customerId);
    expect(paymentsBefore).toHaveLength(3);
    expect(await itemsHolding([person.email])).not.toHaveLength(0);
    const customersBefore = (await call('GET', '/v1/customers', { key: keys.test_read })).body.pagination.total;
    // Act
    const response = await erase(keys.test_admin, customerId);
    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { id: customerId, deleted: true, anonymized_records: 3 } });
    expect(JSON.stringify(await itemsHolding([person.email, person.name, person.customer, person.subscription]))).toEqual("[]");

    const gone = await call('GET', `/v1/customers/${customerId}`, { key: keys.test_read });
    expect(gone.status).toBe(404);
    expect((await call('GET', `/v1/customers/${customerId}/payments`, { key: keys.test_read })).status).toBe(404);
    for (const query of [person.email, person.name, person.name.split(' ')[1]!, person.email.split('@')[0]!]) {
      const search = await call('GET', '/v1/customers', { key: keys.test_read, query: { query } });
      expect(search.body.pagination.total, query).toBe(0);
    }
    expect((await call('GET', '/v1/customers', { key: keys.test_read })).body.pagination.total).toBe(customersBefore - 1);

    // The payments stay for reporting: amounts, dates, codes and statuses as they were, no customer.
    const after = (await storedPayments(tenant)).filter((p) => subject.paymentIds.includes(p.id));
    expect(after).toHaveLength(3);
    for (const payment of after) {
      const before = paymentsBefore.find((p) => p.id === payment.id)!;
      expect(payment).toMatchObject({
        customer_id: null,
        subscription_id: null,
        psp_subscription_id: null,
        amount: before.amount,
        currency: before.currency,
        status: before.status,
        decline_code: before.decline_code,
        decline_category: before.decline_category,
        created_at: before.created_at,
        retry_count: before.retry_count,
        psp_payment_id: before.psp_payment_id,
      });
      // The card a failure was recorded on goes with the person, as their enrollments' card does.
      if (before.failed_card !== undefined) expect(payment.failed_card).toBeNull();
      expect(payment.gsi1pk).toBeUndefined();
    }
    const detail = await call('GET', `/v1/payments/${subject.paymentIds[0]}`, { key: keys.test_read });
    expect(detail.body.data).toMatchObject({ id: subject.paymentIds[0], customer_id: null, customer: null, amount: 4900 });
    const listed = await call('GET', '/v1/payments', { key: keys.test_read, query: { per_page: '100' } });
    expect(listed.body.pagination.total).toBe(4);
    expect((await call('GET', '/v1/payments', { key: keys.test_read, query: { customer_id: customerId } })).body.pagination.total).toBe(0);

    // Events stay (anonymised), the idempotent response that named the person is gone, the notice is recorded.
    const events = await tenantItems(tenant, 'EVENT#');
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['customer.created', 'payment.recovered', 'customer.subscription_canceled', 'customer.deleted']));
    expect(events.find((e) => e.type === 'customer.deleted')!.data).toEqual({ id: customerId, deleted: true });
    expect(events.filter((e) => e.type === 'customer.created' && e.data.email === null)).toHaveLength(1);
    expect((await tenantItems(tenant, 'IDEMPOTENCY#')).map((r) => r.sk)).toEqual([expect.stringMatching(/^IDEMPOTENCY#retry-/)]);

    // Someone else's data is untouched.
    const control = await call('GET', `/v1/customers/${subject.control.customerId}`, { key: keys.test_read });
    expect(control.body.data).toMatchObject({ email: 'control.person@other.example', name: 'Control Person' });
  });

  it('ends recovery with the customer: open payments become terminal, an attempt in flight ends there, nothing is retried again', async () => {
    // Prepare: a soft decline waiting for its retry, a hard one in dunning, and a soft one whose manual retry is claimed.
    const merchant = await merchantWithProcessors();
    const person = uniquePerson();
    const spec = { customer: person.customer, email: person.email, name: person.name };
    const waiting = await recordFailure(merchant.paths, { ...spec, code: 'insufficient_funds', amount: 2900 });
    const dunned = await recordFailure(merchant.paths, { ...spec, code: 'expired_card', amount: 1900 });
    const inFlight = await recordFailure(merchant.paths, { ...spec, code: 'insufficient_funds', amount: 900 });
    const claimed = await call('POST', `/v1/payments/${inFlight.paymentId}/retry`, { key: merchant.keys.test_write });
    expect(claimed.body.data.status).toBe('retrying');
    expect((await findPayment(merchant.tenant, waiting.paymentId))!.next_retry_at).not.toBeNull();
    // Act
    expect((await erase(merchant.keys.test_admin, waiting.customerId)).status).toBe(200);
    await runDueJobs();
    // Every consumer takes the ends (analytics, webhooks, dunning, metrics) without a failure.
    const delivered = await drainEvents();
    expect(delivered).toMatchObject({ failed: 0 });
    expect(delivered.events).toBeGreaterThan(0);
    // A consumer that failed would have left its event in the feed for the next delivery.
    expect(await drainEvents()).toEqual({ events: 0, failed: 0 });
    // Assess
    const read = async (id: string) => (await call('GET', `/v1/payments/${id}`, { key: merchant.keys.test_read })).body.data;
    expect(await read(waiting.paymentId)).toMatchObject({ status: 'terminal', next_retry_at: null, retry_count: 0, customer_id: null });
    expect(await read(dunned.paymentId)).toMatchObject({ status: 'terminal', next_retry_at: null, customer_id: null });
    // The manual retry was claimed but its attempt not yet made when the erasure ran: it is never made
    // (nothing reached the processor, no answer recorded), and the payment ends with the others.
    expect(await read(inFlight.paymentId)).toMatchObject({ status: 'terminal', next_retry_at: null, retry_count: 0, retries: [] });
    // The retry the first payment was waiting for comes due and finds nothing to do; a manual one is refused.
    advanceClock(8 * 86_400);
    await runDueJobs();
    expect(await read(waiting.paymentId)).toMatchObject({ status: 'terminal', retry_count: 0, retries: [] });
    const refused = await call('POST', `/v1/payments/${waiting.paymentId}/retry`, { key: merchant.keys.test_write });
    expect(refused.status).toBe(409);
    // Each end is announced like any terminal outcome, from the anonymised payment.
    const terminalEvents = (await tenantItems(merchant.tenant, 'EVENT#')).filter((event) => event.type === 'payment.terminal');
    expect(terminalEvents.map((event) => event.data.id).sort()).toEqual([waiting.paymentId, dunned.paymentId, inFlight.paymentId].sort());
    for (const event of terminalEvents) expect(event.data).toMatchObject({ customer_id: null, status: 'terminal' });
    const statusCounts = await call('GET', '/v1/payments', { key: merchant.keys.test_read, query: { status: 'terminal' } });
    expect(statusCounts.body.pagination.total).toBe(3);
  });

  it('is idempotent: a repeated DELETE gives the same answer and changes nothing', async () => {
    const { customerId, keys } = await erasableCustomer();
    const first = await erase(keys.test_admin, customerId);
    const second = await erase(keys.test_admin, customerId);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const [a, b] = await Promise.all([erase(keys.test_admin, customerId), erase(keys.test_admin, customerId)]);
    expect([a.body, b.body]).toEqual([first.body, first.body]);
  });

  it('gives the same answer to two erasures running at once, counting each record once', async () => {
    const { customerId, keys, person } = await erasableCustomer();
    const [a, b] = await Promise.all([erase(keys.test_admin, customerId), erase(keys.test_admin, customerId)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body).toEqual({ data: { id: customerId, deleted: true, anonymized_records: 3 } });
    expect(b.body).toEqual(a.body);
    expect(JSON.stringify(await itemsHolding([person.email, person.name, person.customer]))).toEqual("[]");
  });

  it('finishes an erasure that stopped halfway when run again', async () => {
    // Prepare: the state a crash leaves after the record was opened and some items were anonymised.
    const { customerId, keys, tenant, person, paymentIds } = await erasableCustomer();
    const now = new Date();
    await startErasure(tenant, customerId, now);
    const payment = (await findPayment(tenant, paymentIds[0]!))!;
    const { payment: anonymized } = anonymizePayment(payment, [customerId, person.email, person.name, person.customer], now);
    expect((await transact([...paymentChangeWrites(tenant, payment, anonymized), countAnonymizedWrite(tenant, customerId)])).committed).toBe(true);
    const event = (await tenantItems(tenant, 'EVENT#')).find((e) => e.type === 'customer.created')!;
    const customer = (await findCustomer(tenant, customerId))!;
    await anonymizeEvent(tenant, event.id, scrub(event.data, personalValues(customer)) as Record<string, unknown>);
    expect((await findErasure(tenant, customerId))!.state).toBe('in_progress');
    // The customer is still there until the erasure completes.
    expect((await call('GET', `/v1/customers/${customerId}`, { key: keys.test_read })).status).toBe(200);
    // Act
    const response = await erase(keys.test_admin, customerId);
    // Assess
    expect(response.body).toEqual({ data: { id: customerId, deleted: true, anonymized_records: 3 } });
    expect((await findErasure(tenant, customerId))!).toMatchObject({ state: 'completed', anonymized_records: 3 });
    expect(JSON.stringify(await itemsHolding([person.email, person.name, person.customer]))).toEqual("[]");
  });

  it('goes on after the steps a failed try finished when sent again, not from the start', async () => {
    // Prepare: the widget-session sweep (the third step) is throttled past the SDK's tries, once.
    const { customerId, keys, tenant, person } = await erasableCustomer();
    const send = runtime.db.send.bind(runtime.db);
    let throttled = false;
    const sweeps: string[] = [];
    const spy = vi.spyOn(runtime.db, 'send').mockImplementation((async (command: any, ...rest: any[]) => {
      const values = command instanceof QueryCommand ? (command.input.ExpressionAttributeValues ?? {}) : {};
      if (values[':prefix'] === 'IDEMPOTENCY#') sweeps.push('idempotency_records');
      if (':subscriber' in values) {
        sweeps.push('subscriber_sessions');
        if (!throttled) {
          throttled = true;
          throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ThrottlingException' });
        }
      }
      return send(command, ...rest);
    }) as any);
    // Act
    const failed = await erase(keys.test_admin, customerId);
    const afterFailure = await findErasure(tenant, customerId);
    const sweptByFirst = sweeps.splice(0);
    const resent = await erase(keys.test_admin, customerId);
    spy.mockRestore();
    // Assess: the first try stopped at the sessions, its two steps before noted; the resend swept only what was left.
    expect(failed.status).toBe(500);
    expect(afterFailure).toMatchObject({ state: 'in_progress', steps_done: ['tombstone', 'idempotency_records'] });
    expect([...new Set(sweptByFirst)]).toEqual(['idempotency_records', 'subscriber_sessions']);
    expect(sweeps.filter((sweep) => sweep === 'idempotency_records')).toEqual([]);
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ data: { id: customerId, deleted: true, anonymized_records: 3 } });
    expect(JSON.stringify(await itemsHolding([person.email, person.name, person.customer, person.subscription]))).toEqual('[]');
  });

  it('lets a later failure for the same processor customer create a fresh customer', async () => {
    const { customerId, keys, paths, person, firstEvent, paymentIds, tenant } = await erasableCustomer();
    await erase(keys.test_admin, customerId);
    // A redelivery of an old failure is acknowledged as erased and brings nothing back.
    const replay = await postGeneric(paths.acme, firstEvent);
    expect(replay.body).toEqual({ received: true, event_id: firstEvent.id, outcome: 'erased' });
    expect((await findPayment(tenant, paymentIds[1]!))!.customer_id).toBeNull();
    const customers = (await call('GET', '/v1/customers', { key: keys.test_read, query: { query: person.email } })).body;
    expect(customers.pagination.total).toBe(0);
    // A failure that happens after the erasure is a new relationship.
    advanceClock(60);
    const again = await postGeneric(paths.acme, genericFailure({ customerId: person.customer, email: person.email }));
    expect(again.status).toBe(200);
    expect(again.body.outcome).toBe('created');
    expect(again.body.customer_id).not.toBe(customerId);
    const fresh = await call('GET', `/v1/customers/${again.body.customer_id}`, { key: keys.test_read });
    expect(fresh.body.data).toMatchObject({ psp_customer_id: person.customer, email: person.email, total_payments: 1 });
    expect((await call('GET', `/v1/customers/${customerId}`, { key: keys.test_read })).status).toBe(404);
    // Erasing the new one does not disturb the old record, and vice versa.
    expect((await erase(keys.test_admin, again.body.customer_id)).body.data).toMatchObject({ deleted: true, anonymized_records: 1 });
    expect((await erase(keys.test_admin, customerId)).body.data).toMatchObject({ deleted: true, anonymized_records: 3 });
  });

  it('removes processor references that name the person (Braintree subscription periods), keeping charge ids', async () => {
    const merchant = await merchantWithProcessors();
    const path = await connect(merchant.keys.test_admin, 'braintree', BRAINTREE_CREDENTIALS);
    const person = uniquePerson();
    const subscriptionId = `btsub_${person.customer}`;
    const tag = person.customer.slice('cust_erase_'.length);
    const transactionId = `txn_${tag}`;
    const posted = await postBraintreeFailure(path, '2001', {
      subscriptionId,
      transactionId,
      customer: { id: person.customer, email: person.email, firstName: 'Erin', lastName: `Rasure ${tag}` },
    });
    expect(posted.status).toBe(200);
    const [payment] = await storedPayments(merchant.tenant);
    expect(payment!.psp_references).toEqual(expect.arrayContaining([transactionId, `sub:${subscriptionId}:2026-12-01`]));
    const [customer] = await storedCustomers(merchant.tenant);
    expect(customer!.name).toBe(person.name);

    const response = await erase(merchant.keys.test_admin, customer!.id);

    expect(response.body.data).toEqual({ id: customer!.id, deleted: true, anonymized_records: 1 });
    const [kept] = await storedPayments(merchant.tenant);
    expect(kept).toMatchObject({ psp_payment_id: transactionId, psp_references: [transactionId], amount: 1999, currency: 'usd' });
    expect(await itemsHolding([person.email, person.name, person.customer, subscriptionId])).toEqual([]);
    expect((await tenantItems(merchant.tenant, 'PAYREF#')).map((ref) => ref.sk)).toEqual([`PAYREF#braintree#${transactionId}`]);
  });

  it("deletes the customer's running cancel sessions: their tokens answer 404 and nothing of them is left", async () => {
    // Prepare: sessions the widget started with the processor's ids and with ours, one with a free-text
    // answer, one completed earlier, and another subscriber's.
    const merchant = await merchantWithProcessors();
    await activeFlow(merchant.keys.test_write);
    const person = uniquePerson();
    const failure = await recordFailure(merchant.paths, { customer: person.customer, email: person.email, name: person.name, subscription: person.subscription });
    const ourSubscription = (await call('GET', `/v1/customers/${failure.customerId}`, { key: merchant.keys.test_read })).body.data.subscriptions[0].id as string;
    const freeText = `Leaving because of ${person.name}'s budget`;
    const byProcessorIds = await startSession(merchant.merchantId, { customer: person.customer, subscription: person.subscription });
    expect((await advance(byProcessorIds.token, answer({ reason: 'missing_features', free_text: freeText }, 'survey'))).status).toBe(200);
    const byOurIds = await startSession(merchant.merchantId, { customer: failure.customerId, subscription: ourSubscription });
    const completed = await startSession(merchant.merchantId, { customer: person.customer, subscription: person.subscription });
    expect((await complete(completed.token, { outcome: 'saved', reason: 'kept_subscription', free_text: freeText })).status).toBe(200);
    const otherSubscriber = `cust_other_${randomBytes(6).toString('hex')}`;
    const someoneElse = await startSession(merchant.merchantId, { customer: otherSubscriber, subscription: 'sub_other' });
    // Act
    expect((await erase(merchant.keys.test_admin, failure.customerId)).status).toBe(200);
    // Assess
    for (const { token } of [byProcessorIds, byOurIds]) {
      expect((await getSession(token)).status).toBe(404);
      expect((await advance(token, answer({ reason: 'too_expensive' }, 'survey'))).status).toBe(404);
      expect((await complete(token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(404);
    }
    // The completed one keeps its tombstone (no ids in it): still "already completed" for its day.
    expect((await advance(completed.token)).status).toBe(400);
    expect((await getSession(someoneElse.token)).body.session).toMatchObject({ customerId: otherSubscriber });
    expect(JSON.stringify(await itemsHolding([person.customer, person.subscription, ourSubscription, freeText, person.email]))).toEqual('[]');
  });

  it('needs the admin scope and answers like a read for unknown, foreign or other-environment customers', async () => {
    const { customerId, keys } = await erasableCustomer();
    for (const key of [keys.test_read, keys.test_write, keys.pub]) {
      const refused = await erase(key, customerId);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
    }
    expect((await call('GET', `/v1/customers/${customerId}`, { key: keys.test_read })).status).toBe(200);
    const other = await merchantWithProcessors();
    expect((await erase(other.keys.test_admin, customerId)).status).toBe(404);
    const live = await erase(keys.live_admin, customerId);
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('invalid_api_key');
    expect((await erase(keys.test_admin, 'cus_00000000000000000000000000')).status).toBe(404);
    expect((await erase(keys.test_admin, 'not-an-id')).status).toBe(404);
  });
});

