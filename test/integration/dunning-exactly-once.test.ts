import { afterEach, describe, expect, it, vi } from 'vitest';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { advanceClock, drainEvents, runDueJobs } from '../support/api.ts';
import { merchantWithCampaign } from '../support/dunning-merchants.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { genericFailure, postGeneric } from '../support/webhooks.ts';

/**
 * A dunning step whose record fails after its message went out (docs/faults.md): the job runs
 * again, and the customer still gets the message once, recorded once.
 */
const recordsStep = (command: unknown): boolean =>
  command instanceof TransactWriteCommand && JSON.stringify(command.input.TransactItems).includes('"campaign.message_sent"');

/** The record of the step fails: applied with its answer lost (`lost`), or not applied (`refused`), past the SDK's own tries. */
function failRecordOnce(how: 'lost' | 'refused') {
  const send = runtime.db.send.bind(runtime.db);
  let failed = false;
  return vi.spyOn(runtime.db, 'send').mockImplementation((async (command: any, ...rest: any[]) => {
    if (failed || !recordsStep(command)) return send(command, ...rest);
    failed = true;
    if (how === 'lost') await send(command, ...rest);
    throw Object.assign(new Error(how === 'lost' ? 'socket hang up' : 'Rate of requests exceeds the allowed throughput'), {
      name: how === 'lost' ? 'TimeoutError' : 'ThrottlingException',
    });
  }) as any);
}

async function enrolledCustomer() {
  const { tenant, path } = await merchantWithCampaign();
  const failure = genericFailure({ code: 'expired_card' });
  expect((await postGeneric(path, failure)).status).toBe(200);
  await drainEvents();
  return { tenant, email: failure.customer.email };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a dunning step whose record fails after the send', () => {
  it.each(['lost', 'refused'] as const)('sends the message once and records it once when the record was %s', async (how) => {
    // Prepare: one enrollment, its only step due in an hour; its record will fail once.
    const { tenant, email } = await enrolledCustomer();
    const spy = failRecordOnce(how);

    // Act: the step runs and fails on its record; a minute later (Lambda's retry) it runs again.
    advanceClock(3600);
    const first = (await runDueJobs()).filter((run) => run.kind === 'campaign-step');
    spy.mockRestore();
    advanceClock(60);
    const second = (await runDueJobs()).filter((run) => run.kind === 'campaign-step');
    await drainEvents();

    // Assess: the first run failed, the second finished; one message out, one recorded, on the enrollment and in the events.
    expect(first.map((run) => run.outcome)).toEqual(['failed']);
    expect(second.map((run) => run.outcome)).toEqual(['succeeded']);
    const sent = localRuntime().outbox.entries().filter((entry) => entry.to === email);
    expect(sent.map((entry) => entry.content.subject)).toEqual(['Action needed']);
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollments.map((item) => [item.messages_sent, item.status, item.sending_step])).toEqual([[1, 'completed', null]]);
    const events = await tenantItems(tenant, 'EVENT#');
    expect(events.filter((item) => item.type === 'campaign.message_sent')).toHaveLength(1);
  });
});

describe('a failure whose event is handled after the customer changed their card', () => {
  it('enrolls watching the card that failed, so the sequence stops as card_updated before its first message', async () => {
    // Prepare: a failure on one card, then another failure of the same customer on a new card, both before the stream hands on the first.
    const { tenant, path } = await merchantWithCampaign();
    const first = genericFailure({ code: 'expired_card', lastFour: '0341' });
    const second = { ...genericFailure({ code: 'insufficient_funds', customerId: first.customer.id, email: first.customer.email, lastFour: '4242' }), customer: first.customer };
    expect((await postGeneric(path, first)).status).toBe(200);
    expect((await postGeneric(path, second)).status).toBe(200);

    // Act: the events are handled now (late for the first), and the step comes due.
    await drainEvents();
    advanceClock(3600);
    await runDueJobs();

    // Assess: the first failure's sequence noticed the update and sent nothing.
    const enrollments = await tenantItems(tenant, `ENROLLMENT#`);
    const firstPayment = (await tenantItems(tenant, 'PAYMENT#')).find((item) => item.psp_payment_id === first.payment.id);
    const sequence = enrollments.find((item) => item.payment_id === firstPayment?.id);
    expect([sequence?.status, sequence?.stop_reason, sequence?.messages_sent]).toEqual(['stopped', 'card_updated', 0]);
  });
});
