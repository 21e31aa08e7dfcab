import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const day = (offset: number, from: Date) => new Date(from.getTime() + offset * 86_400_000).toISOString().slice(0, 10);

async function fail(path: string, overrides: Parameters<typeof genericFailure>[0]) {
  const failure = genericFailure(overrides);
  const response = await postGeneric(path, failure);
  expect(response.status).toBe(200);
  return { paymentId: response.body.payment_id as string, failure };
}

/**
 * A scripted history, all through the real inbound webhooks, retry jobs and event consumers:
 *   EUR: two soft declines recovered by automatic retries (1000, 2000), an expired card recovered by a manual retry (3000)
 *   USD: an expired card the customer paid after the campaign's message (5000), a fraud decline (terminal, 7000), an unknown code still pending (1100)
 */
async function scriptedHistory() {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  // A campaign that messages hard declines at once: the dunned customer has had its message when they pay.
  const campaign = await call('POST', '/v1/campaigns', {
    key: merchant.keys.test_write,
    body: { name: 'Card problems', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 0 }] },
  });
  expect((await call('POST', `/v1/campaigns/${campaign.body.data.id}/activate`, { key: merchant.keys.test_write })).status).toBe(200);
  const failedOn = runtime.clock.now();
  await fail(path, { code: 'insufficient_funds', amount: 1000, currency: 'EUR', lastFour: '4242' });
  await fail(path, { code: 'insufficient_funds', amount: 2000, currency: 'EUR', lastFour: '4242' });
  const manual = await fail(path, { code: 'expired_card', amount: 3000, currency: 'EUR', lastFour: '4242' });
  const dunned = await fail(path, { code: 'expired_card', amount: 5000, currency: 'USD' });
  await fail(path, { code: 'fraudulent', amount: 7000, currency: 'USD' });
  await fail(path, { code: 'weird_code_xyz', amount: 1100, currency: 'USD' });
  await drainEvents();

  const retry = await call('POST', `/v1/payments/${manual.paymentId}/retry`, { key: merchant.keys.test_write });
  expect(retry.status).toBe(200);
  await runDueJobs();
  await drainEvents();

  const paid = await postGeneric(path, {
    id: `evt_paid_${Math.random().toString(36).slice(2)}`,
    type: 'payment.succeeded',
    created: nowSeconds(),
    customer: dunned.failure.customer,
    payment: { id: dunned.failure.payment.id, amount: 5000, currency: 'USD' },
  });
  expect(paid.status).toBe(200);
  await drainEvents();

  // Balance retries wait for the days after a payday when one starts within 5 days of the 48 h cooldown
  // (docs/retry-policy.md): eight days see them through whatever today's date is.
  for (let hour = 0; hour < 8 * 24; hour += 12) {
    advanceClock(12 * 3600);
    await runDueJobs();
    await drainEvents();
  }
  const payments = await tenantItems(tenant, 'PAYMENT#');
  expect(payments.map((payment) => [payment.amount, payment.status, payment.recovery_channel]).sort()).toEqual([
    [1000, 'recovered', 'automatic_retry'],
    [1100, 'communication_pending', null],
    [2000, 'recovered', 'automatic_retry'],
    [3000, 'recovered', 'manual_retry'],
    [5000, 'recovered', 'dunning_campaign'],
    [7000, 'terminal', null],
  ]);
  return { ...merchant, tenant, failedOn };
}

const zeroCategory = { failed_count: 0, failed_amount: 0, recovered_count: 0, recovered_amount: 0, terminal_count: 0, recovery_rate: 0 };
const zeroChannel = { count: 0, amount: 0 };

describe('GET /v1/analytics/recovery', () => {
  it('answers exact numbers per currency from the aggregates, and counts a redelivered event once', async () => {
    // Prepare
    const { keys, tenant, failedOn } = await scriptedHistory();
    // The stream delivers every event again: the per-event markers keep the counters exact.
    localRuntime().events.capture(await tenantItems(tenant, 'EVENT#'));
    await drainEvents();
    // Act
    const response = await call('GET', '/v1/analytics/recovery', { key: keys.test_read, query: { from: day(-1, failedOn), to: day(1, failedOn) } });
    // Assess
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data.totals).toEqual({ failed_count: 6, retried_count: 3, messaged_count: 3, recovered_count: 4, terminal_count: 1, pending_count: 1, recovery_rate: 0.6667 });
    expect(data.currencies.map((c: any) => c.currency)).toEqual(['eur', 'usd']);
    const [eur, usd] = data.currencies;
    expect(eur).toMatchObject({
      failed: { count: 3, amount: 6000 },
      // The funnel: both balance declines and the manual retry were retried; the expired card was also messaged.
      retried: { count: 3, amount: 6000 },
      messaged: { count: 1, amount: 3000 },
      recovered: { count: 3, amount: 6000 },
      terminal: { count: 0, amount: 0 },
      pending: { count: 0, amount: 0 },
      recovery_rate: 1,
    });
    expect(eur.by_category).toEqual({
      soft_retry: { failed_count: 2, failed_amount: 3000, recovered_count: 2, recovered_amount: 3000, terminal_count: 0, recovery_rate: 1 },
      hard_customer: { failed_count: 1, failed_amount: 3000, recovered_count: 1, recovered_amount: 3000, terminal_count: 0, recovery_rate: 1 },
      terminal: zeroCategory,
      unknown: zeroCategory,
    });
    expect(eur.by_channel).toEqual({
      automatic_retry: { count: 2, amount: 3000 },
      manual_retry: { count: 1, amount: 3000 },
      card_update: { count: 0, amount: 0 },
      dunning_campaign: zeroChannel,
      cancel_flow_save: zeroChannel,
      processor: zeroChannel,
    });
    expect(eur.by_psp).toEqual({ acme: { failed_count: 3, failed_amount: 6000, recovered_count: 3, recovered_amount: 6000, recovery_rate: 1 } });
    expect(usd).toMatchObject({
      failed: { count: 3, amount: 13100 },
      // Never retried: a hard decline, a fraud decline and an unknown code; the two the customer can fix were messaged.
      retried: { count: 0, amount: 0 },
      messaged: { count: 2, amount: 6100 },
      recovered: { count: 1, amount: 5000 },
      terminal: { count: 1, amount: 7000 },
      pending: { count: 1, amount: 1100 },
      recovery_rate: 0.3333,
    });
    expect(usd.by_category).toMatchObject({
      hard_customer: { failed_count: 1, recovered_count: 1, recovery_rate: 1 },
      terminal: { failed_count: 1, failed_amount: 7000, recovered_count: 0, terminal_count: 1 },
      unknown: { failed_count: 1, failed_amount: 1100, recovered_count: 0 },
    });
    expect(usd.by_channel.dunning_campaign).toEqual({ count: 1, amount: 5000 });
    // The series: by failure day, zero-filled.
    expect(usd.series.map((point: any) => [point.period_start, point.failed_count, point.recovered_count, point.pending_count])).toEqual([
      [day(-1, failedOn), 0, 0, 0],
      [day(0, failedOn), 3, 1, 1],
      [day(1, failedOn), 0, 0, 0],
    ]);
  });

  it("moves a failure to the category a later decline gives its payment, so each category's outcomes stay within its failures", async () => {
    const merchant = await newMerchant();
    const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const failedOn = runtime.clock.now();
    // Soft at intake; the retry declines expired_card (hard), then the customer pays.
    const toHard = await fail(path, { code: 'temporary_failure', amount: 777, currency: 'CHF', lastFour: '0069' });
    // Soft at intake; the retry declines stolen_card (terminal).
    await fail(path, { code: 'temporary_failure', amount: 500, currency: 'CHF', lastFour: '9979' });
    // Recorded without a code (unknown); the code comes with a sibling event before any attempt (soft).
    const uncoded = await fail(path, { code: null, amount: 300, currency: 'CHF' });
    await postGeneric(path, { ...uncoded.failure, id: `${uncoded.failure.id}_coded`, payment: { ...uncoded.failure.payment, decline_code: 'insufficient_funds' } });
    // The same, with a terminal code: the payment closes, announced as any terminal outcome.
    const lateTerminal = await fail(path, { code: null, amount: 200, currency: 'CHF' });
    await postGeneric(path, { ...lateTerminal.failure, id: `${lateTerminal.failure.id}_coded`, payment: { ...lateTerminal.failure.payment, decline_code: 'stolen_card' } });
    // A code arriving late is announced like the same outcome at intake (read before any retry runs).
    const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
    const announced = async (id: string) => (await tenantItems(tenant, 'EVENT#')).filter((event) => event.data.id === id).map((event) => event.type).sort();
    expect(await announced(uncoded.paymentId)).toEqual(['payment.failed', 'payment.recategorized', 'payment.retry_scheduled']);
    expect(await announced(lateTerminal.paymentId)).toEqual(['payment.failed', 'payment.recategorized', 'payment.terminal']);
    for (let hour = 0; hour < 8 * 24; hour += 12) {
      advanceClock(12 * 3600);
      await runDueJobs();
      await drainEvents();
    }
    const paid = await postGeneric(path, { ...toHard.failure, id: `${toHard.failure.id}_paid`, type: 'payment.succeeded' });
    expect(paid.status).toBe(200);
    await drainEvents();
    const listed = (await call('GET', '/v1/payments', { key: merchant.keys.test_read, query: { currency: 'chf' } })).body.data;
    expect(listed.map((payment: any) => [payment.amount, payment.decline_category, payment.status]).sort()).toEqual([
      [200, 'terminal', 'terminal'],
      [300, 'soft_retry', 'recovered'],
      [500, 'terminal', 'terminal'],
      [777, 'hard_customer', 'recovered'],
    ]);
    const response = await call('GET', '/v1/analytics/recovery', { key: merchant.keys.test_read, query: { from: day(0, failedOn), to: day(0, failedOn), currency: 'chf' } });
    const [chf] = response.body.data.currencies;
    expect(chf.by_category).toEqual({
      soft_retry: { failed_count: 1, failed_amount: 300, recovered_count: 1, recovered_amount: 300, terminal_count: 0, recovery_rate: 1 },
      hard_customer: { failed_count: 1, failed_amount: 777, recovered_count: 1, recovered_amount: 777, terminal_count: 0, recovery_rate: 1 },
      terminal: { failed_count: 2, failed_amount: 700, recovered_count: 0, recovered_amount: 0, terminal_count: 2, recovery_rate: 0 },
      unknown: zeroCategory,
    });
    // Each move is an internal event of its own (INTERNAL_EVENT_TYPES: never delivered to merchants' endpoints).
    expect((await tenantItems(tenant, 'EVENT#')).filter((event) => event.type === 'payment.recategorized')).toHaveLength(4);
  });

  it('brings a terminal payment paid after all back as recovered, out of terminal in the analytics and the customer', async () => {
    const merchant = await newMerchant();
    const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
    const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const failedOn = runtime.clock.now();
    const stolen = await fail(path, { code: 'stolen_card', amount: 4100, currency: 'SEK' });
    await drainEvents();
    const paid = await postGeneric(path, { ...stolen.failure, id: `${stolen.failure.id}_paid`, type: 'payment.succeeded', created: nowSeconds() });
    expect(paid.body.outcome).toBe('updated');
    await drainEvents();
    const [payment] = await tenantItems(tenant, `PAYMENT#${stolen.paymentId}`);
    expect(payment).toMatchObject({ status: 'recovered', recovery_channel: 'processor', decline_category: 'terminal' });
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ status: 'recovered', terminal_payments: 0, recovered_payments: 1, failed_payments: 0 });
    const types = (await tenantItems(tenant, 'EVENT#')).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['payment.terminal', 'payment.terminal_reversed', 'payment.recovered']));
    const response = await call('GET', '/v1/analytics/recovery', { key: merchant.keys.test_read, query: { from: day(0, failedOn), to: day(0, failedOn), currency: 'sek' } });
    expect(response.body.data.totals).toEqual({ failed_count: 1, retried_count: 0, messaged_count: 0, recovered_count: 1, terminal_count: 0, pending_count: 0, recovery_rate: 1 });
    expect(response.body.data.currencies[0].by_category.terminal).toMatchObject({ failed_count: 1, recovered_count: 1, terminal_count: 0 });
  });

  it('filters by currency and processor, groups by week and month, needs read or analytics', async () => {
    const { keys, failedOn } = await scriptedHistory();
    const range = { from: day(-40, failedOn), to: day(40, failedOn) };
    const usd = await call('GET', '/v1/analytics/recovery', { key: keys.test_admin, query: { ...range, currency: 'USD', interval: 'month' } });
    expect(usd.body.data.currencies.map((c: any) => c.currency)).toEqual(['usd']);
    expect(usd.body.data.currencies[0].series.reduce((n: number, p: any) => n + p.failed_count, 0)).toBe(3);
    expect(usd.body.data.currencies[0].series[0].period_start).toBe(range.from);
    const weeks = await call('GET', '/v1/analytics/recovery', { key: keys.test_admin, query: { ...range, interval: 'week' } });
    expect(weeks.body.data.currencies[0].series.length).toBeGreaterThanOrEqual(12);
    const other = await call('GET', '/v1/analytics/recovery', { key: keys.test_admin, query: { ...range, psp: 'stripe' } });
    expect(other.body.data).toMatchObject({ currencies: [], totals: { failed_count: 0, recovery_rate: 0 } });

    const issued = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'bi', scopes: ['analytics'] } });
    const analyticsOnly = await call('GET', '/v1/analytics/recovery', { key: issued.body.data.secret, query: range });
    expect(analyticsOnly.status).toBe(200);
    const hooks = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'hooks', scopes: ['webhooks'] } });
    expect((await call('GET', '/v1/analytics/recovery', { key: hooks.body.data.secret, query: range })).status).toBe(403);
  });

  it('reports the last 30 days ending now when no range is sent, and echoes the window it used', async () => {
    // Prepare: one failure today, on the service clock
    const { keys } = await newMerchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const now = runtime.clock.now();
    await fail(path, { code: 'insufficient_funds', amount: 1000, currency: 'EUR' });
    await drainEvents();
    const report = async (query: Record<string, string> = {}) => {
      const response = await call('GET', '/v1/analytics/recovery', { key: keys.test_read, query });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data;
    };
    // Act, assess: no range
    const defaulted = await report();
    expect(defaulted).toMatchObject({ from: day(-30, now), to: day(0, now), interval: 'day', totals: { failed_count: 1 } });
    expect(defaulted.currencies[0].series.map((point: any) => point.period_start)).toEqual(Array.from({ length: 31 }, (_, i) => day(i - 30, now)));
    // One end sent: the other follows from it
    expect(await report({ to: day(-1, now) })).toMatchObject({ from: day(-31, now), to: day(-1, now), totals: { failed_count: 0 } });
    expect(await report({ from: day(-3, now), interval: 'week' })).toMatchObject({ from: day(-3, now), to: day(0, now), interval: 'week', totals: { failed_count: 1 } });
    // The window ends at the service clock's now: 31 days on, today's failure has left it
    advanceClock(31 * 86_400);
    const later = runtime.clock.now();
    expect(await report()).toMatchObject({ from: day(-30, later), to: day(0, later), totals: { failed_count: 0 } });
  });

  it('applies the range rules to a defaulted end: a from too far back or after today is 400 naming from', async () => {
    const { keys } = await newMerchant();
    const now = runtime.clock.now();
    const refusal = async (query: Record<string, string>) => (await call('GET', '/v1/analytics/recovery', { key: keys.test_read, query })).body.error;
    expect(await refusal({ from: day(-366, now) })).toEqual({
      code: 'invalid_request',
      param: 'from',
      message: 'The range may span at most 366 days with interval=day',
      request_id: expect.any(String),
    });
    expect(await refusal({ from: day(1, now) })).toMatchObject({ code: 'invalid_request', param: 'from', message: `from must not be after to (${day(0, now)})` });
    expect((await call('GET', '/v1/analytics/recovery', { key: keys.test_read, query: { from: day(-365, now) } })).status).toBe(200);
  });

  it('refuses bad parameters with 400 naming them', async () => {
    const { keys } = await newMerchant();
    const cases: [Record<string, string>, string][] = [
      [{ from: '2026-02-30', to: '2026-03-01' }, 'from'],
      [{ from: '2026-01-01T00:00:00Z', to: '2026-03-01' }, 'from'],
      [{ from: '2026-03-01', to: '2026-01-01' }, 'from'],
      [{ from: '2025-01-01', to: '2026-01-02' }, 'to'],
      [{ from: '2026-01-01', to: '2026-01-02', interval: 'year' }, 'interval'],
      [{ from: '2026-01-01', to: '2026-01-02', currency: 'euro' }, 'currency'],
      [{ from: '2026-01-01', to: '2026-01-02', campaign: 'x' }, 'campaign'],
    ];
    for (const [query, param] of cases) {
      const response = await call('GET', '/v1/analytics/recovery', { key: keys.test_read, query });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
    }
    const twoYearsOfMonths = await call('GET', '/v1/analytics/recovery', { key: keys.test_read, query: { from: '2024-06-01', to: '2026-05-31', interval: 'month' } });
    expect(twoYearsOfMonths.status).toBe(200);
  });
});
