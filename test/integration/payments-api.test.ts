import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, newMerchant, runDueJobs } from '../support/api.ts';
import { byKey, merchantWithProcessors, readAllPages, recordFailure, recordSuccess, storedPayments, type FailureSpec } from '../support/recovery-data.ts';

type Stored = Record<string, any>;

let keys: Awaited<ReturnType<typeof merchantWithProcessors>>['keys'];
let tenant: Tenant;
let stored: Stored[];
let customerA: string;
let start: Date;

/**
 * 30 failures spread over ~75 days (three months, so counters are read by month and by day), two
 * processors, three currencies, every category; then some recovered and some being retried.
 */
beforeAll(async () => {
  const merchant = await merchantWithProcessors();
  keys = merchant.keys;
  tenant = merchant.tenant;
  const codes = ['insufficient_funds', 'expired_card', 'stolen_card', 'weird_code_42', 'processing_error', null];
  const specs: FailureSpec[] = Array.from({ length: 30 }, (_, i) => ({
    psp: i % 4 === 0 ? 'zeta' : 'acme',
    code: codes[i % codes.length],
    amount: [500, 2900, 2900, 12_000, 750, 99_999][i % 6]! + (i % 5),
    currency: ['EUR', 'USD', 'GBP'][i % 3],
    customer: `cust_pay_${i % 7}`,
    // A few share a millisecond-free second, most are days apart.
    after: i % 5 === 4 ? 1 : 2.5 * 86_400,
  }));
  start = new Date(Date.now());
  const created = [];
  for (const spec of specs) created.push({ spec, ...(await recordFailure(merchant.paths, spec)) });
  customerA = created[0]!.customerId;
  // Two pending payments recovered by the processor, two claimed by a manual retry (retrying).
  const pending = created.filter(({ spec }) => spec.code === 'insufficient_funds' || spec.code === 'processing_error');
  for (const failure of pending.slice(0, 2)) await recordSuccess(merchant.paths[failure.spec.psp ?? 'acme'], failure.event);
  for (const failure of pending.slice(2, 4)) {
    const response = await call('POST', `/v1/payments/${failure.paymentId}/retry`, { key: keys.test_write });
    expect(response.status).toBe(200);
  }
  stored = await storedPayments(tenant);
}, 120_000);

const list = (query: Record<string, string>, key = keys.test_read) => call('GET', '/v1/payments', { key, query });

/** What a list must return, computed here from the stored items, not by the code under test. */
function expected(filter: (p: Stored) => boolean, sort: 'created_at' | 'amount' | 'status' = 'created_at', order: 'asc' | 'desc' = 'desc'): string[] {
  const keyOf = (p: Stored) =>
    sort === 'created_at' ? p.id : sort === 'amount' ? `${String(p.amount).padStart(16, '0')}#${p.id}` : `${p.status}#${p.id}`;
  const sorted = stored.filter(filter).sort((a, b) => byKey(keyOf(a), keyOf(b)));
  return order === 'asc' ? sorted.map((p) => p.id) : sorted.reverse().map((p) => p.id);
}

describe('GET /v1/payments', () => {
  it('lists newest first by default with §2.4 fields and the pagination envelope', async () => {
    // Act
    const response = await list({});
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 30, page: 1, per_page: 20, total_pages: 2 });
    expect(response.body.data.map((p: Stored) => p.id)).toEqual(expected(() => true).slice(0, 20));
    const first = response.body.data[0];
    expect(Object.keys(first).sort()).toEqual(
      [
        'id', 'customer_id', 'subscription_id', 'amount', 'currency', 'status', 'decline_code', 'decline_category', 'decline_subcategory',
        'psp', 'psp_payment_id', 'retry_count', 'max_retries', 'next_retry_at', 'recovered_at', 'created_at', 'updated_at',
      ].sort(),
    );
    const row = stored.find((p) => p.id === first.id)!;
    expect(first).toMatchObject({ amount: row.amount, currency: row.currency, status: row.status, customer_id: row.customer_id });
  });

  it.each([
    ['created_at', 'desc'],
    ['created_at', 'asc'],
    ['amount', 'asc'],
    ['amount', 'desc'],
    ['status', 'asc'],
    ['status', 'desc'],
  ] as const)('returns every payment exactly once, in order, page after page (sort=%s order=%s)', async (sort, order) => {
    const { ids, total } = await readAllPages(keys.test_read, '/v1/payments', { sort, order }, 4);
    expect(total).toBe(30);
    expect(ids).toEqual(expected(() => true, sort, order));
  });

  it.each<[string, Record<string, string>, (p: Stored) => boolean]>([
    ['status', { status: 'pending' }, (p) => p.status === 'pending'],
    ['status retrying', { status: 'retrying' }, (p) => p.status === 'retrying'],
    ['status recovered', { status: 'recovered' }, (p) => p.status === 'recovered'],
    ['status terminal', { status: 'terminal' }, (p) => p.status === 'terminal'],
    ['status communication_pending', { status: 'communication_pending' }, (p) => p.status === 'communication_pending'],
    ['decline_category', { decline_category: 'hard_customer' }, (p) => p.decline_category === 'hard_customer'],
    ['decline_category unknown', { decline_category: 'unknown' }, (p) => p.decline_category === 'unknown'],
    ['decline_code', { decline_code: 'expired_card' }, (p) => p.decline_code === 'expired_card'],
    ['psp', { psp: 'zeta' }, (p) => p.psp === 'zeta'],
    ['currency (any case)', { currency: 'USD' }, (p) => p.currency === 'usd'],
    ['amount range', { amount_min: '750', amount_max: '12003' }, (p) => p.amount >= 750 && p.amount <= 12_003],
    ['amount_min only', { amount_min: '12000' }, (p) => p.amount >= 12_000],
    ['amount_max only', { amount_max: '2901' }, (p) => p.amount <= 2901],
    ['status and currency', { status: 'communication_pending', currency: 'eur' }, (p) => p.status === 'communication_pending' && p.currency === 'eur'],
    ['category, psp and amount', { decline_category: 'soft_retry', psp: 'acme', amount_max: '3000' }, (p) => p.decline_category === 'soft_retry' && p.psp === 'acme' && p.amount <= 3000],
    ['code and status', { decline_code: 'stolen_card', status: 'terminal' }, (p) => p.decline_code === 'stolen_card' && p.status === 'terminal'],
    ['psp and currency', { psp: 'acme', currency: 'gbp' }, (p) => p.psp === 'acme' && p.currency === 'gbp'],
    ['nothing matches', { decline_code: 'no_such_code' }, () => false],
  ])('filters by %s, with totals and every page right in each order', async (_, filter, predicate) => {
    for (const sort of ['created_at', 'amount', 'status'] as const) {
      for (const order of sort === 'created_at' ? (['desc', 'asc'] as const) : sort === 'amount' ? (['asc'] as const) : (['desc'] as const)) {
        const { ids, total } = await readAllPages(keys.test_read, '/v1/payments', { ...filter, sort, order }, 4);
        expect(ids, `${sort} ${order}`).toEqual(expected(predicate, sort, order));
        expect(total).toBe(ids.length);
      }
    }
  });

  it('filters by creation time: created_after and created_before are exclusive, alone or together, with other filters', async () => {
    const byCreation = [...stored].sort((a, b) => byKey(a.id, b.id));
    const lower = byCreation[5]!.created_at as string;
    const upper = byCreation[24]!.created_at as string;
    const cases: [Record<string, string>, (p: Stored) => boolean][] = [
      [{ created_after: lower }, (p) => p.created_at > lower],
      [{ created_before: upper }, (p) => p.created_at < upper],
      [{ created_after: lower, created_before: upper }, (p) => p.created_at > lower && p.created_at < upper],
      [{ created_after: lower, created_before: upper, status: 'communication_pending' }, (p) => p.created_at > lower && p.created_at < upper && p.status === 'communication_pending'],
      [{ created_after: lower, psp: 'acme' }, (p) => p.created_at > lower && p.psp === 'acme'],
      // An offset and a finer fraction mean the same instants.
      [{ created_after: new Date(Date.parse(lower)).toISOString().replace('Z', '000+00:00') }, (p) => p.created_at > lower],
      [{ created_before: upper.replace('Z', '0001Z') }, (p) => p.created_at <= upper],
    ];
    for (const [filter, predicate] of cases) {
      for (const [sort, order] of [['created_at', 'asc'], ['amount', 'desc'], ['status', 'desc']] as const) {
        const { ids } = await readAllPages(keys.test_read, '/v1/payments', { ...filter, sort, order }, 6);
        expect(ids, JSON.stringify({ filter, sort, order })).toEqual(expected(predicate, sort, order));
      }
    }
  });

  it('filters by customer', async () => {
    const predicate = (p: Stored) => p.customer_id === customerA;
    for (const [sort, order] of [['created_at', 'desc'], ['amount', 'asc'], ['status', 'asc']] as const) {
      const { ids, total } = await readAllPages(keys.test_read, '/v1/payments', { customer_id: customerA, sort, order }, 1);
      expect(ids).toEqual(expected(predicate, sort, order));
      expect(total).toBeGreaterThanOrEqual(2);
    }
    const combined = await list({ customer_id: customerA, status: 'communication_pending', per_page: '100' });
    expect(combined.body.data.map((p: Stored) => p.id)).toEqual(expected((p) => predicate(p) && p.status === 'communication_pending'));
    const unknown = await list({ customer_id: 'cus_00000000000000000000000000' });
    expect(unknown.body).toEqual({ data: [], pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 } });
  });

  it('keeps page bounds: 1..10000 and 1..100, a page past the end is empty with the right total', async () => {
    expect((await list({ per_page: '100' })).body.data).toHaveLength(30);
    const past = await list({ page: '10000', per_page: '100' });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], pagination: { total: 30, page: 10_000, per_page: 100, total_pages: 1 } });
    for (const [param, value] of [['page', '0'], ['page', '10001'], ['per_page', '0'], ['per_page', '101'], ['page', '1.5'], ['per_page', 'ten']]) {
      const response = await list({ [param!]: value! });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
    }
  });

  it.each([
    ['status', 'lost'],
    ['decline_category', 'soft'],
    ['sort', 'customer_id'],
    ['order', 'up'],
    ['amount_min', '-1'],
    ['amount_max', '12.50'],
    ['amount_min', 'abc'],
    ['created_after', 'yesterday'],
    ['created_before', '2026-02-30T00:00:00Z'],
    ['currency', 'euro'],
    ['customer_id', 'cust_1'],
    ['psp', 'Not A Processor'],
    ['decline_code', ''],
    ['limit', '10'],
  ])('refuses %s=%s with 400 invalid_request naming the parameter', async (param, value) => {
    const response = await list({ [param]: value });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('refuses an empty amount or time range with 400 naming the lower bound', async () => {
    const amounts = await list({ amount_min: '5000', amount_max: '4999' });
    expect(amounts.status).toBe(400);
    expect(amounts.body.error).toMatchObject({ code: 'invalid_request', param: 'amount_min' });
    const times = await list({ created_after: '2026-03-01T00:00:00Z', created_before: '2026-03-01T00:00:00Z' });
    expect(times.status).toBe(400);
    expect(times.body.error).toMatchObject({ code: 'invalid_request', param: 'created_after' });
    expect((await list({ amount_min: '2900', amount_max: '2900' })).status).toBe(200);
  });

  it('needs the read scope; a publishable key is refused, a write key may read', async () => {
    expect((await list({}, keys.test_write)).status).toBe(200);
    expect((await list({}, keys.test_admin)).status).toBe(200);
    const pub = await list({}, keys.pub);
    expect(pub.status).toBe(403);
    expect(pub.body.error.code).toBe('insufficient_scope');
    expect((await call('GET', '/v1/payments')).status).toBe(401);
  });

  it("shows only the key's own merchant and environment", async () => {
    const other = await newMerchant();
    const theirs = await call('GET', '/v1/payments', { key: other.keys.test_read });
    expect(theirs.body.pagination.total).toBe(0);
    const live = await call('GET', '/v1/payments', { key: keys.live_admin });
    expect(live.body.pagination.total).toBe(0);
  });
});

describe('GET /v1/payments/{id}', () => {
  it('has no retries before the first attempt', async () => {
    const id = stored.find((p) => p.status === 'communication_pending')!.id;
    const response = await call('GET', `/v1/payments/${id}`, { key: keys.test_read });
    expect(response.body.data.retries).toEqual([]);
    expect(response.body.data.customer.id).toBe(response.body.data.customer_id);
  });

  it("answers 404 for another merchant's payment or an id of any shape that names none, 401 for a payment of the other environment", async () => {
    const id = stored[0]!.id;
    const other = await newMerchant();
    const foreign = await call('GET', `/v1/payments/${id}`, { key: other.keys.test_read });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
    const live = await call('GET', `/v1/payments/${id}`, { key: keys.live_admin });
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('invalid_api_key');
    const missing = await call('GET', '/v1/payments/pay_00000000000000000000000000', { key: keys.test_read });
    expect(missing.status).toBe(404);
    const malformed = await call('GET', '/v1/payments/nope', { key: keys.test_read });
    expect(malformed.status).toBe(404);
    expect(malformed.body.error).toMatchObject({ code: 'resource_not_found', message: "No such payment: 'nope'" });
    expect((await call('GET', `/v1/payments/${id}`, { key: keys.pub })).status).toBe(403);
  });
});

describe('list counters', () => {
  it('stay exact through every status change (totals without reading the payments)', async () => {
    for (const status of ['pending', 'retrying', 'recovered', 'terminal', 'communication_pending']) {
      const response = await list({ status, per_page: '1' });
      expect(response.body.pagination.total, status).toBe(stored.filter((p) => p.status === status).length);
    }
    expect(stored.some((p) => p.status === 'retrying')).toBe(true);
    expect(stored.some((p) => p.status === 'recovered')).toBe(true);
    expect(start.getTime()).toBeLessThan(Date.parse(stored[0]!.created_at));
  });
});

describe('GET /v1/payments/{id} after attempts', () => {
  it('adds the customer and the attempts to the payment', async () => {
    // Prepare: a soft decline whose scheduled retry runs against the sandbox and fails once.
    const merchant = await merchantWithProcessors();
    const { paymentId, customerId, event } = await recordFailure(merchant.paths, { code: 'insufficient_funds', email: 'ada@example.com', name: 'Ada L' });
    const before = (await storedPayments(merchant.tenant))[0]!;
    advanceClock((Date.parse(before.next_retry_at) - Date.now()) / 1000 + 60);
    await runDueJobs();
    // Act
    const response = await call('GET', `/v1/payments/${paymentId}`, { key: merchant.keys.test_read });
    // Assess
    expect(response.status).toBe(200);
    const payment = response.body.data;
    expect(payment).toMatchObject({
      id: paymentId,
      customer_id: customerId,
      amount: event.payment.amount,
      currency: 'eur',
      psp: 'acme',
      psp_payment_id: event.payment.id,
      decline_category: 'soft_retry',
      decline_subcategory: 'Balance',
      customer: { id: customerId, email: 'ada@example.com', name: 'Ada L' },
    });
    expect(Object.keys(payment.customer).sort()).toEqual(['email', 'id', 'name']);
    expect(payment.retries).toHaveLength(payment.retry_count);
    for (const retry of payment.retries) {
      expect(Object.keys(retry).sort()).toEqual(['attempt', 'attempted_at', 'decline_code', 'status']);
      expect(['failed', 'succeeded']).toContain(retry.status);
    }
    expect(payment).toHaveProperty('recovered_at');
    expect(payment).toHaveProperty('next_retry_at');
  });
});

describe('deep pages inside one busy day', () => {
  it('lands on the right entries from either end of a day, with and without a filter', async () => {
    // Prepare: fourteen failures within one day, three on days around it.
    const merchant = await merchantWithProcessors();
    const specs: FailureSpec[] = [
      { code: 'insufficient_funds', after: 3 * 86_400 },
      ...Array.from({ length: 14 }, (_, i): FailureSpec => ({ code: i % 3 === 0 ? 'expired_card' : 'insufficient_funds', after: i === 0 ? 2 * 86_400 : 30 })),
      { code: 'expired_card', after: 2 * 86_400 },
      { code: 'insufficient_funds', after: 86_400 },
    ];
    for (const spec of specs) await recordFailure(merchant.paths, spec);
    const all = (await storedPayments(merchant.tenant)).sort((a, b) => byKey(a.id, b.id));
    // Act and assess: every page size walks the same sequence in both orders.
    for (const filter of [{}, { status: 'pending' }, { decline_code: 'expired_card' }, { status: 'pending', currency: 'eur' }] as Record<string, string>[]) {
      const matching = all.filter((p) => Object.entries(filter).every(([key, value]) => p[key] === value)).map((p) => p.id);
      for (const perPage of [1, 2, 5]) {
        for (const order of ['asc', 'desc'] as const) {
          const { ids } = await readAllPages(merchant.keys.test_read, '/v1/payments', { ...filter, order }, perPage);
          expect(ids, JSON.stringify({ filter, perPage, order })).toEqual(order === 'asc' ? matching : [...matching].reverse());
        }
      }
    }
  });
});
