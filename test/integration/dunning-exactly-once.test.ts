import { afterEach, describe, expect, it, vi } from 'vitest';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { advanceClock, drainEvents, runDueJobs } from '../support/api.ts';
import { merchantWithCampaign } from '../support/dunning-merchants.ts';
import { resendAfterLostAnswer } from '../support/lost-answers.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { openUpdatePage } from '../../shared/domain/card-updates/update-links.ts';
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

/** What a step's run sends to DynamoDB: each request's command, and for a transaction its item count. */
function recordRequests() {
  const sent: { command: string; items?: number; sk?: string }[] = [];
  runtime.db.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: any) => async (args: any) => {
      const pk = String(args.input?.Item?.pk ?? args.input?.Key?.pk);
      if (!pk.startsWith('LOCALJOB')) sent.push({ command: context.commandName, items: args.input?.TransactItems?.length, sk: args.input?.Item?.sk ?? args.input?.Key?.sk });
      return next(args);
    },
    { step: 'initialize', name: 'stepRequests' },
  );
  return { sent, stop: () => runtime.db.middlewareStack.remove('stepRequests') };
}

describe("a dunning step's claim", () => {
  it('is one conditional put of the enrollment, not a one-item transaction, and the step is sent and recorded once', async () => {
    // Prepare: one enrollment, its only step due in an hour.
    const { tenant, email } = await enrolledCustomer();
    const requests = recordRequests();

    // Act
    advanceClock(3600);
    const runs = (await runDueJobs()).filter((run) => run.kind === 'campaign-step');
    requests.stop();

    // Assess: the claim a put; the record one transaction (the enrollment, the campaign's counters, the message's and link's events); one message.
    expect(runs.map((run) => run.outcome)).toEqual(['succeeded']);
    const enrollmentPuts = requests.sent.filter((request) => request.command === 'PutItemCommand' && request.sk?.startsWith('ENROLLMENT#'));
    expect(enrollmentPuts).toHaveLength(1);
    expect(requests.sent.filter((request) => request.command === 'TransactWriteItemsCommand').map((request) => request.items)).toEqual([4]);
    expect(localRuntime().outbox.entries().filter((entry) => entry.to === email)).toHaveLength(1);
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollment).toMatchObject({ messages_sent: 1, status: 'completed', sending_step: null });
  });

  it('holds when its answer was lost and the SDK sent it again: the resent put fails its condition on our own claim', async () => {
    // Prepare: the claim's put is sent twice (its first answer lost), as the SDK's retry would.
    const { tenant, email } = await enrolledCustomer();
    const isClaim = (command: unknown) =>
      command instanceof PutCommand && String(command.input.Item?.sk).startsWith('ENROLLMENT#') && command.input.Item?.sending_step !== null;
    const spy = resendAfterLostAnswer(isClaim);

    // Act
    advanceClock(3600);
    const runs = (await runDueJobs()).filter((run) => run.kind === 'campaign-step');

    // Assess: the resent claim was recognised as ours; the message went out once and was recorded.
    expect(spy.mock.calls.filter(([command]) => isClaim(command))).toHaveLength(1);
    expect(runs.map((run) => run.outcome)).toEqual(['succeeded']);
    expect(localRuntime().outbox.entries().filter((entry) => entry.to === email)).toHaveLength(1);
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollment).toMatchObject({ messages_sent: 1, status: 'completed', sending_step: null });
  });
});

/** A write to a card-update link's own item (not its id index), of the given command type. */
const onLinkItem = (command: unknown): boolean => {
  const item = (command as { input?: { Item?: Record<string, unknown> } }).input?.Item;
  return command instanceof PutCommand && String(item?.pk).startsWith('CARDUPDATE#') && item?.sk === 'LINK';
};

describe('a card-update link whose answer was lost', () => {
  it("is recognised as the step's own link: the message goes out once, carrying it", async () => {
    // Prepare: the link's put is applied and its answer lost; the SDK's resend meets the stored link.
    const { tenant, email } = await enrolledCustomer();
    const spy = resendAfterLostAnswer(onLinkItem);

    // Act
    advanceClock(3600);
    const runs = (await runDueJobs()).filter((run) => run.kind === 'campaign-step');
    spy.mockRestore();
    await drainEvents();

    // Assess: the step finished on its first run, the message carries the stored link, and it opens the page.
    expect(runs.map((run) => run.outcome)).toEqual(['succeeded']);
    const sent = localRuntime().outbox.entries().filter((entry) => entry.to === email);
    expect(sent).toHaveLength(1);
    const token = /\/update\/([A-Za-z0-9_-]{22})/.exec(JSON.stringify(sent[0]!.content))?.[1];
    expect(token).toBeDefined();
    const types = (await tenantItems(tenant, 'EVENT#')).map((event) => event.type);
    expect(types.filter((type) => type === 'card_update.link_sent')).toHaveLength(1);
    const page = await openUpdatePage(token!, '192.0.2.1', runtime.clock.now());
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(page.link.enrollment_id).toBe(enrollment?.enrollment_id ?? enrollment?.id);
  });

  it('counts its first opening once when that answer was lost', async () => {
    // Prepare: a link sent; the transaction recording its opening is applied and its answer lost.
    const { tenant, email } = await enrolledCustomer();
    advanceClock(3600);
    await runDueJobs();
    const [message] = localRuntime().outbox.entries().filter((entry) => entry.to === email);
    const token = /\/update\/([A-Za-z0-9_-]{22})/.exec(JSON.stringify(message!.content))![1]!;
    // The write that marks the link opened, whether alone or in a transaction.
    const opening = (command: unknown) =>
      (command instanceof TransactWriteCommand || command instanceof UpdateCommand) && JSON.stringify(command.input).includes('SET opened_at');
    const spy = resendAfterLostAnswer(opening);

    // Act: the customer opens the page (the answer lost, resent), then opens it again.
    const first = await openUpdatePage(token, '192.0.2.1', runtime.clock.now());
    const resent = spy.mock.calls.filter(([command]) => opening(command)).length;
    spy.mockRestore();
    advanceClock(60);
    await openUpdatePage(token, '192.0.2.1', runtime.clock.now());

    // Assess: the page answered, and the funnel counts one opening.
    expect(resent).toBe(1);
    expect(first.link.link_id).toMatch(/^cul_/);
    const opened = (await tenantItems(tenant, 'EVENT#')).filter((event) => event.type === 'card_update.page_opened');
    expect(opened).toHaveLength(1);
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
