import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { scanCalendar } from '../../shared/domain/dunning/calendar-scan.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { scheduler } from '../../shared/composition/scheduler.ts';

const DAY_SECONDS = 86_400;

/** Month `offset` months from the clock's now (UTC), as a card's expiry. */
function monthFromNow(offset: number): { exp_month: number; exp_year: number } {
  const now = runtime.clock.now();
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + offset;
  return { exp_month: (index % 12) + 1, exp_year: Math.floor(index / 12) };
}

const monthName = ({ exp_month, exp_year }: { exp_month: number; exp_year: number }) =>
  new Date(Date.UTC(exp_year, exp_month - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

async function setUp(trigger: string, steps: object[], extra: Record<string, unknown> = {}, activate = true) {
  const merchant = await newMerchant({ name: 'Acme Cloud' });
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const created = await call('POST', '/v1/campaigns', { key: merchant.keys.test_write, body: { name: `${trigger} reminders`, trigger, steps, ...extra } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const campaignId: string = created.body.data.id;
  if (activate) expect((await call('POST', `/v1/campaigns/${campaignId}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
  return { ...merchant, tenant, path, campaignId };
}

/**
 * A customer we know (a failed payment, since recovered: nothing awaiting recovery) with this card
 * and one subscription renewing at `renewsAt`.
 */
async function knownCustomer(path: string, card: { exp_month: number; exp_year: number; last_four?: string }, renewsAt: Date, amount = 2900) {
  const base = genericFailure({ code: 'expired_card', amount, currency: 'usd' });
  const failure = {
    ...base,
    subscription: { ...base.subscription, amount, currency: 'usd', status: 'active', current_period_end: renewsAt.toISOString() },
    payment_method: { type: 'card', brand: 'visa', last_four: card.last_four ?? '4242', exp_month: card.exp_month, exp_year: card.exp_year },
  };
  expect((await postGeneric(path, failure)).status).toBe(200);
  expect((await postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded', created: nowSeconds() })).body.outcome).toBe('updated');
  await drainEvents();
  return failure;
}

/** The customer puts in a new card, valid for years. */
async function newCard(path: string, failure: Awaited<ReturnType<typeof knownCustomer>>) {
  const card = { type: 'card', brand: 'visa', last_four: '1111', exp_month: 1, exp_year: 2031 };
  const response = await postGeneric(path, { id: `${failure.id}_pm`, type: 'payment_method.updated', created: nowSeconds(), customer: failure.customer, payment_method: card });
  expect(response.body.outcome).toBe('updated');
}

const outboxFor = (email: string) => localRuntime().outbox.entries().filter((entry) => entry.to === email);

/** Moves the clock a day on and fires what is due, the daily calendar sweep included. */
async function nextDay(days = 1) {
  for (let i = 0; i < days; i++) {
    advanceClock(DAY_SECONDS);
    await runDueJobs();
    await drainEvents();
  }
}

const EXPIRING_STEPS = [
  { channel: 'email', template_id: 'tpl_card_expiring', subject: 'Your card expires soon', delay_hours: 0 },
  { channel: 'email', template_id: 'tpl_card_expiring', subject: 'Reminder: your card expires soon', delay_hours: 48 },
];

describe('card_expiring', () => {
  it('enrolls a customer whose card expires next month at the next daily scan, sends the steps, and never enrolls the card twice', async () => {
    // Prepare
    const { tenant, path, campaignId, keys } = await setUp('card_expiring', EXPIRING_STEPS);
    const card = monthFromNow(1);
    const failure = await knownCustomer(path, card, new Date(runtime.clock.now().getTime() + 20 * DAY_SECONDS * 1000));
    const email = failure.customer.email;
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
    // Act
    await nextDay();
    // Assess
    const [enrollment] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollment).toMatchObject({
      campaign_id: campaignId,
      payment_id: null,
      status: 'active',
      messages_sent: 1,
      calendar: { trigger: 'card_expiring', key: `card_expiring:${card.exp_year}-${String(card.exp_month).padStart(2, '0')}:visa:4242`, amount: 2900, currency: 'usd' },
    });
    const [first] = outboxFor(email);
    expect(first!.content.subject).toBe('Your card expires soon');
    expect(first!.content.text).toContain(`Your Visa card ending in 4242, which pays for your Acme Cloud subscription ($29.00), expires at the end of ${monthName(card)}.`);
    expect(first!.content.text).not.toContain('could not collect');

    await nextDay();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(1);
    expect(outboxFor(email)).toHaveLength(1);
    await nextDay();
    expect(outboxFor(email).map((message) => message.content.subject)).toEqual(['Your card expires soon', 'Reminder: your card expires soon']);
    expect((await tenantItems(tenant, 'ENROLLMENT#'))[0]).toMatchObject({ status: 'completed', messages_sent: 2 });

    // A scan run again the same day (a retried job) enrolls nobody either.
    const again = await scanCalendar({ scheduler }, tenant, { day: '2026-01-01', part: 0, cursor: null }, runtime.clock.now());
    expect(again).toMatchObject({ campaigns: 1, customers: 1, enrolled: 0, continued: false });
    const campaign = (await call('GET', `/v1/campaigns/${campaignId}`, { key: keys.test_read })).body.data;
    expect(campaign.stats).toMatchObject({ enrolled_count: 1, active_count: 0 });
  });

  it('leaves cards expiring later alone, and stops a sequence when the customer puts in a new card', async () => {
    // Prepare
    const steps = [{ channel: 'email', template_id: 'tpl_card_expiring', subject: 'Card expiring', delay_hours: 24 }];
    const { tenant, path } = await setUp('card_expiring', steps);
    const renewal = new Date(runtime.clock.now().getTime() + 20 * DAY_SECONDS * 1000);
    const expiring = await knownCustomer(path, monthFromNow(1), renewal);
    await knownCustomer(path, monthFromNow(3), renewal);
    // Act
    await nextDay();
    const enrolled = await tenantItems(tenant, 'ENROLLMENT#');
    await newCard(path, expiring);
    await nextDay(2);
    // Assess
    expect(enrolled).toHaveLength(1);
    expect(outboxFor(expiring.customer.email)).toEqual([]);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ status: 'stopped', stop_reason: 'card_updated' })]);
  });

  it('does not enroll a customer who put in a new card before the scan', async () => {
    const { tenant, path } = await setUp('card_expiring', EXPIRING_STEPS);
    const failure = await knownCustomer(path, monthFromNow(1), new Date(runtime.clock.now().getTime() + 20 * DAY_SECONDS * 1000));
    await newCard(path, failure);
    await nextDay();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
    expect(outboxFor(failure.customer.email)).toEqual([]);
  });

  it('enrolls nobody into draft or paused campaigns, and catches up once the campaign is activated', async () => {
    // Prepare
    const { tenant, path, campaignId, keys } = await setUp('card_expiring', EXPIRING_STEPS, {}, false);
    const paused = await call('POST', '/v1/campaigns', { key: keys.test_write, body: { name: 'Paused', trigger: 'card_expiring', steps: EXPIRING_STEPS } });
    await call('POST', `/v1/campaigns/${paused.body.data.id}/activate`, { key: keys.test_write });
    await call('POST', `/v1/campaigns/${paused.body.data.id}/pause`, { key: keys.test_write });
    await knownCustomer(path, monthFromNow(1), new Date(runtime.clock.now().getTime() + 20 * DAY_SECONDS * 1000));
    // Act
    await nextDay();
    const before = await tenantItems(tenant, 'ENROLLMENT#');
    expect((await call('POST', `/v1/campaigns/${campaignId}/activate`, { key: keys.test_write })).status).toBe(200);
    await nextDay();
    // Assess
    expect(before).toEqual([]);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([expect.objectContaining({ campaign_id: campaignId })]);
  });

  it('applies min_amount to what the renewal charges', async () => {
    const { tenant, path } = await setUp('card_expiring', EXPIRING_STEPS, { trigger_conditions: { min_amount: 5000 } });
    const renewal = new Date(runtime.clock.now().getTime() + 20 * DAY_SECONDS * 1000);
    await knownCustomer(path, monthFromNow(1), renewal, 2900);
    const valuable = await knownCustomer(path, monthFromNow(1), renewal, 9900);
    await nextDay();
    const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
    expect(enrollments).toHaveLength(1);
    expect(outboxFor(valuable.customer.email)).toHaveLength(1);
  });
});

describe('pre_dunning', () => {
  const steps = [{ channel: 'email', template_id: 'tpl_upcoming_renewal', subject: 'Your renewal is coming up', delay_hours: 0 }];

  it('enrolls a week before renewal only customers whose card will not work at the renewal, once per renewal', async () => {
    // Prepare: both renew in 8.5 days; one card is invalid by then, the other valid through the month after.
    const { tenant, path, campaignId } = await setUp('pre_dunning', steps);
    const renewsAt = new Date(runtime.clock.now().getTime() + 8.5 * DAY_SECONDS * 1000);
    const renewalMonth = renewsAt.getUTCFullYear() * 12 + renewsAt.getUTCMonth();
    const before = { exp_month: ((renewalMonth - 1) % 12) + 1, exp_year: Math.floor((renewalMonth - 1) / 12) };
    const after = { exp_month: ((renewalMonth + 1) % 12) + 1, exp_year: Math.floor((renewalMonth + 1) / 12) };
    const atRisk = await knownCustomer(path, { ...before, last_four: '0005' }, renewsAt);
    const safe = await knownCustomer(path, after, renewsAt);
    // Act + Assess: 7.5 days ahead is too early, 6.5 days ahead enrolls.
    await nextDay();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toEqual([]);
    await nextDay();
    const [enrollment, ...others] = await tenantItems(tenant, 'ENROLLMENT#');
    expect(others).toEqual([]);
    expect(enrollment).toMatchObject({ campaign_id: campaignId, calendar: { trigger: 'pre_dunning', renews_at: renewsAt.toISOString(), amount: 2900 } });
    const [message] = outboxFor(atRisk.customer.email);
    const renewalDay = renewsAt.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
    expect(message!.content.text).toContain(`Your Acme Cloud subscription renews on ${renewalDay} for $29.00, but your Visa card ending in 0005`);
    expect(outboxFor(safe.customer.email)).toEqual([]);
    await nextDay();
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(1);
  });

  it('reads the renewal date a paid renewal reports, for a charge that never failed', async () => {
    // Prepare
    const { tenant, path } = await setUp('pre_dunning', steps);
    const failure = await knownCustomer(path, monthFromNow(0), new Date(runtime.clock.now().getTime() + 2 * DAY_SECONDS * 1000));
    const nextPeriodEnd = new Date(runtime.clock.now().getTime() + 32 * DAY_SECONDS * 1000).toISOString();
    // Act
    const renewal = await postGeneric(path, {
      ...failure,
      id: `${failure.id}_renewal`,
      type: 'payment.succeeded',
      created: nowSeconds(),
      payment: { ...failure.payment, id: `${failure.payment.id}_renewal`, decline_code: null },
      subscription: { ...failure.subscription, current_period_end: nextPeriodEnd },
    });
    // Assess
    expect(renewal.body.outcome).toBe('updated');
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer!.subscriptions).toEqual([expect.objectContaining({ current_period_end: nextPeriodEnd })]);
    expect(await tenantItems(tenant, 'PAYMENT#')).toHaveLength(1);
  });
});

describe('the scan of a tenant with many candidates', () => {
  it('continues in follow-up jobs and still enrolls everyone once', async () => {
    // Prepare
    const { tenant, path } = await setUp('card_expiring', [{ channel: 'email', template_id: 'tpl_card_expiring', subject: 'Soon', delay_hours: 72 }]);
    const renewal = new Date(runtime.clock.now().getTime() + 20 * DAY_SECONDS * 1000);
    for (let i = 0; i < 3; i++) await knownCustomer(path, monthFromNow(1), renewal);
    // Act: one candidate per page, and no time for a second page in a job.
    const report = await scanCalendar({ scheduler }, tenant, { day: '2026-01-01', part: 0, cursor: null }, runtime.clock.now(), { pageSize: 1, budgetMs: 0 });
    const continued = await runDueJobs();
    // Assess
    expect(report).toMatchObject({ customers: 1, enrolled: 1, continued: true });
    const parts = continued.filter((run) => run.kind === 'calendar-scan').map((run) => run.job_id);
    expect(parts[0]).toBe(`cal.${tenant.merchantId}.test.20260101.1`);
    expect(parts.every((_, i) => parts[i] === `cal.${tenant.merchantId}.test.20260101.${i + 1}`)).toBe(true);
    expect(continued.every((run) => run.outcome === 'succeeded')).toBe(true);
    expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(3);
  });
});
