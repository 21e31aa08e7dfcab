import { afterEach, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { stepJobId } from '../../shared/domain/dunning/dunning.ts';
import { JOB_ASYNC_RETRIES } from '../../shared/jobs.ts';
import { advanceClock, drainEvents, runDueJobs } from '../support/api.ts';
import { merchantWithCampaign } from '../support/dunning-merchants.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { genericFailure, postGeneric } from '../support/webhooks.ts';

/**
 * Two failures of one customer in one campaign: the step due first takes the customer's message slot,
 * even when its job failed and Lambda's retry comes after the sibling's step came due
 * (docs/faults.md, "Sibling sequences").
 */

/** Two failures of one customer, 30 s apart: two enrollments in the campaign, their one step due an hour after each. */
async function customerWithTwoFailures() {
  const { tenant, path } = await merchantWithCampaign();
  const first = genericFailure({ code: 'expired_card' });
  const second = { ...genericFailure({ code: 'expired_card', customerId: first.customer.id, email: first.customer.email }), customer: first.customer };
  const earlier = await postGeneric(path, first);
  await drainEvents();
  advanceClock(30);
  const later = await postGeneric(path, second);
  await drainEvents();
  const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
  const of = (paymentId: string) => enrollments.find((item) => item.payment_id === paymentId)!;
  return { tenant, email: first.customer.email, earlier: of(earlier.body.payment_id), later: of(later.body.payment_id) };
}

/** The reads of this enrollment fail, `times` times, as a throttled table past the SDK's tries would: its step's job fails. */
function failReadsOf(paymentId: string, times: number) {
  const send = runtime.db.send.bind(runtime.db);
  let failed = 0;
  vi.spyOn(runtime.db, 'send').mockImplementation((async (command: any, ...rest: any[]) => {
    const read = command instanceof GetCommand && String(command.input.Key?.sk).startsWith('ENROLLMENT#') && String(command.input.Key?.sk).includes(`#${paymentId}#`);
    if (!read || failed >= times) return send(command, ...rest);
    failed += 1;
    throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ThrottlingException' });
  }) as any);
}

const messagedPayments = async (tenant: Parameters<typeof tenantItems>[0]) =>
  (await tenantItems(tenant, 'EVENT#')).filter((item) => item.type === 'campaign.message_sent').map((item) => item.data.payment_id);

/** When the step's job is next due, as the local scheduler holds it. */
async function dueAt(enrollmentId: string): Promise<string | undefined> {
  const due = await localRuntime().scheduler.due(new Date(runtime.clock.now().getTime() + 86_400_000));
  return due.find((job) => job.jobId === stepJobId(enrollmentId, 0))?.runAt;
}

/** Runs each job as it comes due, moving the clock to it, until none is due before `until` (ms). */
async function runJobsUntil(until: number): Promise<void> {
  await runDueJobs();
  for (let [next] = await localRuntime().scheduler.due(new Date(until)); next; [next] = await localRuntime().scheduler.due(new Date(until))) {
    advanceClock(Math.max(0, (Date.parse(next.runAt) - runtime.clock.now().getTime()) / 1000));
    await runDueJobs();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a sibling sequence's step that comes due while the earlier one's job is being retried", () => {
  it('waits for it, so the earlier failure is messaged and the later one skips within the 12 h spacing, as without the fault', async () => {
    // Prepare: the earlier step's job will fail once, as a throttled run does; Lambda runs it again a minute later.
    const { tenant, email, earlier, later } = await customerWithTwoFailures();
    failReadsOf(earlier.payment_id, 1);

    // Act: the earlier step fails; 30 s later the later step is due, before the earlier one's retry.
    advanceClock(3600 - 30);
    const failedRun = await runDueJobs();
    const laterDue = advanceClock(30);
    const laterRun = await runDueJobs();
    const deferredTo = Date.parse((await dueAt(later.id))!);
    const outboxAfterLater = localRuntime().outbox.entries().filter((entry) => entry.to === email).length;

    // Assess: the later step sent nothing and took no slot; it is due again after the earlier one's retry.
    expect(failedRun.filter((run) => run.kind === 'campaign-step').map((run) => [run.job_id, run.outcome])).toEqual([[stepJobId(earlier.id, 0), 'failed']]);
    expect(laterRun.filter((run) => run.kind === 'campaign-step').map((run) => [run.job_id, run.outcome])).toEqual([[stepJobId(later.id, 0), 'succeeded']]);
    expect(outboxAfterLater).toBe(0);
    expect(deferredTo).toBeGreaterThanOrEqual(laterDue.getTime() + 120_000);
    expect(deferredTo).toBeLessThanOrEqual(runtime.clock.now().getTime() + 120_000);
    expect(await tenantItems(tenant, `MESSAGED#`)).toEqual([]);

    // Act: the earlier step's retry, then the later step's deferred run.
    advanceClock(30);
    await runDueJobs();
    advanceClock(90);
    await runDueJobs();
    await drainEvents();

    // Assess: one message, about the earlier failure; the later sequence skipped its step as a duplicate.
    expect(localRuntime().outbox.entries().filter((entry) => entry.to === email)).toHaveLength(1);
    expect(await messagedPayments(tenant)).toEqual([earlier.payment_id]);
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    const stored = (id: string) => enrollments.find((item) => item.id === id)!;
    expect([stored(earlier.id).messages_sent, stored(earlier.id).status]).toEqual([1, 'completed']);
    expect([stored(later.id).messages_sent, stored(later.id).status, stored(later.id).skipped_steps.map((skip: { reason: string }) => skip.reason)]).toEqual([0, 'completed', ['duplicate']]);
    expect(await dueAt(later.id)).toBeUndefined();
  });

  it('waits for it when both steps fire a day late, as after an outage or a day-stepped clock', async () => {
    // Prepare: the earlier step's job will fail once.
    const { tenant, email, earlier, later } = await customerWithTwoFailures();
    failReadsOf(earlier.payment_id, 1);

    // Act: both steps fire in one run a day after their time; the earlier one fails.
    advanceClock(86_400);
    const lateRun = await runDueJobs();
    const deferredTo = await dueAt(later.id);
    advanceClock(60);
    await runDueJobs();
    advanceClock(120);
    await runDueJobs();
    await drainEvents();

    // Assess: the later step waited for the earlier one's retry, however late both were: one message, about the earlier failure.
    expect(lateRun.filter((run) => run.kind === 'campaign-step').map((run) => run.outcome).sort()).toEqual(['failed', 'succeeded']);
    expect(deferredTo).toBeDefined();
    expect(localRuntime().outbox.entries().filter((entry) => entry.to === email)).toHaveLength(1);
    expect(await messagedPayments(tenant)).toEqual([earlier.payment_id]);
  });

  it(`stops waiting ${JOB_ASYNC_RETRIES.maxEventAgeHours} hours on (Lambda's maximum event age) when the earlier step never runs (dead-lettered)`, async () => {
    // Prepare: every try of the earlier step's job fails: after Lambda's three it waits in the dead letters.
    const { tenant, email, earlier, later } = await customerWithTwoFailures();
    failReadsOf(earlier.payment_id, 3);
    const bound = Date.parse(later.next_step_at) + JOB_ASYNC_RETRIES.maxEventAgeHours * 3_600_000;

    // Act: the clock moves to each job as it comes due (Lambda's retries, the later step's looks), to a few minutes short of the bound, then past it.
    advanceClock(3600 - 30);
    await runJobsUntil(bound - 3 * 60_000);
    const sentBeforeBound = localRuntime().outbox.entries().filter((entry) => entry.to === email).length;
    const stillWaiting = await dueAt(later.id);
    await runJobsUntil(bound + 60 * 60_000);
    await drainEvents();

    // Assess: the earlier step is dead-lettered; the later one waited out the bound, then sent about its own failure.
    expect((await localRuntime().scheduler.deadLetters()).map((job) => job.jobId)).toContain(stepJobId(earlier.id, 0));
    expect(sentBeforeBound).toBe(0);
    expect(stillWaiting).toBeDefined();
    expect(localRuntime().outbox.entries().filter((entry) => entry.to === email)).toHaveLength(1);
    expect(await messagedPayments(tenant)).toEqual([later.payment_id]);
    expect(await dueAt(later.id)).toBeUndefined();
  });
});
