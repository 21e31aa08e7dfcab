import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const day = (offset: number, from: Date) => new Date(from.getTime() + offset * 86_400_000).toISOString().slice(0, 10);

/** A merchant's receiver subscribed to "*": records the event types it is sent, always answers 200. */
let receiver: Server;
const receivedTypes: string[] = [];
beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receivedTypes.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).type);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** Advances the clock hour by hour, firing what comes due, as the scheduler would. */
async function passHours(hours: number) {
  for (let i = 0; i < hours; i++) {
    advanceClock(3600);
    await runDueJobs();
    await drainEvents();
  }
}

async function createCampaign(key: string, body: Record<string, unknown>): Promise<string> {
  const created = await call('POST', '/v1/campaigns', { key, body });
  expect(created.status).toBe(201);
  expect((await call('POST', `/v1/campaigns/${created.body.data.id}/activate`, { key })).status).toBe(200);
  return created.body.data.id;
}

async function fail(path: string, options: Parameters<typeof genericFailure>[0] & { phone?: string }) {
  const failure = genericFailure({ code: 'expired_card', ...options });
  const event = options.phone ? { ...failure, customer: { ...failure.customer, phone: options.phone } } : failure;
  const response = await postGeneric(path, event);
  expect(response.status).toBe(200);
  return { paymentId: response.body.payment_id as string, failure };
}

async function paid(path: string, failure: ReturnType<typeof genericFailure>) {
  const response = await postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded', created: nowSeconds() });
  expect(response.status).toBe(200);
  await drainEvents();
}

/**
 * The scripted history (hours after the failures at T0; every failure an expired card, so dunned):
 *   Campaign A "Card problems" (payment_failed): email +1 h, sms +24 h, email +24 h, email +48 h.
 *   Campaign B "High value" (high_value_churn ≥ 5000): email +2 h, email +72 h.
 *   P1 3000 USD, phone       → A.      Pays at 26 h, after A's step 1 (sms): A credits step 1.
 *   P2 9000 EUR, phone       → A, B.   Pays at 50 h, after A's step 2 and B's step 0: each credits its own.
 *   P3 2000 USD, email only  → A.      A's sms step is skipped (no phone); a manual retry at 30 h declines
 *                                      as fraudulent: terminal, no credit.
 *   P4 6000 USD, phone       → A, B.   Never pays: receives every step of both campaigns.
 *   P5 1500 EUR, soft decline → no campaign (retried silently); paid at 26 h, a recovery no campaign gets.
 */
async function scriptedHistory() {
  const merchant = await newMerchant();
  const { keys } = merchant;
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const port = (receiver.address() as AddressInfo).port;
  const endpoint = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: `http://127.0.0.1:${port}/${merchant.merchantId}`, events: ['*'] } });
  expect(endpoint.status).toBe(201);
  const campaignA = await createCampaign(keys.test_write, {
    name: 'Card problems',
    trigger: 'payment_failed',
    steps: [
      { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
      { channel: 'sms', template_id: 'tpl_update_payment_method', delay_hours: 24 },
      { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Reminder', delay_hours: 24 },
      { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
    ],
  });
  const campaignB = await createCampaign(keys.test_write, {
    name: 'High value',
    trigger: 'high_value_churn',
    trigger_conditions: { min_amount: 5000 },
    steps: [
      { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'We value you', delay_hours: 2 },
      { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Still there?', delay_hours: 72 },
    ],
  });
  const startedOn = runtime.clock.now();
  const p1 = await fail(path, { amount: 3000, currency: 'USD', phone: '+4915112345671' });
  const p2 = await fail(path, { amount: 9000, currency: 'EUR', phone: '+4915112345672' });
  const p3 = await fail(path, { amount: 2000, currency: 'USD', lastFour: '0019' });
  await fail(path, { amount: 6000, currency: 'USD', phone: '+4915112345674' });
  const p5 = await fail(path, { code: 'insufficient_funds', amount: 1500, currency: 'EUR', lastFour: '9995' });
  await drainEvents();
  expect(await tenantItems(tenant, 'ENROLLMENT#')).toHaveLength(6);

  await passHours(26);
  await paid(path, p1.failure);
  await paid(path, p5.failure);
  await passHours(4);
  expect((await call('POST', `/v1/payments/${p3.paymentId}/retry`, { key: keys.test_write })).status).toBe(200);
  await runDueJobs();
  await drainEvents();
  await passHours(20);
  await paid(path, p2.failure);
  await passHours(60);

  const payments = await tenantItems(tenant, 'PAYMENT#');
  expect(payments.map((payment) => [payment.amount, payment.status]).sort()).toEqual([
    [1500, 'recovered'],
    [2000, 'terminal'],
    [3000, 'recovered'],
    [6000, 'communication_pending'],
    [9000, 'recovered'],
  ]);
  const enrollments = await tenantItems(tenant, 'ENROLLMENT#');
  expect(enrollments.map((e) => [e.campaign_id === campaignA ? 'A' : 'B', e.status, e.stop_reason, e.messages_sent, e.last_sent_step]).sort()).toEqual([
    ['A', 'completed', null, 4, 3],
    ['A', 'stopped', 'recovered', 2, 1],
    ['A', 'stopped', 'recovered', 3, 2],
    ['A', 'stopped', 'terminal', 1, 0],
    ['B', 'completed', null, 2, 1],
    ['B', 'stopped', 'recovered', 1, 0],
  ]);
  return { ...merchant, tenant, campaignA, campaignB, startedOn, p2 };
}

const expectedA = (campaignId: string) => ({
  campaign_id: campaignId,
  name: 'Card problems',
  status: 'active',
  enrolled_count: 4,
  messages_sent: { email: 7, sms: 3, total: 10 },
  recovered_count: 2,
  recovered_amounts: [
    { currency: 'eur', count: 1, amount: 9000 },
    { currency: 'usd', count: 1, amount: 3000 },
  ],
  recovery_rate: 0.5,
  recovered_before_first_message: 0,
  // Every message carried a personal card-update link (the merchant set no page of its own); none was opened.
  card_update_funnel: { links_sent: 10, pages_opened: 0, cards_updated: 0, payments_recovered: 0 },
  steps: [
    { step: 0, messages_sent: 4, recovered_count: 0, conversion_rate: 0 },
    { step: 1, messages_sent: 3, recovered_count: 1, conversion_rate: 0.3333 },
    { step: 2, messages_sent: 2, recovered_count: 1, conversion_rate: 0.5 },
    { step: 3, messages_sent: 1, recovered_count: 0, conversion_rate: 0 },
  ],
});

const expectedB = (campaignId: string) => ({
  campaign_id: campaignId,
  name: 'High value',
  status: 'active',
  enrolled_count: 2,
  messages_sent: { email: 3, sms: 0, total: 3 },
  recovered_count: 1,
  recovered_amounts: [{ currency: 'eur', count: 1, amount: 9000 }],
  recovery_rate: 0.5,
  recovered_before_first_message: 0,
  card_update_funnel: { links_sent: 3, pages_opened: 0, cards_updated: 0, payments_recovered: 0 },
  steps: [
    { step: 0, messages_sent: 2, recovered_count: 1, conversion_rate: 0.5 },
    { step: 1, messages_sent: 1, recovered_count: 0, conversion_rate: 0 },
  ],
});

/** The history runs ~110 simulated hours, each firing due jobs and draining events. */
const HISTORY_TIMEOUT = 180_000;

describe('GET /v1/analytics/campaigns', () => {
  it('answers exact per-campaign numbers from the aggregates, counts a redelivered event once, and never delivers the internal events', { timeout: HISTORY_TIMEOUT }, async () => {
    // Prepare
    const { keys, tenant, campaignA, campaignB, startedOn } = await scriptedHistory();
    const events = await tenantItems(tenant, 'EVENT#');
    expect(events.filter((e) => e.type === 'campaign.enrolled')).toHaveLength(6);
    expect(events.filter((e) => e.type === 'campaign.recovered').map((e) => [e.data.campaign_id === campaignA ? 'A' : 'B', e.data.step, e.data.amount, e.data.currency]).sort()).toEqual([
      ['A', 1, 3000, 'usd'],
      ['A', 2, 9000, 'eur'],
      ['B', 0, 9000, 'eur'],
    ]);
    // The stream delivers every event again: the per-event markers keep the counters exact.
    localRuntime().events.capture(events);
    await drainEvents();
    // Act
    const response = await call('GET', '/v1/analytics/campaigns', { key: keys.test_read, query: { from: day(-1, startedOn), to: day(5, startedOn) } });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      from: day(-1, startedOn),
      to: day(5, startedOn),
      card_update_funnel: { links_sent: 13, pages_opened: 0, cards_updated: 0, payments_recovered: 0 },
      campaigns: [campaignA, campaignB].sort().map((id) => (id === campaignA ? expectedA(id) : expectedB(id))),
    });
    // Outbound webhooks: the endpoint subscribed to "*" got the public campaign event, never the internal ones.
    expect(receivedTypes).toContain('campaign.message_sent');
    expect(receivedTypes).not.toContain('campaign.enrolled');
    expect(receivedTypes).not.toContain('campaign.recovered');
    const deliveries = await tenantItems(tenant, 'WHDELIVERY#');
    expect(deliveries.filter((d) => d.event_type === 'campaign.message_sent')).toHaveLength(13);
    expect(deliveries.some((d) => d.event_type === 'campaign.enrolled' || d.event_type === 'campaign.recovered')).toBe(false);
  });

  it('counts by enrollment cohort: a window without the enrollment day is empty, whenever the messages went out', { timeout: HISTORY_TIMEOUT }, async () => {
    const { keys, startedOn, campaignA, campaignB } = await scriptedHistory();
    const later = await call('GET', '/v1/analytics/campaigns', { key: keys.test_read, query: { from: day(1, startedOn), to: day(10, startedOn) } });
    expect(later.status).toBe(200);
    expect(later.body.data.campaigns).toEqual([]);
    // The analytics scope suffices; the webhooks scope does not.
    const issued = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'bi', scopes: ['analytics'] } });
    const range = { from: day(0, startedOn), to: day(0, startedOn) };
    const analyticsOnly = await call('GET', '/v1/analytics/campaigns', { key: issued.body.data.secret, query: range });
    expect(analyticsOnly.status).toBe(200);
    const enrolled = Object.fromEntries(analyticsOnly.body.data.campaigns.map((c: any) => [c.campaign_id, c.enrolled_count]));
    expect(enrolled).toEqual({ [campaignA]: 4, [campaignB]: 2 });
    const hooks = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'hooks', scopes: ['webhooks'] } });
    expect((await call('GET', '/v1/analytics/campaigns', { key: hooks.body.data.secret, query: range })).status).toBe(403);
  });

  it('reports the enrollment cohorts of the last 30 days ending now when no range is sent, and echoes the window', async () => {
    // Prepare: one enrollment today, on the service clock
    const { keys } = await newMerchant();
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const campaign = await createCampaign(keys.test_write, {
      name: 'Card problems',
      trigger: 'payment_failed',
      steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 }],
    });
    await fail(path, { amount: 3000, currency: 'USD' });
    await drainEvents();
    const now = runtime.clock.now();
    const report = async (query: Record<string, string> = {}) => {
      const response = await call('GET', '/v1/analytics/campaigns', { key: keys.test_read, query });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data;
    };
    // Act, assess
    const defaulted = await report();
    expect(defaulted).toMatchObject({ from: day(-30, now), to: day(0, now), campaigns: [{ campaign_id: campaign, enrolled_count: 1 }] });
    expect(await report({ to: day(-1, now) })).toEqual({ from: day(-31, now), to: day(-1, now), card_update_funnel: { links_sent: 0, pages_opened: 0, cards_updated: 0, payments_recovered: 0 }, campaigns: [] });
    expect(await report({ from: day(-2, now) })).toMatchObject({ from: day(-2, now), to: day(0, now), campaigns: [{ campaign_id: campaign }] });
    advanceClock(31 * 86_400);
    const later = runtime.clock.now();
    expect(await report()).toEqual({ from: day(-30, later), to: day(0, later), card_update_funnel: { links_sent: 0, pages_opened: 0, cards_updated: 0, payments_recovered: 0 }, campaigns: [] });
  });

  it('refuses bad parameters with 400 naming them, and internal event types as webhook subscriptions (422)', async () => {
    const { keys } = await newMerchant();
    const cases: [Record<string, string>, string][] = [
      [{ from: '2026-02-30', to: '2026-03-01' }, 'from'],
      [{ from: '2026-01-01', to: '2026-03-01T00:00:00Z' }, 'to'],
      [{ from: '2026-03-01', to: '2026-01-01' }, 'from'],
      [{ from: '2025-01-01', to: '2026-01-02' }, 'to'],
      [{ from: '2026-01-01', to: '2026-01-02', interval: 'day' }, 'interval'],
    ];
    for (const [query, param] of cases) {
      const response = await call('GET', '/v1/analytics/campaigns', { key: keys.test_read, query });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
    }
    // The campaigns report takes no interval, and its refusal does not name one.
    const tooLong = await call('GET', '/v1/analytics/campaigns', { key: keys.test_read, query: { from: '2025-01-01', to: '2026-01-02' } });
    expect(tooLong.body.error.message).toBe('The range may span at most 366 days');
    const fullYear = await call('GET', '/v1/analytics/campaigns', { key: keys.test_read, query: { from: '2024-01-01', to: '2024-12-31' } });
    expect(fullYear.status).toBe(200);
    expect(fullYear.body.data.campaigns).toEqual([]);
    for (const type of ['campaign.enrolled', 'campaign.recovered', 'CancelFlowSaved']) {
      const refused = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://example.com/hooks', events: [type] } });
      expect(refused.status, type).toBe(422);
      expect(refused.body.error.param).toMatch(/^events/);
    }
  });
});
