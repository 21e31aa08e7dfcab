import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { scheduler } from '../../shared/composition/scheduler.ts';
import { retryJobId } from '../../shared/domain/retries/recovery-routing.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { tenantKey } from '../../shared/store/keys.ts';
import { usagePeriod } from '../../shared/store/usage.ts';
import { advanceClock, call, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

async function setUp(plan: 'starter' | 'enterprise' = 'enterprise') {
  const merchant = await newMerchant({ plan });
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  return { ...merchant, tenant, path };
}

async function fail(path: string, code: string, lastFour: string, extra: Record<string, unknown> = {}) {
  const response = await postGeneric(path, genericFailure({ code, lastFour, ...extra }));
  expect(response.status).toBe(200);
  return response.body.payment_id as string;
}

async function payment(tenant: Tenant, id: string) {
  return (await tenantItems(tenant, `PAYMENT#${id}`))[0] as any;
}

/** Moves the clock to the payment's next retry and fires what is due. */
async function toNextRetry(tenant: Tenant, id: string) {
  const current = await payment(tenant, id);
  expect(current.next_retry_at).not.toBeNull();
  advanceClock(Math.max(0, (new Date(current.next_retry_at).getTime() - runtime.clock.now().getTime()) / 1000) + 1);
  return runDueJobs();
}

describe('automatic retries of soft declines (sandbox processor)', () => {
  it('recovers on the scheduled retry: recovered, attempt recorded, customer recovered, events emitted', async () => {
    // Prepare
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '4242');
    // Act
    const ran = await toNextRetry(tenant, id);
    // Assess
    expect(ran.filter((run) => run.job_id.includes(id))).toEqual([expect.objectContaining({ kind: 'payment-retry', outcome: 'succeeded' })]);
    const recovered = await payment(tenant, id);
    expect(recovered).toMatchObject({ status: 'recovered', retry_count: 1, next_retry_at: null, recovery_channel: 'automatic_retry' });
    expect(recovered.retries).toEqual([{ attempt: 1, status: 'succeeded', decline_code: null, attempted_at: expect.any(String) }]);
    expect(recovered.recovered_at).toBe(recovered.retries[0].attempted_at);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ status: 'recovered', failed_payments: 0, recovered_payments: 1 });
    const types = (await tenantItems(tenant, 'EVENT#')).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['payment.recovered', 'customer.retained']));
  });

  it('walks every attempt at least the cooldown apart, then hands over to dunning when exhausted', async () => {
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '9995');
    const times: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const before = await payment(tenant, id);
      expect(before).toMatchObject({ status: 'pending', retry_count: attempt - 1 });
      await toNextRetry(tenant, id);
      times.push(new Date((await payment(tenant, id)).retries[attempt - 1].attempted_at).getTime());
    }
    const exhausted = await payment(tenant, id);
    expect(exhausted).toMatchObject({ status: 'communication_pending', retry_count: 4, next_retry_at: null });
    expect(exhausted.retries.map((r: { status: string; decline_code: string }) => [r.status, r.decline_code])).toEqual(
      Array.from({ length: 4 }, () => ['failed', 'insufficient_funds']),
    );
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(48 * 3600_000);
    expect(await localRuntime().scheduler.due(new Date(Date.now() + 365 * 86400_000))).not.toContainEqual(
      expect.objectContaining({ payload: expect.objectContaining({ payment_id: id }) }),
    );
  });

  it('writes nothing of the customer for re-declines that change nothing of theirs', async () => {
    // Prepare
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '9995');
    const customerId = (await payment(tenant, id)).customer_id as string;
    const [before] = await tenantItems(tenant, `CUSTOMER#${customerId}`);
    const written: string[] = [];
    runtime.db.middlewareStack.add(
      (next: (args: any) => Promise<any>) => async (args: any) => {
        for (const item of args.input?.TransactItems ?? []) written.push(String(item.Put?.Item?.sk ?? item.Update?.Key?.sk ?? ''));
        return next(args);
      },
      { step: 'initialize', name: 'customerWrites' },
    );
    // Act
    try {
      for (let attempt = 1; attempt <= 4; attempt++) await toNextRetry(tenant, id);
    } finally {
      runtime.db.middlewareStack.remove('customerWrites');
    }
    // Assess
    expect((await payment(tenant, id)).status).toBe('communication_pending');
    expect(written).toContain(`PAYMENT#${id}`);
    expect(written).not.toContain(`CUSTOMER#${customerId}`);
    expect((await tenantItems(tenant, `CUSTOMER#${customerId}`))[0]).toEqual(before);
  });

  it('moves a payment whose retry comes back with a hard decline into dunning', async () => {
    const { tenant, path } = await setUp();
    const id = await fail(path, 'processing_error', '0069');
    await toNextRetry(tenant, id);
    expect(await payment(tenant, id)).toMatchObject({
      status: 'communication_pending',
      decline_code: 'expired_card',
      decline_category: 'hard_customer',
      retry_count: 1,
    });
  });

  it('marks a payment terminal when its retry returns a terminal decline, and never schedules it again', async () => {
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '9979');
    await toNextRetry(tenant, id);
    expect(await payment(tenant, id)).toMatchObject({ status: 'terminal', decline_category: 'terminal', next_retry_at: null });
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ failed_payments: 0, terminal_payments: 1 });
    const types = (await tenantItems(tenant, 'EVENT#')).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['payment.retry_failed', 'payment.terminal']));
  });

  it('gives a no-answer attempt back and tries the same attempt again after a backoff', async () => {
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '0000');
    await toNextRetry(tenant, id);
    const after = await payment(tenant, id);
    expect(after).toMatchObject({ status: 'pending', retry_count: 0, consecutive_no_answers: 1, retries: [] });
    const wait = new Date(after.next_retry_at).getTime() - runtime.clock.now().getTime();
    expect(wait).toBeGreaterThan(4 * 60_000);
    expect(wait).toBeLessThanOrEqual(5 * 60_000);
  });

  it('does nothing when the payment was recovered by the processor before its retry ran', async () => {
    const { tenant, path } = await setUp();
    const failure = genericFailure({ code: 'insufficient_funds', lastFour: '4242' });
    const { body } = await postGeneric(path, failure);
    await postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded' });
    advanceClock(49 * 3600);
    const ran = await runDueJobs();
    expect(ran.filter((run) => run.job_id.includes(body.payment_id))).toEqual([]);
    expect(await payment(tenant, body.payment_id)).toMatchObject({ status: 'recovered', retry_count: 0, recovery_channel: 'processor' });
  });
});

describe('POST /v1/payments/{id}/retry', () => {
  it('gives back a claimed attempt that never ran because the processor reported the payment paid first', async () => {
    const { keys, tenant, path } = await setUp();
    const failure = genericFailure({ code: 'expired_card', lastFour: '4242' });
    const { body } = await postGeneric(path, failure);
    const claimed = await call('POST', `/v1/payments/${body.payment_id}/retry`, { key: keys.test_write });
    expect(claimed.body.data).toMatchObject({ status: 'retrying', retry_count: 1 });
    await postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded' });
    await runDueJobs();
    // retry_count is the attempts made: none reached the processor. (The recovery's channel was decided when
    // the event came, while the merchant's manual retry was in flight, and analytics counted it so: it stays.)
    expect(await payment(tenant, body.payment_id)).toMatchObject({ status: 'recovered', retry_count: 0, retries: [], recovery_channel: 'manual_retry' });
  });

  it('retries a payment awaiting the customer: 200 retrying, then the attempt runs and is recorded', async () => {
    // Prepare
    const { keys, tenant, path } = await setUp();
    const id = await fail(path, 'expired_card', '4242');
    // Act
    const response = await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id, status: 'retrying', retry_count: 1 });
    expect(Math.abs(new Date(response.body.data.retry_initiated_at).getTime() - runtime.clock.now().getTime())).toBeLessThan(5_000);
    expect(typeof response.body.data.message).toBe('string');
    await runDueJobs();
    expect(await payment(tenant, id)).toMatchObject({ status: 'recovered', recovery_channel: 'manual_retry', retry_count: 1 });
  });

  it('replaces the scheduled attempt: the run now and its watchdog scheduled, the automatic one canceled', async () => {
    const { keys, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '9995');
    const jobsOf = async () => (await localRuntime().scheduler.due(new Date(runtime.clock.now().getTime() + 365 * 86400_000))).filter((job) => job.payload.payment_id === id);
    expect((await jobsOf()).map((job) => job.payload)).toEqual([{ payment_id: id, attempt: 1 }]);
    const requested = runtime.clock.now().getTime();
    expect((await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write })).status).toBe(200);
    const jobs = await jobsOf();
    expect(jobs.map((job) => job.payload).sort((a, b) => Number(a.watchdog ?? false) - Number(b.watchdog ?? false))).toEqual([
      { payment_id: id, attempt: 1, trigger: 'manual', claimed: true },
      { payment_id: id, attempt: 1, trigger: 'automatic', claimed: true, watchdog: true },
    ]);
    const watchdog = jobs.find((job) => job.payload.watchdog)!;
    expect(new Date(watchdog.runAt).getTime() - requested).toBeGreaterThanOrEqual(15 * 60_000);
  });

  it.each(['recovered', 'terminal', 'retrying'])('refuses a %s payment with 409 state_conflict naming it', async (status) => {
    const { keys, path } = await setUp();
    const code = status === 'terminal' ? 'stolen_card' : 'expired_card';
    const id = await fail(path, code, '4242');
    if (status === 'recovered') {
      await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write });
      await runDueJobs();
    }
    if (status === 'retrying') await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write });
    const response = await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('state_conflict');
    expect(response.body.error.message).toContain(id);
    expect(response.body.error.message).toContain(status);
  });

  it('finishes its own claim when sent again with its Idempotency-Key after failing past it; another key still gets 409', async () => {
    // Prepare: the claim commits, then the scheduler fails the hand-off, so the request answers 500
    const { keys, tenant, path } = await setUp();
    const id = await fail(path, 'expired_card', '4242');
    const retry = (key: string) => call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write, headers: { 'Idempotency-Key': key } });
    localRuntime().faults.set({ seed: 1, rate: 1 });
    let failed;
    try {
      failed = await retry('retry-once');
    } finally {
      localRuntime().faults.set({ seed: 1, rate: 0 });
    }
    // Act
    const again = await retry('retry-once');
    const other = await retry('retry-other');
    // Assess
    expect(failed.status).toBe(500);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id, status: 'retrying', retry_count: 1 });
    expect(other.status).toBe(409);
    expect((await tenantItems(tenant, 'USAGE#'))[0]!.recovery_attempts).toBe(1);
    await runDueJobs();
    expect(await payment(tenant, id)).toMatchObject({ status: 'recovered', recovery_channel: 'manual_retry', retry_count: 1 });
    expect((await call('GET', `/v1/payments/${id}`, { key: keys.test_write })).body.data).not.toHaveProperty('retry_claim_key');
  });

  it('lets exactly one of ten concurrent retries of one pending payment win', async () => {
    const { keys, tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '9995');
    const responses = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await payment(tenant, id)).toMatchObject({ status: 'retrying', retry_count: 1 });
    const [usage] = await tenantItems(tenant, 'USAGE#');
    expect(usage!.recovery_attempts).toBe(1);
  });

  it('makes a scheduled retry firing at the same moment as a manual one lose cleanly', async () => {
    const { keys, tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '9995');
    advanceClock(48 * 3600 + 1);
    const [manual] = await Promise.all([call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write }), runDueJobs()]);
    await runDueJobs();
    // Whichever claimed attempt 1 first ran it; the other found it taken (409 for the request, a no-op for the job).
    expect([200, 409]).toContain(manual.status);
    const after = await payment(tenant, id);
    expect(after.retries).toHaveLength(1);
    expect(after.retry_count).toBe(1);
    expect((await tenantItems(tenant, 'USAGE#'))[0]!.recovery_attempts).toBe(1);
  });

  it('needs the write scope, and 404s an unknown payment', async () => {
    const { keys } = await setUp();
    expect((await call('POST', '/v1/payments/pay_00000000000000000000000000/retry', { key: keys.test_read })).status).toBe(403);
    expect((await call('POST', '/v1/payments/pay_00000000000000000000000000/retry', { key: keys.test_write })).status).toBe(404);
  });

  it('refuses retries past the plan monthly recovery-attempt limit with 403 recovery_attempt_limit_exceeded', async () => {
    const { keys, tenant, path } = await setUp('starter');
    const id = await fail(path, 'expired_card', '4242');
    await runtime.db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: { ...tenantKey(tenant, `USAGE#${usagePeriod(runtime.clock.now())}`), entity: 'usage', recovery_attempts: 1000 },
      }),
    );
    const response = await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('recovery_attempt_limit_exceeded');
    expect(await payment(tenant, id)).toMatchObject({ status: 'communication_pending', retry_count: 0 });
  });

  it('counts automatic retries toward the limit and hands the payment to dunning when none are left', async () => {
    const { tenant, path } = await setUp('starter');
    const id = await fail(path, 'insufficient_funds', '4242');
    // The month the retry will run in: a payday wait can carry it into the next one.
    const retryAt = new Date((await payment(tenant, id)).next_retry_at);
    await runtime.db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: { ...tenantKey(tenant, `USAGE#${usagePeriod(retryAt)}`), entity: 'usage', recovery_attempts: 1000 },
      }),
    );
    await toNextRetry(tenant, id);
    expect(await payment(tenant, id)).toMatchObject({ status: 'communication_pending', retry_count: 0 });
    // Announced as retries running out are, so dunning (soft_decline campaigns) takes the payment over.
    const events = (await tenantItems(tenant, 'EVENT#')).filter((event) => event.data?.id === id).map((event) => event.type);
    expect(events).toContain('payment.retry_failed');
  });

  it('gives back to the month an attempt that charged nothing: no answer, a refusal, nothing to collect', async () => {
    const { tenant, path, keys } = await setUp('starter');
    const usage = async () => (await tenantItems(tenant, 'USAGE#')).reduce((sum, item) => sum + Number(item.recovery_attempts), 0);
    const silent = await fail(path, 'insufficient_funds', '0000');
    await toNextRetry(tenant, silent);
    expect(await payment(tenant, silent)).toMatchObject({ status: 'pending', retry_count: 0 });
    expect(await usage()).toBe(0);
    for (const card of ['0401', '0402', '0410']) {
      const id = await fail(path, 'expired_card', card);
      expect((await call('POST', `/v1/payments/${id}/retry`, { key: keys.test_write })).status).toBe(200);
      await runDueJobs();
      expect((await payment(tenant, id)).retry_count).toBe(0);
    }
    expect(await usage()).toBe(0);
    // A charge asked for stays counted.
    const declined = await fail(path, 'expired_card', '0069');
    await call('POST', `/v1/payments/${declined}/retry`, { key: keys.test_write });
    await runDueJobs();
    expect(await usage()).toBe(1);
  });
});

describe('attempt watchdog (the sweeper)', () => {
  it('goes on with its own claim when the job is delivered again after failing past it', async () => {
    // Prepare: attempt 1 claimed by its job, whose run then failed (arming the watchdog, say) before charging.
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', '4242');
    const { claimRetry } = await import('../../shared/domain/retries/retry-execution.ts');
    const job = (await localRuntime().scheduler.due(new Date(runtime.clock.now().getTime() + 365 * 86400_000))).find((due) => due.jobId === retryJobId(id, 1))!;
    advanceClock((Date.parse(job.runAt) - runtime.clock.now().getTime()) / 1000);
    await claimRetry({ scheduler }, tenant, id, 'automatic', runtime.clock.now());
    // Act: the job is delivered again.
    await runDueJobs();
    // Assess: the same attempt ran once, counted once against the plan.
    expect(await payment(tenant, id)).toMatchObject({ status: 'recovered', retry_count: 1 });
    const usage = (await tenantItems(tenant, 'USAGE#')).reduce((sum, item) => sum + Number(item.recovery_attempts ?? 0), 0);
    expect(usage).toBe(1);
  });

  /** Attempt 1 claimed by hand and never run, as if the runner crashed mid-call and its job never ran again (or waits in the dead letters). */
  async function unreportedAttempt(card: string) {
    const { tenant, path } = await setUp();
    const id = await fail(path, 'insufficient_funds', card);
    const { claimRetry } = await import('../../shared/domain/retries/retry-execution.ts');
    advanceClock(48 * 3600 + 1);
    await claimRetry({ scheduler }, tenant, id, 'automatic', runtime.clock.now());
    await scheduler.cancel(retryJobId(id, 1));
    expect(await payment(tenant, id)).toMatchObject({ status: 'retrying', retry_count: 1 });
    return { tenant, id };
  }

  it('makes an attempt that never reported under its own key, counted once', async () => {
    const { tenant, id } = await unreportedAttempt('4242');
    // Act: 15 minutes pass with no answer.
    advanceClock(15 * 60 + 1);
    await runDueJobs();
    // Assess: the processor answered the attempt's key (it would answer a charge it already made the same way).
    expect(await payment(tenant, id)).toMatchObject({ status: 'recovered', retry_count: 1 });
    const usage = (await tenantItems(tenant, 'USAGE#')).reduce((sum, item) => sum + Number(item.recovery_attempts ?? 0), 0);
    expect(usage).toBe(1);
  });

  it('gives back an attempt that never reported when the processor does not answer the watchdog either', async () => {
    const { tenant, id } = await unreportedAttempt('0000');
    advanceClock(15 * 60 + 1);
    await runDueJobs();
    expect(await payment(tenant, id)).toMatchObject({ status: 'pending', retry_count: 0, consecutive_no_answers: 1 });
    const usage = (await tenantItems(tenant, 'USAGE#')).reduce((sum, item) => sum + Number(item.recovery_attempts ?? 0), 0);
    expect(usage).toBe(0);
  });
});
