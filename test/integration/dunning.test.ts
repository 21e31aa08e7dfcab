import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { campaignSweepJobId, sweepCampaign, type CampaignSweepJob } from '../../shared/domain/campaigns/campaign-sweeps.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { requestCounter } from '../support/dynamodb-requests.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { scheduler } from '../../shared/composition/scheduler.ts';
import { tenantConfiguration } from '../../shared/events/tenant-configuration.ts';

const EMAIL_STEPS = [
  { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
  { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Second reminder', delay_hours: 24 },
  { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
];

async function setUp(campaign: Record<string, unknown> = {}) {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const created = await call('POST', '/v1/campaigns', {
    key: merchant.keys.test_write,
    body: { name: 'Card problems', trigger: 'payment_failed', steps: EMAIL_STEPS, ...campaign },
  });
  expect(created.status).toBe(201);
  const campaignId: string = created.body.data.id;
  expect((await call('POST', `/v1/campaigns/${campaignId}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
  return { ...merchant, tenant, path, campaignId };
}

const outboxFor = (email: string) => localRuntime().outbox.entries().filter((entry) => entry.to === email);

async function failHard(path: string, email: string, extra: Record<string, unknown> = {}) {
  const response = await postGeneric(path, genericFailure({ code: 'expired_card', email, ...extra }));
  expect(response.status).toBe(200);
  await drainEvents();
  return response.body.payment_id as string;
}

/** Advances the clock in steps, firing what comes due, as the scheduler would. */
async function passHours(hours: number) {
  for (let i = 0; i < hours; i++) {
    advanceClock(3600);
    await runDueJobs();
    await drainEvents();
  }
}

/** The failure enrolled, its first step sent, then paid at the processor; the rest of the sequence's time passed. */
async function paidAfterFirstStep(path: string, failure: ReturnType<typeof genericFailure>) {
  await postGeneric(path, failure);
  await drainEvents();
  await passHours(1);
  await postGeneric(path, { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', created: nowSeconds() });
  await drainEvents();
  await passHours(80);
}

describe('dunning engine', () => {
  it('enrolls a hard decline, sends each step on time, and counts it on the campaign', async () => {
    // Prepare
    const { tenant, path, campaignId, keys } = await setUp();
    const email = `dun-${Date.now()}@example.com`;
    // Act
    await failHard(path, email);
    // Assess
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollment).toMatchObject({ campaign_id: campaignId, status: 'active', next_step: 0, campaign_version: 1 });
    await passHours(1);
    expect(outboxFor(email).map((m) => m.content.subject)).toEqual(['Action needed']);
    await passHours(24);
    expect(outboxFor(email).map((m) => m.content.subject)).toEqual(['Action needed', 'Second reminder']);
    await passHours(48);
    expect(outboxFor(email).map((m) => m.content.subject)).toEqual(['Action needed', 'Second reminder', 'Last reminder']);
    const [done] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(done).toMatchObject({ status: 'completed', messages_sent: 3 });
    const stats = (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    expect(stats).toMatchObject({ enrolled_count: 1 });
    expect(stats.stats).toMatchObject({ enrolled_count: 1, active_count: 0 });
    expect((await tenantItems(tenant, 'EVENT#')).filter((e) => e.type === 'campaign.message_sent')).toHaveLength(3);
    // The ended enrollment is counted by how it ended, which the enrollment list's totals read.
    const [counters] = (await tenantItems(tenant, 'CAMPAIGN#')).filter((item) => item.entity === 'campaign');
    expect(counters).toMatchObject({ enrolled_count: 1, active_count: 0, completed_count: 1, stopped_count: 0, removed_count: 0 });
    const completed = await call('GET', `/v1/campaigns/${campaignId}/enrollments`, { key: keys.test_read, query: { status: 'completed' } });
    expect(completed.body.pagination.total).toBe(1);
    expect(completed.body.data.map((listed: { status: string }) => listed.status)).toEqual(['completed']);
  });

  it('does not enroll soft declines (they are retried silently) unless the campaign asks for them', async () => {
    const { tenant, path } = await setUp();
    await postGeneric(path, genericFailure({ code: 'insufficient_funds' }));
    await drainEvents();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
  });

  it('enrolls a customer at most once per failure and campaign, even when the event is delivered twice', async () => {
    const { tenant, path } = await setUp();
    const event = genericFailure({ code: 'expired_card' });
    await postGeneric(path, event);
    await postGeneric(path, event);
    await drainEvents();
    const { enrollForFailure } = await import('../../shared/domain/dunning/dunning.ts');
    const [payment] = await tenantItems(tenant, 'PAYMENT#');
    await enrollForFailure({ scheduler }, tenantConfiguration(tenant), tenant, payment!.id, 'failure', runtime.clock.now());
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(1);
  });

  it('messages a customer with several failures once per step time, not once per failure; a waiting sequence speaks when the other ends', async () => {
    const { tenant, path } = await setUp();
    const email = `several-${Date.now()}@example.com`;
    const customerId = `cust_several_${Date.now()}`;
    const failures = Array.from({ length: 6 }, () => genericFailure({ code: 'expired_card', email, customerId }));
    for (const failure of failures) expect((await postGeneric(path, failure)).status).toBe(200);
    await drainEvents();
    // Enrolled once per failure, as Stripe dunns each invoice; the first step of all six is due together.
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(6);
    await passHours(1);
    expect(outboxFor(email).map((message) => message.content.subject)).toEqual(['Action needed']);
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollments.filter((enrollment) => enrollment.messages_sent === 1)).toHaveLength(1);
    expect(enrollments.flatMap((enrollment) => (enrollment.skipped_steps ?? []).map((skip: { reason: string }) => skip.reason))).toEqual(Array(5).fill('duplicate'));
    await passHours(24);
    expect(outboxFor(email).map((message) => message.content.subject)).toEqual(['Action needed', 'Second reminder']);
    // The speaking sequence's failure is paid: another failure's sequence, still owed, takes the last step.
    const speaking = (await tenantItems(tenant, 'ENROLLMENT#')).find((enrollment) => enrollment.messages_sent === 2)!;
    const [payment] = await tenantItems(tenant, `PAYMENT#${speaking.payment_id}`);
    const failure = failures.find((candidate) => candidate.payment.id === payment!.psp_payment_id)!;
    await postGeneric(path, { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', created: nowSeconds() });
    await drainEvents();
    await passHours(48);
    expect(outboxFor(email).map((message) => message.content.subject)).toEqual(['Action needed', 'Second reminder', 'Last reminder']);
  });

  it('enrolls one failure into every active campaign whose trigger fires, each counted on its own campaign', async () => {
    const { tenant, path, campaignId, keys } = await setUp();
    const second = await call('POST', '/v1/campaigns', {
      key: keys.test_write,
      body: { name: 'Expired cards', trigger: 'payment_failed', steps: EMAIL_STEPS.slice(0, 1) },
    });
    const secondId: string = second.body.data.id;
    expect((await call('POST', `/v1/campaigns/${secondId}/activate`, { key: keys.test_write })).status).toBe(200);
    const drafted = await call('POST', '/v1/campaigns', { key: keys.test_write, body: { name: 'Not yet', trigger: 'payment_failed', steps: EMAIL_STEPS } });
    const paymentId = await failHard(path, `two-${Date.now()}@example.com`);
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollments.map((enrollment) => enrollment.campaign_id).sort()).toEqual([campaignId, secondId].sort());
    expect(enrollments.every((enrollment) => enrollment.payment_id === paymentId && enrollment.status === 'active')).toBe(true);
    for (const id of [campaignId, secondId]) {
      expect((await call('GET', `/v1/campaigns/${id}`, { key: keys.test_read })).body.data.stats).toMatchObject({ enrolled_count: 1, active_count: 1 });
    }
    expect((await call('GET', `/v1/campaigns/${drafted.body.data.id}`, { key: keys.test_read })).body.data.stats).toMatchObject({ enrolled_count: 0 });
  });

  it('reads no customer when the merchant has no active campaign', async () => {
    const merchant = await newMerchant();
    const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
    const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    await postGeneric(path, genericFailure({ code: 'expired_card' }));
    await drainEvents();
    const [payment] = await tenantItems(tenant, 'PAYMENT#');
    const { enrollForFailure } = await import('../../shared/domain/dunning/dunning.ts');
    const requests = requestCounter(runtime.db);
    try {
      expect(await enrollForFailure({ scheduler }, tenantConfiguration(tenant), tenant, payment!.id, 'failure', runtime.clock.now())).toEqual([]);
      // The payment and the campaign list, read side by side; nothing else.
      expect(requests.count).toBe(2);
    } finally {
      requests.stop();
    }
  });

  it('moves a step due in quiet hours to the end of the window (wrapping midnight)', async () => {
    // A window covering every hour but one: the step can only go out in the hour that is left.
    const hour = (new Date(runtime.clock.now().getTime() + 5 * 3600_000).getUTCHours() + 0) % 24;
    const { tenant, path } = await setUp({ quiet_hours: { enabled: true, start_hour: (hour + 1) % 24, end_hour: hour, timezone: 'UTC' } });
    await failHard(path, `quiet-${Date.now()}@example.com`);
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(new Date(enrollment!.next_step_at).getUTCHours()).toBe(hour);
    expect(new Date(enrollment!.next_step_at).getUTCMinutes()).toBe(0);
  });

  it('stops the sequence when the payment is recovered, and credits the campaign', async () => {
    const { tenant, path, campaignId, keys } = await setUp();
    const email = `rec-${Date.now()}@example.com`;
    await paidAfterFirstStep(path, genericFailure({ code: 'expired_card', email, amount: 4500, currency: 'usd' }));
    expect(outboxFor(email)).toHaveLength(1);
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollment).toMatchObject({ status: 'stopped', stop_reason: 'recovered' });
    const campaign = (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    expect(campaign.stats).toMatchObject({ recovered_count: 1, total_recovered_amount: 4500, currency: 'usd', active_count: 0 });
  });

  it('credits a recovery within 7 days after the last message of a finished sequence, once; not later', async () => {
    const { tenant, path, campaignId, keys } = await setUp({ steps: [EMAIL_STEPS[0]] });
    const stats = async () => (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data.stats;
    const paidLate = genericFailure({ code: 'expired_card', email: `late-${Date.now()}@example.com`, amount: 4500, currency: 'usd' });
    const paidTooLate = genericFailure({ code: 'expired_card', email: `too-late-${Date.now()}@example.com`, amount: 4500, currency: 'usd' });
    for (const failure of [paidLate, paidTooLate]) await postGeneric(path, failure);
    await drainEvents();
    await passHours(2);
    expect((await tenantItems(tenant, 'ENROLLMENT#')).map((enrollment) => enrollment.status)).toEqual(['completed', 'completed']);
    // Three days after the only message: the campaign gets the credit, the sequence stays completed.
    advanceClock(3 * 86400);
    const paid = { ...paidLate, id: `${paidLate.id}_ok`, type: 'payment.succeeded', created: nowSeconds() };
    await postGeneric(path, paid);
    await drainEvents();
    expect(await stats()).toMatchObject({ recovered_count: 1, total_recovered_amount: 4500, active_count: 0 });
    const credited = (await call('GET', `/v1/campaigns/${campaignId}/enrollments`, { key: keys.test_read })).body.data.find(
      (enrollment: { recovered_at: string | null }) => enrollment.recovered_at !== null,
    );
    expect(credited).toMatchObject({ status: 'completed', stop_reason: null, recovered_at: expect.any(String) });
    // The recovery's event handled again (a redelivery) credits nothing more.
    const { settleEnrollments } = await import('../../shared/domain/dunning/dunning.ts');
    const [payment] = (await tenantItems(tenant, 'PAYMENT#')).filter((item) => item.status === 'recovered');
    await settleEnrollments({ scheduler }, tenant, payment as never, runtime.clock.now());
    expect((await stats()).recovered_count).toBe(1);
    // Eight days after: no longer the campaign's.
    advanceClock(5 * 86400);
    await postGeneric(path, { ...paidTooLate, id: `${paidTooLate.id}_ok`, type: 'payment.succeeded', created: nowSeconds() });
    await drainEvents();
    expect((await stats()).recovered_count).toBe(1);
  });

  it('credits a recovery while the sequence runs on when the campaign does not stop on recovery', async () => {
    const { tenant, path, campaignId, keys } = await setUp({ stop_conditions: { stop_on_recovery: false } });
    const email = `keeps-going-${Date.now()}@example.com`;
    await paidAfterFirstStep(path, genericFailure({ code: 'expired_card', email, amount: 1200, currency: 'usd' }));
    expect(outboxFor(email)).toHaveLength(3);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'completed', recovered_at: expect.any(String) });
    const campaign = (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    expect(campaign.stats).toMatchObject({ recovered_count: 1, total_recovered_amount: 1200, active_count: 0 });
  });

  it('moves a sequence stopped by a terminal outcome to recovered when the processor reports the payment paid after all', async () => {
    const { tenant, path, campaignId, keys } = await setUp();
    const failure = genericFailure({ code: 'expired_card', email: `undone-${Date.now()}@example.com`, amount: 1300, currency: 'usd', lastFour: '9979' });
    const { body } = await postGeneric(path, failure);
    await drainEvents();
    expect((await call('POST', `/v1/payments/${body.payment_id}/retry`, { key: keys.test_write })).status).toBe(200);
    await runDueJobs();
    await drainEvents();
    const stats = async () => (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data.stats;
    expect(await stats()).toMatchObject({ terminal_count: 1, recovered_count: 0 });
    const paid = { ...failure, id: `${failure.id}_ok`, type: 'payment.succeeded', created: nowSeconds() };
    await postGeneric(path, paid);
    await drainEvents();
    await postGeneric(path, { ...paid, id: `${paid.id}_again` });
    await drainEvents();
    expect(await stats()).toMatchObject({ terminal_count: 0, recovered_count: 1, total_recovered_amount: 1300 });
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'stopped', stop_reason: 'recovered', recovered_at: expect.any(String) });
  });

  it('credits a recovery once even when the enrollment it was read as has changed since (a step went out meanwhile)', async () => {
    const { tenant, path, campaignId, keys } = await setUp({ stop_conditions: { stop_on_recovery: false } });
    const paymentId = await failHard(path, `stale-${Date.now()}@example.com`, { amount: 700, currency: 'usd' });
    const [asRead] = await tenantItems(tenant, 'ENROLLMENT#');
    await passHours(1);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]!.version).toBeGreaterThan(asRead!.version);
    const { creditRecovery } = await import('../../shared/domain/dunning/dunning.ts');
    const { enrollmentFromItem } = await import('../../shared/store/enrollments.ts');
    const paid = { id: paymentId, amount: 700, currency: 'usd', recovered_at: runtime.clock.now().toISOString() };
    await creditRecovery({ scheduler }, tenant, enrollmentFromItem(asRead!), paid, runtime.clock.now());
    await creditRecovery({ scheduler }, tenant, enrollmentFromItem(asRead!), paid, runtime.clock.now());
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'active', recovered_at: expect.any(String), messages_sent: 1 });
    const campaign = (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    expect(campaign.stats).toMatchObject({ recovered_count: 1, total_recovered_amount: 700 });
  });

  it('stops when the subscription the failure was for ends: nobody is asked to keep a subscription they canceled', async () => {
    const { tenant, path } = await setUp();
    const email = `churned-${Date.now()}@example.com`;
    const failure = genericFailure({ code: 'expired_card', email });
    expect((await postGeneric(path, failure)).status).toBe(200);
    await drainEvents();
    await passHours(1);
    expect(outboxFor(email)).toHaveLength(1);
    const cancel = { id: `${failure.id}_cancel`, type: 'subscription.canceled', created: nowSeconds(), customer: failure.customer, subscription: { ...failure.subscription, status: 'canceled' } };
    expect((await postGeneric(path, cancel)).status).toBe(200);
    await drainEvents();
    await passHours(80);
    expect(outboxFor(email)).toHaveLength(1);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ status: 'stopped', stop_reason: 'subscription_ended', messages_sent: 1 })]);
  });

  it('stops when the customer updates their card', async () => {
    const { tenant, path } = await setUp();
    const email = `card-${Date.now()}@example.com`;
    const failure = genericFailure({ code: 'expired_card', email });
    await postGeneric(path, failure);
    await drainEvents();
    await postGeneric(path, {
      id: `${failure.id}_pm`,
      type: 'payment_method.updated',
      created: nowSeconds(),
      customer: failure.customer,
      payment_method: { type: 'card', brand: 'visa', last_four: '1111', exp_month: 1, exp_year: 2031 },
    });
    await passHours(2);
    expect(outboxFor(email)).toHaveLength(0);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'stopped', stop_reason: 'card_updated' });
  });

  it('stops after max_attempts messages', async () => {
    const { tenant, path } = await setUp({ stop_conditions: { max_attempts: 1 } });
    const email = `max-${Date.now()}@example.com`;
    await failHard(path, email);
    await passHours(80);
    expect(outboxFor(email)).toHaveLength(1);
    // Steps were left: the sequence stopped on its cap, and says so.
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'stopped', stop_reason: 'max_attempts', messages_sent: 1 });
    const [campaign] = (await tenantItems(tenant, 'CAMPAIGN#')).filter((item) => item.entity === 'campaign');
    expect(campaign).toMatchObject({ active_count: 0, stopped_count: 1 });
  });

  it('keeps an enrolled customer on the steps they joined with after the campaign is updated', async () => {
    const { path, campaignId, keys } = await setUp();
    const email = `ver-${Date.now()}@example.com`;
    await failHard(path, email);
    const update = await call('PUT', `/v1/campaigns/${campaignId}`, {
      key: keys.test_write,
      body: { steps: [{ channel: 'email', template_id: 'tpl_payment_failed', subject: 'NEW STEP', delay_hours: 1 }] },
    });
    expect(update.status).toBe(200);
    await passHours(80);
    expect(outboxFor(email).map((m) => m.content.subject)).toEqual(['Action needed', 'Second reminder', 'Last reminder']);
  });
});

describe('campaign status and enrollments', () => {
  it('holds due steps while paused and releases them on activation', async () => {
    const { tenant, path, campaignId, keys } = await setUp();
    const email = `pause-${Date.now()}@example.com`;
    await failHard(path, email);
    expect((await call('POST', `/v1/campaigns/${campaignId}/pause`, { key: keys.test_write })).status).toBe(200);
    await passHours(3);
    expect(outboxFor(email)).toHaveLength(0);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'active', held: true });
    expect((await call('POST', `/v1/campaigns/${campaignId}/activate`, { key: keys.test_write })).status).toBe(200);
    // The activation's sweep releases the held step: the event log queues it, the job reschedules the step now.
    await drainEvents();
    await runDueJobs();
    expect(outboxFor(email).map((m) => m.content.subject)).toEqual(['Action needed']);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'active', held: false, messages_sent: 1 });
  });

  it('removes enrollments when the campaign is archived; nothing more is sent', async () => {
    const { tenant, path, campaignId, keys } = await setUp();
    const email = `arch-${Date.now()}@example.com`;
    await failHard(path, email);
    expect((await call('POST', `/v1/campaigns/${campaignId}/archive`, { key: keys.test_write })).status).toBe(200);
    await passHours(80);
    expect(outboxFor(email)).toHaveLength(0);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'removed', stop_reason: 'archived' });
    const campaign = (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    expect(campaign.stats.active_count).toBe(0);
  });

  it('enrolls by hand through POST /v1/campaigns/{id}/enrollments (the manual trigger)', async () => {
    const { tenant, path, keys } = await setUp();
    const manual = await call('POST', '/v1/campaigns', {
      key: keys.test_write,
      body: { name: 'Hand-picked', trigger: 'manual', steps: [{ channel: 'email', template_id: 'tpl_contact_merchant', subject: 'Hello', delay_hours: 0 }] },
    });
    await call('POST', `/v1/campaigns/${manual.body.data.id}/activate`, { key: keys.test_write });
    const paymentId = await failHard(path, `man-${Date.now()}@example.com`);
    const [payment] = await tenantItems(tenant, `PAYMENT#${paymentId}`);
    const enrolled = await call('POST', `/v1/campaigns/${manual.body.data.id}/enrollments`, {
      key: keys.test_write,
      body: { customer_id: payment!.customer_id, payment_id: paymentId },
    });
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.data).toMatchObject({ campaign_id: manual.body.data.id, status: 'active', payment_id: paymentId, messages_sent: 0, skipped_steps: [] });
    const again = await call('POST', `/v1/campaigns/${manual.body.data.id}/enrollments`, {
      key: keys.test_write,
      body: { customer_id: payment!.customer_id, payment_id: paymentId },
    });
    expect(again.status).toBe(409);
  });

  it('refuses to enroll a settled failure by hand (409), and answers 401 for the other environment\'s campaign or customer', async () => {
    const { tenant, path, keys, campaignId } = await setUp();
    const paymentId = await failHard(path, `settled-${Date.now()}@example.com`, { lastFour: '4242' });
    const [payment] = await tenantItems(tenant, `PAYMENT#${paymentId}`);
    expect((await call('POST', `/v1/payments/${paymentId}/retry`, { key: keys.test_write })).status).toBe(200);
    await runDueJobs();
    expect((await tenantItems(tenant, `PAYMENT#${paymentId}`))[0]).toMatchObject({ status: 'recovered' });
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    const settled = await call('POST', `/v1/campaigns/${campaignId}/enrollments`, { key: keys.test_write, body: { customer_id: payment!.customer_id, payment_id: paymentId } });
    expect(settled.status).toBe(409);
    expect(settled.body.error).toMatchObject({ code: 'state_conflict', message: expect.stringContaining(`Payment '${paymentId}' is recovered`) });
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual(enrollments);
    // The same ids with a live key: they exist, in test mode (§5 rule 1).
    const liveCampaign = await call('POST', `/v1/campaigns/${campaignId}/enrollments`, { key: keys.live_admin, body: { customer_id: payment!.customer_id } });
    expect(liveCampaign.status).toBe(401);
    expect(liveCampaign.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('exists in test mode') });
    const live = await call('POST', '/v1/campaigns', {
      key: keys.live_admin,
      body: { name: 'Live', trigger: 'manual', steps: [{ channel: 'email', template_id: 'tpl_payment_failed', subject: 'Hi', delay_hours: 0 }] },
    });
    await call('POST', `/v1/campaigns/${live.body.data.id}/activate`, { key: keys.live_admin });
    const testCustomer = await call('POST', `/v1/campaigns/${live.body.data.id}/enrollments`, { key: keys.live_admin, body: { customer_id: payment!.customer_id } });
    expect(testCustomer.status).toBe(401);
    expect(testCustomer.body.error.message).toContain(`No such customer: '${payment!.customer_id}'`);
  });
});

describe('campaign sweeps (archive and re-activation in the background)', () => {
  const sweepJobs = async () => (await localRuntime().scheduler.due(runtime.clock.now())).filter((job) => job.kind === 'campaign-sweep');

  it('removes every enrollment of an archived campaign, a page at a time, continuing in a follow-up job', async () => {
    // Prepare: five customers enrolled.
    const { tenant, path, campaignId, keys } = await setUp();
    for (let i = 0; i < 5; i++) await failHard(path, `sweep-${i}-${Date.now()}@example.com`);
    expect((await tenantItems(tenant, 'ENROLLMENT#')).filter((enrollment) => enrollment.status === 'active')).toHaveLength(5);
    // Act: archive; the event log queues the sweep, whose first job is run here with a page of two and no time left.
    expect((await call('POST', `/v1/campaigns/${campaignId}/archive`, { key: keys.test_write })).status).toBe(200);
    await drainEvents();
    const [queued] = await sweepJobs();
    const job = queued!.payload as unknown as CampaignSweepJob;
    expect(job).toMatchObject({ campaign_id: campaignId, action: 'remove', part: 0, cursor: null });
    await localRuntime().scheduler.cancel(queued!.jobId);
    const first = await sweepCampaign({ scheduler }, tenant, job, runtime.clock.now(), { pageSize: 2, budgetMs: 0 });
    // Assess: two removed, the rest left to the follow-up job, which the scheduler then runs.
    expect(first).toEqual({ changed: 2, superseded: false, continued: true });
    const [next] = await sweepJobs();
    expect(next).toMatchObject({ jobId: campaignSweepJobId(job.event_id, 1), payload: { part: 1, cursor: expect.any(Object) } });
    const runs = (await runDueJobs()).filter((run) => run.kind === 'campaign-sweep');
    expect(runs.map((run) => run.outcome)).toEqual(['succeeded']);
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollments.map((enrollment) => [enrollment.status, enrollment.stop_reason])).toEqual(Array.from({ length: 5 }, () => ['removed', 'archived']));
    const [counters] = (await tenantItems(tenant, 'CAMPAIGN#')).filter((item) => item.entity === 'campaign');
    expect(counters).toMatchObject({ enrolled_count: 5, active_count: 0, removed_count: 5 });
    // A sweep run again (a redelivered event) finds nothing left to change.
    expect(await sweepCampaign({ scheduler }, tenant, job, runtime.clock.now())).toEqual({ changed: 0, superseded: false, continued: false });
  });

  it('releases held steps only while the campaign is active: paused again first, they wait for the next activation', async () => {
    const { tenant, path, campaignId, keys } = await setUp();
    const email = `resweep-${Date.now()}@example.com`;
    await failHard(path, email);
    const status = (action: string) => call('POST', `/v1/campaigns/${campaignId}/${action}`, { key: keys.test_write });
    expect((await status('pause')).status).toBe(200);
    await passHours(3);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ held: true });
    // Activated and paused again before the sweep ran: the sweep finds the campaign paused and leaves the step held.
    expect((await status('activate')).status).toBe(200);
    expect((await status('pause')).status).toBe(200);
    await drainEvents();
    expect((await runDueJobs()).filter((run) => run.kind === 'campaign-sweep').map((run) => run.outcome)).toEqual(['succeeded']);
    expect(outboxFor(email)).toEqual([]);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'active', held: true });
    // The next activation's sweep releases it.
    expect((await status('activate')).status).toBe(200);
    await drainEvents();
    await runDueJobs();
    expect(outboxFor(email).map((message) => message.content.subject)).toEqual(['Action needed']);
  });

  it('queues no sweep for a change that needs none (a draft activated, an active campaign paused)', async () => {
    const { campaignId, keys } = await setUp();
    expect((await call('POST', `/v1/campaigns/${campaignId}/pause`, { key: keys.test_write })).status).toBe(200);
    await drainEvents();
    expect((await sweepJobs()).filter((job) => job.payload.campaign_id === campaignId)).toEqual([]);
  });
});

describe('retries handing over to dunning', () => {
  it('enrolls a payment whose retry came back with a hard decline', async () => {
    const { tenant, path, campaignId } = await setUp();
    const response = await postGeneric(path, genericFailure({ code: 'processing_error', lastFour: '0069', email: `handover-${Date.now()}@example.com` }));
    await drainEvents();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
    const [payment] = await tenantItems(tenant, `PAYMENT#${response.body.payment_id}`);
    advanceClock((new Date(payment!.next_retry_at).getTime() - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    await drainEvents();
    expect((await tenantItems(tenant, `PAYMENT#${response.body.payment_id}`))[0]).toMatchObject({ status: 'communication_pending', decline_category: 'hard_customer' });
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ campaign_id: campaignId, status: 'active' })]);
  });

  it('enrolls exhausted soft declines into soft_decline campaigns', async () => {
    const { tenant, path, keys } = await setUp();
    const soft = await call('POST', '/v1/campaigns', {
      key: keys.test_write,
      body: { name: 'Balance', trigger: 'soft_decline', steps: [{ channel: 'email', template_id: 'tpl_add_funds', subject: 'Top up', delay_hours: 0 }] },
    });
    await call('POST', `/v1/campaigns/${soft.body.data.id}/activate`, { key: keys.test_write });
    // Rate Limit at intake (2 retries); the sandbox's insufficient_funds re-declines make it Balance (4 retries).
    const response = await postGeneric(path, genericFailure({ code: 'rate_limited', lastFour: '9995' }));
    for (let attempt = 0; attempt < 5; attempt++) {
      const [payment] = await tenantItems(tenant, `PAYMENT#${response.body.payment_id}`);
      if (payment!.next_retry_at === null) break;
      advanceClock((new Date(payment!.next_retry_at).getTime() - runtime.clock.now().getTime()) / 1000 + 1);
      await runDueJobs();
      await drainEvents();
    }
    expect((await tenantItems(tenant, `PAYMENT#${response.body.payment_id}`))[0]).toMatchObject({
      status: 'communication_pending',
      decline_category: 'soft_retry',
      decline_subcategory: 'Balance',
      retry_count: 4,
      max_retries: 4,
    });
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ campaign_id: soft.body.data.id })]);
  });
});

describe('a retry the processor will not make', () => {
  /** A soft decline with a soft_decline campaign active beside the payment_failed one; its first retry runs on the sandbox card given. */
  async function retriedOnce(lastFour: string) {
    const merchant = await setUp();
    const soft = await call('POST', '/v1/campaigns', {
      key: merchant.keys.test_write,
      body: { name: 'Balance', trigger: 'soft_decline', steps: [{ channel: 'email', template_id: 'tpl_add_funds', subject: 'Top up', delay_hours: 0 }] },
    });
    await call('POST', `/v1/campaigns/${soft.body.data.id}/activate`, { key: merchant.keys.test_write });
    const response = await postGeneric(merchant.path, genericFailure({ code: 'insufficient_funds', lastFour }));
    const paymentId: string = response.body.payment_id;
    const [payment] = await tenantItems(merchant.tenant, `PAYMENT#${paymentId}`);
    advanceClock((new Date(payment!.next_retry_at).getTime() - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    await drainEvents();
    const [after] = await tenantItems(merchant.tenant, `PAYMENT#${paymentId}`);
    const events = (await tenantItems(merchant.tenant, 'EVENT#')).filter((event) => event.data?.id === paymentId).map((event) => event.type);
    return { ...merchant, softCampaignId: soft.body.data.id as string, payment: after!, events };
  }

  it('asks the customer when only they can make the charge possible (no payment method): soft_decline dunning starts', async () => {
    const { tenant, payment, events, softCampaignId } = await retriedOnce('0402');
    expect(payment).toMatchObject({ status: 'communication_pending', retry_count: 0, next_retry_at: null, retries: [] });
    expect(events).toContain('payment.retry_failed');
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ campaign_id: softCampaignId, status: 'active' })]);
  });

  it('stops retrying without asking the customer when the merchant has to act', async () => {
    const { tenant, payment, events } = await retriedOnce('0401');
    expect(payment).toMatchObject({ status: 'communication_pending', retry_count: 0, next_retry_at: null });
    expect(events).not.toContain('payment.retry_failed');
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
  });

  it('ends recovery and the dunning the failure started when nothing is left to collect (a voided invoice)', async () => {
    // A hard decline enrolled at intake, then the merchant voids the invoice: the next manual retry finds nothing to pay.
    const { tenant, path, keys, campaignId } = await setUp();
    const email = `voided-${Date.now()}@example.com`;
    const paymentId = await failHard(path, email, { lastFour: '0410' });
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ campaign_id: campaignId, status: 'active' })]);
    expect((await call('POST', `/v1/payments/${paymentId}/retry`, { key: keys.test_write })).status).toBe(200);
    await runDueJobs();
    await drainEvents();
    const [payment] = await tenantItems(tenant, `PAYMENT#${paymentId}`);
    expect(payment).toMatchObject({ status: 'terminal', retry_count: 0, next_retry_at: null, retries: [] });
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ failed_payments: 0, terminal_payments: 1 });
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ campaign_id: campaignId, status: 'stopped', stop_reason: 'terminal' })]);
    await passHours(2);
    expect(outboxFor(email)).toEqual([]);
  });
});

describe('enrollment decided as the failure left the payment', () => {
  it('never enrolls a terminal decline, whatever the campaign would take', async () => {
    const { tenant, path } = await setUp();
    const email = `terminal-${Date.now()}@example.com`;
    const response = await postGeneric(path, genericFailure({ code: 'stolen_card', email }));
    expect(response.status).toBe(200);
    await drainEvents();
    expect(await tenantItems(tenant, `PAYMENT#${response.body.payment_id}`)).toEqual([expect.objectContaining({ status: 'terminal' })]);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
    await passHours(2);
    expect(outboxFor(email)).toEqual([]);
  });
});

describe('erasure of an enrolled customer', () => {
  it('deletes their enrollments (they hold the card on file) along with the rest', async () => {
    const { tenant, path, keys } = await setUp();
    const paymentId = await failHard(path, `erase-${Date.now()}@example.com`);
    const [payment] = await tenantItems(tenant, `PAYMENT#${paymentId}`);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(1);
    const erased = await call('DELETE', `/v1/customers/${payment!.customer_id}`, { key: keys.test_admin });
    expect(erased.status).toBe(200);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
  });

  it("moves the campaign's counts with the deleted enrollment: stats and list totals match what is left, through an archive", async () => {
    const { tenant, path, keys, campaignId } = await setUp();
    const tag = Date.now();
    const paymentIds = [];
    for (let i = 0; i < 3; i++) paymentIds.push(await failHard(path, `counted-${tag}-${i}@example.com`));
    const [first] = await tenantItems(tenant, `PAYMENT#${paymentIds[0]}`);
    const campaign = async () => (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    const listed = async (query: Record<string, string> = {}) => {
      const response = await call('GET', `/v1/campaigns/${campaignId}/enrollments`, { key: keys.test_read, query: { per_page: '100', ...query } });
      expect(response.body.data).toHaveLength(response.body.pagination.total);
      return response.body.pagination.total;
    };
    expect((await campaign()).stats).toMatchObject({ enrolled_count: 3, active_count: 3 });

    expect((await call('DELETE', `/v1/customers/${first!.customer_id}`, { key: keys.test_admin })).status).toBe(200);
    // Enrolled stays what happened; what is running and what the lists show lose the erased one.
    expect((await campaign()).stats).toMatchObject({ enrolled_count: 3, active_count: 2 });
    expect(await listed()).toBe(2);
    expect(await listed({ status: 'active' })).toBe(2);

    expect((await call('POST', `/v1/campaigns/${campaignId}/archive`, { key: keys.test_write })).status).toBe(200);
    await passHours(1);
    expect((await campaign()).stats).toMatchObject({ enrolled_count: 3, active_count: 0 });
    expect(await listed()).toBe(2);
    expect(await listed({ status: 'removed' })).toBe(2);
    expect(await listed({ status: 'active' })).toBe(0);
  });
});
