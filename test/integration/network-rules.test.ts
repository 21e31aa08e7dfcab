import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

async function setUp() {
  const merchant = await newMerchant({ plan: 'enterprise' });
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  return { tenant, path, key: merchant.keys.test_write, admin: merchant.keys.test_admin };
}

interface CardFailure {
  customerId: string;
  brand: 'visa' | 'mastercard';
  lastFour: string;
  code?: string;
  networkCode?: string;
  adviceCode?: string;
}

/** A generic payment.failed for one customer's card (fingerprinted), with the network's answer when given. */
async function fail(path: string, card: CardFailure): Promise<string> {
  const event = genericFailure({ code: card.code ?? 'insufficient_funds', customerId: card.customerId, lastFour: card.lastFour });
  const body = {
    ...event,
    payment: {
      ...event.payment,
      ...(card.networkCode ? { network_decline_code: card.networkCode } : {}),
      ...(card.adviceCode ? { network_advice_code: card.adviceCode } : {}),
    },
    payment_method: { ...event.payment_method, brand: card.brand, fingerprint: `fp_${card.customerId}` },
  };
  const response = await postGeneric(path, body);
  expect(response.status).toBe(200);
  return response.body.payment_id as string;
}

const stored = async (tenant: Tenant, id: string) => (await tenantItems(tenant, `PAYMENT#${id}`))[0] as any;
const retryNow = (key: string, id: string) => call('POST', `/v1/payments/${id}/retry`, { key });
const detail = async (key: string, id: string) => (await call('GET', `/v1/payments/${id}`, { key })).body.data;
const eventTypes = async (tenant: Tenant) => (await tenantItems(tenant, 'EVENT#')).map((event) => event.type as string);
const customerOf = (tag: string) => `cust_${tag}_${Math.random().toString(36).slice(2, 10)}`;

/** A manual retry and the attempt it dispatched, run to its answer. */
async function retried(key: string, id: string) {
  const response = await retryNow(key, id);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  await runDueJobs();
}

describe('card network rules (generic processor, sandbox retries)', () => {
  it('never retries after a Visa Category 1 answer: the payment goes to the customer, a manual retry is refused with 403', async () => {
    // Prepare
    const { tenant, path, key } = await setUp();
    // Act: soft at the processor (insufficient_funds), but Visa says 41 (lost card)
    const id = await fail(path, { customerId: customerOf('visa1'), brand: 'visa', lastFour: '9995', networkCode: '41' });
    // Assess
    const payment = await stored(tenant, id);
    expect(payment).toMatchObject({
      status: 'communication_pending',
      decline_category: 'soft_retry',
      next_retry_at: null,
      customer_action: 'Update payment method',
      network_decline_code: '41',
      network_hold: { rule: 'visa_category_1', effect: 'never', next_allowed_at: null },
    });
    expect(await eventTypes(tenant)).toEqual(expect.arrayContaining(['payment.failed', 'payment.retry_failed', 'payment.network_held']));
    // The hold is part of the payment's history, with the rule that decided it
    await drainEvents();
    const history = await call('GET', `/v1/payments/${id}/events`, { key });
    expect(history.status).toBe(200);
    const held = history.body.data.find((event: { type: string }) => event.type === 'payment.network_held');
    expect(held?.data).toMatchObject({ id, network_hold: { rule: 'visa_category_1', effect: 'never', next_allowed_at: null } });
    const refused = await retryNow(key, id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('network_retry_limit');
    expect(refused.body.error.message).toContain('visa_category_1');
    expect(refused.body.error.message).toContain('until the customer updates the card');
    expect(await stored(tenant, id)).toMatchObject({ status: 'communication_pending', retry_count: 0 });
    const shown = await detail(key, id);
    expect(shown.network_hold, JSON.stringify(shown)).toMatchObject({ rule: 'visa_category_1', rules_version: expect.any(String) });
  });

  it('routes a retry answered with Visa Category 1 (sandbox card 0041) to the customer, never to another retry', async () => {
    const { tenant, path } = await setUp();
    const id = await fail(path, { customerId: customerOf('visa0041'), brand: 'visa', lastFour: '0041' });
    const first = await stored(tenant, id);
    advanceClock((Date.parse(first.next_retry_at) - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    const after = await stored(tenant, id);
    expect(after).toMatchObject({ status: 'communication_pending', retry_count: 1, network_hold: { rule: 'visa_category_1' } });
    expect(after.retries[0]).toMatchObject({ decline_code: 'do_not_honor', network_decline_code: '41' });
  });

  it('refuses the 21st Visa reattempt in 30 days across several payments of one card (the rule in force since May 2025)', async () => {
    const { tenant, path, key } = await setUp();
    const customerId = customerOf('visa21');
    const ids = [await fail(path, { customerId, brand: 'visa', lastFour: '9995' }), await fail(path, { customerId, brand: 'visa', lastFour: '9995' })];
    for (let i = 0; i < 20; i++) await retried(key, ids[i % 2]!);
    const refused = await retryNow(key, ids[0]!);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'network_retry_limit', message: expect.stringContaining('visa_merchant_reattempts_30d') });
    const attempts = (await stored(tenant, ids[0]!)).retry_count + (await stored(tenant, ids[1]!)).retry_count;
    expect(attempts).toBe(20);
    // An automatic retry that falls due meanwhile is rescheduled to when the window reopens, not spent.
    const later = await fail(path, { customerId, brand: 'visa', lastFour: '9995' });
    const pending = await stored(tenant, later);
    expect(pending.status).toBe('pending');
    advanceClock((Date.parse(pending.next_retry_at) - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    const held = await stored(tenant, later);
    expect(held).toMatchObject({ status: 'pending', retry_count: 0, network_hold: { rule: 'visa_merchant_reattempts_30d' } });
    expect(Date.parse(held.next_retry_at)).toBeGreaterThanOrEqual(Date.parse(held.network_hold.next_allowed_at));
  });

  it('holds the 11th Mastercard attempt in 24 hours, counting the failures the processor reported', async () => {
    const { tenant, path, key } = await setUp();
    const customerId = customerOf('mc24');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await fail(path, { customerId, brand: 'mastercard', lastFour: '9995' }));
    for (let i = 0; i < 6; i++) await retried(key, ids[i % 4]!);
    const refused = await retryNow(key, ids[0]!);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('mastercard_attempts_24h');
    const payments = await Promise.all(ids.map((id) => stored(tenant, id)));
    expect(payments.reduce((sum, payment) => sum + payment.retry_count, 0)).toBe(6);
  });

  it('does not retry before 72 hours after Mastercard advice code 02, and holds a sibling payment of the card as well', async () => {
    const { tenant, path, key } = await setUp();
    const customerId = customerOf('mac02');
    // A 24-hour cooldown: its retry falls due inside the 72 hours whatever the calendar (no payday wait).
    const sibling = await fail(path, { customerId, brand: 'mastercard', lastFour: '9995', code: 'processing_error' });
    // Webhook times are whole seconds.
    const failedAt = Math.floor(runtime.clock.now().getTime() / 1000) * 1000;
    const id = await fail(path, { customerId, brand: 'mastercard', lastFour: '9995', adviceCode: '02' });
    const payment = await stored(tenant, id);
    expect(payment).toMatchObject({ status: 'pending', network_advice_code: '02', network_hold: { rule: 'mastercard_mac_02', effect: 'not_before' } });
    expect(Date.parse(payment.next_retry_at) - failedAt).toBeGreaterThanOrEqual(72 * 3600_000);
    // The sibling's retry falls due inside the 72 hours: rescheduled, not counted.
    const due = await stored(tenant, sibling);
    advanceClock((Date.parse(due.next_retry_at) - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    const held = await stored(tenant, sibling);
    expect(held).toMatchObject({ status: 'pending', retry_count: 0, retries: [], network_hold: { rule: 'mastercard_mac_02' } });
    expect(Date.parse(held.next_retry_at) - failedAt).toBeGreaterThanOrEqual(72 * 3600_000);
    expect(await eventTypes(tenant)).toContain('payment.network_held');
    // Analytics count the held attempts per rule, with the networks' fees as an estimate of fees avoided.
    await drainEvents();
    const analytics = await call('GET', '/v1/analytics/recovery', { key });
    expect(analytics.body.data.network_holds).toMatchObject({ count: 2, estimated_fees_avoided_usd_cents: 20, by_rule: { mastercard_mac_02: 2 } });
  });

  it('stops automatic retries after Mastercard advice code 03 (sandbox card 0303)', async () => {
    const { tenant, path } = await setUp();
    const id = await fail(path, { customerId: customerOf('mac03'), brand: 'mastercard', lastFour: '0303' });
    const first = await stored(tenant, id);
    advanceClock((Date.parse(first.next_retry_at) - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    expect(await stored(tenant, id)).toMatchObject({
      status: 'communication_pending',
      retry_count: 1,
      next_retry_at: null,
      network_advice_code: '03',
      network_hold: { rule: 'mastercard_mac_03', effect: 'never' },
    });
  });

  it('lets 10 concurrent manual retries at a limit never pass it', async () => {
    const { tenant, path, key } = await setUp();
    const customerId = customerOf('race');
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await fail(path, { customerId, brand: 'visa', lastFour: '9995' }));
    for (let i = 0; i < 18; i++) await retried(key, ids[i % 10]!);
    // Two reattempts are left under Visa's 20 in 30 days; ten ask at once, one per payment.
    const answers = await Promise.all(ids.map((id) => retryNow(key, id)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 403 || status === 429)).toBe(true);
    await runDueJobs();
    const payments = await Promise.all(ids.map((id) => stored(tenant, id)));
    expect(payments.reduce((sum, payment) => sum + payment.retry_count, 0)).toBe(20);
  });

  it('erases the card ledger with its customer: nothing of the card is left', async () => {
    const { tenant, path, admin } = await setUp();
    const id = await fail(path, { customerId: customerOf('erase'), brand: 'visa', lastFour: '9995', networkCode: '41' });
    expect(await tenantItems(tenant, 'CARDLEDGER#')).toHaveLength(1);
    const erased = await call('DELETE', `/v1/customers/${(await stored(tenant, id)).customer_id}`, { key: admin });
    expect(erased.status).toBe(200);
    expect(await tenantItems(tenant, 'CARDLEDGER#')).toEqual([]);
  });
});
