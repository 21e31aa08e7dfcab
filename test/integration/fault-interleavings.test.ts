import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { findPayment } from '../../shared/store/payments.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { merchantWithCampaign } from '../support/dunning-merchants.ts';
import { activeFlow, advance, answer, complete, getSession, startSession } from '../support/cancel-flows.ts';
import { resendAfterLostAnswer } from '../support/lost-answers.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } from '../support/webhooks.ts';

/**
 * Interleavings the chaos runs found (test/e2e/chaos.test.ts, docs/faults.md), each reproduced here
 * at one exact call, without the fault proxy: what the faulted path stores must be what the
 * fault-free one stores.
 */

/** Every transaction writing an event of this type fails, past the SDK's own tries, without being applied, until restored. */
function throttle(eventType: string) {
  const send = runtime.db.send.bind(runtime.db);
  return vi.spyOn(runtime.db, 'send').mockImplementation((async (command: any, ...rest: any[]) => {
    if (!(command instanceof TransactWriteCommand) || !JSON.stringify(command.input.TransactItems).includes(`"${eventType}"`)) return send(command, ...rest);
    throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ThrottlingException' });
  }) as any);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a failure whose stream deliveries all failed until its payment was paid', () => {
  it('is enrolled when redriven and its recovery credited, as when it was delivered at once', async () => {
    // Prepare: two merchants, the same campaign; each gets a hard decline, and then the customer pays.
    const inOrder = await merchantWithCampaign();
    const late = await merchantWithCampaign();
    const paid = (failure: ReturnType<typeof genericFailure>) => ({ ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded', created: nowSeconds() });

    // Act: the fault-free path reaches dunning before the payment. The other's enrollment is throttled
    // on every delivery of the failure, which goes to the stream's dead letters; the payment arrives,
    // and then an operator redrives the failure.
    const inOrderFailure = genericFailure({ code: 'expired_card' });
    expect((await postGeneric(inOrder.path, inOrderFailure)).status).toBe(200);
    await drainEvents();
    expect((await postGeneric(inOrder.path, paid(inOrderFailure))).status).toBe(200);
    await drainEvents();
    const lateFailure = genericFailure({ code: 'expired_card' });
    const spy = throttle('campaign.enrolled');
    expect((await postGeneric(late.path, lateFailure)).status).toBe(200);
    const deliveries = await drainEvents();
    spy.mockRestore();
    const enrolledBeforeRedrive = (await tenantItems(late.tenant, 'ENROLLMENT#')).length;
    expect((await postGeneric(late.path, paid(lateFailure))).status).toBe(200);
    await drainEvents();
    expect(localRuntime().events.redrive()).toBe(1);
    await drainEvents();

    // Assess: the same enrollment, credited with the same recovery, counted the same way.
    expect(deliveries.failed).toBe(1);
    expect(enrolledBeforeRedrive).toBe(0);
    const stats = async ({ campaignId, key }: { campaignId: string; key: string }) => (await call('GET', `/v1/campaigns/${campaignId}`, { key })).body.data.stats;
    expect(await stats(late)).toEqual(await stats(inOrder));
    expect(await stats(late)).toMatchObject({ enrolled_count: 1, recovered_count: 1, active_count: 0 });
    const enrollment = async (tenant: Tenant) => (await tenantItems(tenant, 'ENROLLMENT#')).map((item) => [item.status, item.stop_reason]);
    expect(await enrollment(late.tenant)).toEqual(await enrollment(inOrder.tenant));
    const enrolledEvents = async (tenant: Tenant) => (await tenantItems(tenant, 'EVENT#')).filter((item) => item.type === 'campaign.enrolled').length;
    expect(await enrolledEvents(late.tenant)).toBe(1);
  });
});

const onIdempotencyRecord = (type: typeof PutCommand | typeof UpdateCommand) => (command: unknown) =>
  command instanceof type && String((command.input as { Item?: { sk?: string }; Key?: { sk?: string } }).Item?.sk ?? (command.input as { Key?: { sk?: string } }).Key?.sk).startsWith('IDEMPOTENCY#');

describe('an Idempotency-Key write whose answer was lost', () => {
  it.each([
    ['the claim', onIdempotencyRecord(PutCommand)],
    ['the stored response', onIdempotencyRecord(UpdateCommand)],
  ] as const)('is recognised as its own when %s is resent: the request is answered, once', async (_what, matches) => {
    // Prepare
    const { keys } = await newMerchant();
    const request = { key: keys.test_admin, body: { name: 'ci', scopes: ['read'] }, headers: { 'idempotency-key': 'lost-answer-1' } };
    const spy = resendAfterLostAnswer(matches);
    // Act
    const first = await call('POST', '/v1/api-keys', request);
    const resent = spy.mock.calls.some(([command]) => matches(command));
    spy.mockRestore();
    const again = await call('POST', '/v1/api-keys', request);
    // Assess: not 409 (another request holds the key) nor 500 (the record failed): created, and replayed after.
    expect(resent).toBe(true);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect((await call('GET', '/v1/api-keys', { key: keys.test_admin })).body.pagination.total).toBe(5);
  });
});

/** A write to a cancel session's own item (not its tombstone), of the given command type. */
const onCancelSession = (type: typeof PutCommand | typeof UpdateCommand) => (command: unknown) => {
  const input = (command as { input?: { Item?: { pk?: string; sk?: string }; Key?: { pk?: string; sk?: string } } }).input;
  const key = input?.Item ?? input?.Key;
  return command instanceof type && String(key?.pk).startsWith('CANCELSESSION#') && key?.sk === 'SESSION';
};

describe('a cancel session write whose answer was lost', () => {
  it('starts the session once: the put found stored is our own, not a 500', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    await activeFlow(keys.test_write);
    const spy = resendAfterLostAnswer(onCancelSession(PutCommand));
    // Act
    const started = await startSession(merchantId);
    const resent = spy.mock.calls.some(([command]) => onCancelSession(PutCommand)(command));
    spy.mockRestore();
    // Assess
    expect(resent).toBe(true);
    expect((await getSession(started.token)).body.session).toMatchObject({ sessionId: started.sessionId, currentStep: 1, responses: [] });
  });

  it('records an advance once: the update found applied is our own, not a step to append again', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    await activeFlow(keys.test_write);
    const { token } = await startSession(merchantId);
    const spy = resendAfterLostAnswer(onCancelSession(UpdateCommand));
    // Act
    const advanced = await advance(token, answer({ reason: 'too_expensive' }, 'survey'));
    const resent = spy.mock.calls.some(([command]) => onCancelSession(UpdateCommand)(command));
    spy.mockRestore();
    // Assess: step 2 (the offer) is next, and the survey is answered once.
    expect(resent).toBe(true);
    expect(advanced.status).toBe(200);
    expect(advanced.body.session).toMatchObject({ currentStep: 2, responses: [expect.objectContaining({ stepType: 'survey' })] });
    expect((await getSession(token)).body.session.responses).toHaveLength(1);
    expect((await advance(token, answer({ accepted_offer: false }, 'offer'))).status).toBe(200);
  });
});

describe('a cancel advance sent again after its answer was lost', () => {
  it('is answered with the session as it is, the answer recorded once; another answer to that step is still 400', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    await activeFlow(keys.test_write);
    const { token } = await startSession(merchantId);
    const survey = answer({ reason: 'too_expensive' }, 'survey');
    // Act: the widget never saw the first answer and sends the same again.
    const first = await advance(token, survey);
    const again = await advance(token, survey);
    const otherAnswer = await advance(token, answer({ reason: 'missing_features' }, 'survey'));
    // Assess
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(otherAnswer.status).toBe(400);
    expect((await getSession(token)).body.session).toMatchObject({ currentStep: 2, responses: [expect.objectContaining({ stepType: 'survey' })] });
  });
});

describe('a cancel completion sent again after its answer was lost', () => {
  it('is answered as the completion was, stored once; another outcome is still 400', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant();
    const tenant: Tenant = { merchantId, environment: 'test' };
    await activeFlow(keys.test_write);
    const { token, sessionId } = await startSession(merchantId);
    const body = { outcome: 'churned', reason: 'too_expensive' };
    // Act: the widget never saw the first answer (the connection dropped) and sends the same again.
    const first = await complete(token, body);
    const again = await complete(token, body);
    const otherReason = await complete(token, { ...body, reason: 'missing_features' });
    const otherOutcome = await complete(token, { ...body, outcome: 'saved' });
    // Assess
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.body).toEqual({ completed: true, outcome: 'churned', session_id: sessionId });
    expect([otherReason.status, otherOutcome.status]).toEqual([400, 400]);
    expect(await tenantItems(tenant, 'CANCELFEEDBACK#')).toHaveLength(1);
    expect((await tenantItems(tenant, 'EVENT#')).filter((event) => event.type === 'CancelFlowCompleted')).toHaveLength(1);
  });
});

describe('a refused outbound delivery whose run failed after recording the attempt', () => {
  /** The merchant's receiver: refuses the first delivery with a 500, takes the rest; counts them. */
  async function refusingOnce() {
    const received: string[] = [];
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(request.headers['recovery-delivery-attempt'] as string);
        response.writeHead(received.length === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  const onDelivery = (command: unknown) =>
    command instanceof UpdateCommand && String((command.input as { Key?: { sk?: string } }).Key?.sk).startsWith('WHDELIVERY#');

  it.each([
    ['the attempt record lost its answer', () => resendAfterLostAnswer(onDelivery)],
    [
      'scheduling the next attempt failed',
      () => {
        const scheduler = localRuntime().scheduler;
        const schedule = scheduler.schedule.bind(scheduler);
        let failed = false;
        return vi.spyOn(scheduler, 'schedule').mockImplementation(async (job) => {
          if (failed || !job.id.endsWith('.2')) return schedule(job);
          failed = true;
          throw new Error('scheduler unavailable');
        });
      },
    ],
  ] as const)('is attempted again after the backoff when %s', async (_what, fault) => {
    // Prepare
    const receiver = await refusingOnce();
    try {
      const { keys } = await newMerchant();
      const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
      const endpoint = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: receiver.url, events: ['payment.failed'] } });
      expect((await postGeneric(path, genericFailure({ code: 'expired_card' }))).status).toBe(200);
      await drainEvents();
      // Act: the first attempt is refused, its run faulted; the job runs again as Lambda retries it, then the backoff passes.
      const spy = fault();
      await runDueJobs();
      spy.mockRestore();
      for (const seconds of [60, 60, 60]) {
        advanceClock(seconds);
        await runDueJobs();
      }
      // Assess
      expect(receiver.received).toEqual(['1', '2']);
      const listed = await call('GET', `/v1/webhooks/${endpoint.body.data.id}/deliveries`, { key: keys.test_admin });
      expect(listed.body.data).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 2 })]);
    } finally {
      await receiver.close();
    }
  });
});

describe('a retry job that failed every try after its processor answered', () => {
  /** A soft decline on a card the sandbox keeps declining: its first retry is scheduled, and declines. */
  async function declinedRetry() {
    const { tenant, path } = await merchantWithCampaign();
    const failure = genericFailure({ code: 'insufficient_funds', lastFour: '9995' });
    const paymentId = (await postGeneric(path, failure)).body.payment_id as string;
    await drainEvents();
    const payment = (await findPayment(tenant, paymentId))!;
    return { tenant, paymentId, dueIn: Math.ceil((Date.parse(payment.next_retry_at!) - runtime.clock.now().getTime()) / 1000) + 1 };
  }

  const history = async (tenant: Tenant, paymentId: string) => {
    const payment = (await findPayment(tenant, paymentId))!;
    const events = (await tenantItems(tenant, 'EVENT#')).filter((item) => item.data?.id === paymentId).map((item) => item.type as string);
    return { status: payment.status, retry_count: payment.retry_count, retries: payment.retries.map((retry) => retry.status), events: events.sort() };
  };

  it('is finished by the watchdog under its key, and the redriven job adds nothing', async () => {
    // Prepare: a fault-free twin, and the payment whose attempt's record will be throttled every try.
    const twin = await declinedRetry();
    advanceClock(twin.dueIn);
    await runDueJobs();
    await drainEvents();
    const faultFree = await history(twin.tenant, twin.paymentId);
    const subject = await declinedRetry();
    advanceClock(subject.dueIn);

    // Act: the job charges and fails to record, three tries (Lambda's), then goes to the dead letters;
    // the watchdog fires 15 minutes on; an operator redrives the dead letters after.
    const spy = throttle('payment.retry_failed');
    const tries = [];
    for (const wait of [0, 60, 120]) {
      advanceClock(wait);
      tries.push(...(await runDueJobs()).filter((run) => run.job_id === `retry-${subject.paymentId}-1`).map((run) => run.outcome));
    }
    spy.mockRestore();
    const dead = (await localRuntime().scheduler.deadLetters()).map((job) => job.jobId);
    advanceClock(16 * 60);
    await runDueJobs();
    await localRuntime().scheduler.redrive(runtime.clock.now());
    await runDueJobs();
    await drainEvents();

    // Assess: one attempt, declined once, the next one scheduled once: the fault-free twin's history.
    expect(tries).toEqual(['failed', 'failed', 'failed']);
    expect(dead).toContain(`retry-${subject.paymentId}-1`);
    expect(await history(subject.tenant, subject.paymentId)).toEqual(faultFree);
    expect(await history(subject.tenant, subject.paymentId)).toMatchObject({ status: 'pending', retry_count: 1, retries: ['failed'] });
  });
});

describe('a dunning step in the dead letters whose payment was paid before the redrive', () => {
  it('stays in the dead letters when the sequence stops, and the redriven step sends nothing', async () => {
    // Prepare: a hard decline; every send fails, so its first step fails Lambda's three tries.
    const { tenant, path } = await merchantWithCampaign();
    const failure = genericFailure({ code: 'expired_card' });
    const paymentId = (await postGeneric(path, failure)).body.payment_id as string;
    await drainEvents();
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    const stepJob = `step-${enrollment!.id}-0`;
    localRuntime().faults.set({ seed: 1, rate: 1 });
    const tries = [];
    for (const wait of [3600, 60, 120]) {
      advanceClock(wait);
      tries.push(...(await runDueJobs()).filter((run) => run.job_id === stepJob).map((run) => run.outcome));
    }
    localRuntime().faults.set({ seed: 1, rate: 0 });

    // Act: the customer pays, which stops the sequence (and cancels its step); then an operator redrives.
    expect((await postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded', created: nowSeconds() })).status).toBe(200);
    await drainEvents();
    const deadAfterPayment = (await localRuntime().scheduler.deadLetters()).map((job) => job.jobId);
    await localRuntime().scheduler.redrive(runtime.clock.now());
    const redriven = (await runDueJobs()).filter((run) => run.job_id === stepJob).map((run) => run.outcome);

    // Assess: as in AWS, deleting the schedule left the dead letter; redriven, the step found its sequence stopped.
    expect(tries).toEqual(['failed', 'failed', 'failed']);
    expect(deadAfterPayment).toContain(stepJob);
    expect(redriven).toEqual(['succeeded']);
    expect(localRuntime().outbox.entries().filter((entry) => entry.to === failure.customer.email)).toEqual([]);
    expect((await findPayment(tenant, paymentId))?.status).toBe('recovered');
    expect(await localRuntime().scheduler.deadLetters()).toEqual([]);
  });
});
