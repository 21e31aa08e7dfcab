import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant } from '../support/api.ts';
import { byKey, merchantWithProcessors, readAllPages, recordFailure, recordSuccess, storedCustomers, storedPayments } from '../support/recovery-data.ts';
import { genericFailure, postGeneric } from '../support/webhooks.ts';

type Stored = Record<string, any>;

let merchant: Awaited<ReturnType<typeof merchantWithProcessors>>;
let tenant: Tenant;
let stored: Stored[];
const ids: Record<string, string> = {};

const DAY = 86_400;

/** Customers made by real webhooks: every status, both processors, with and without open failures, a few days apart. */
beforeAll(async () => {
  merchant = await merchantWithProcessors();
  tenant = merchant.tenant;
  const { paths } = merchant;
  const fail = async (key: string, spec: Parameters<typeof recordFailure>[1]) => {
    const failure = await recordFailure(paths, { after: 1.5 * DAY, customer: `cust_${key}`, ...spec });
    ids[key] = failure.customerId;
    return failure;
  };
  await fail('ada', { name: 'Ada Lovelace', email: 'ada@analytical.example', code: 'insufficient_funds', amount: 1200 });
  await fail('grace', { name: 'Grace Hopper', email: 'grace@navy.example', code: 'expired_card' });
  await fail('alan', { name: 'Alan Turing', email: 'alan@bletchley.example', code: 'stolen_card', psp: 'zeta' });
  const edith = await fail('edith', { name: 'Édith Piaf', email: 'edith@chanson.example', code: 'insufficient_funds', amount: 4900, currency: 'EUR' });
  await recordSuccess(paths.acme, edith.event);
  const linus = await fail('linus', { name: 'Linus', email: 'linus@kernel.example', code: 'insufficient_funds', amount: 12_000, currency: 'EUR', psp: 'zeta' });
  await recordSuccess(paths.zeta, linus.event);
  const barbara = await fail('barbara', { name: 'barbara liskov', email: 'BARBARA@MIT.example', code: 'expired_card' });
  const canceled = await postGeneric(paths.acme, { ...barbara.event, id: `${barbara.event.id}_cancel`, type: 'subscription.canceled' });
  expect(canceled.status).toBe(200);
  await fail('nameless', { name: '', email: 'someone@example.org', code: 'weird_code' });
  await fail('byron', { name: 'Ada Byron', email: 'ada.byron@example.org', code: 'insufficient_funds', psp: 'zeta' });
  // Ada fails again: two open payments.
  await recordFailure(paths, { customer: 'cust_ada', name: 'Ada Lovelace', email: 'ada@analytical.example', code: 'processing_error', amount: 800, after: 3600 });
  // Search reads an index the event stream keeps.
  await drainEvents();
  stored = await storedCustomers(tenant);
}, 120_000);

const list = (query: Record<string, string>, key = merchant.keys.test_read) => call('GET', '/v1/customers', { key, query });

const totalRecovered = (c: Stored) => (c.primary_currency ? (c.recovered_amounts[c.primary_currency] ?? 0) : 0);
const sortKeys: Record<string, (c: Stored) => string> = {
  created_at: (c) => c.id,
  name: (c) => `${(c.name ?? '').toLowerCase()}\u0001${c.id}`,
  email: (c) => `${(c.email ?? '').toLowerCase()}\u0001${c.id}`,
  total_recovered: (c) => `${String(totalRecovered(c)).padStart(16, '0')}#${c.id}`,
};

/** Whether a word of the name, the email's local part or a dot- or plus-separated part of it, or its domain starts with `start`. */
function startsAWord(c: Stored, start: string): boolean {
  const [local = '', domain = ''] = (c.email ?? '').toLowerCase().split('@');
  const words = [...(c.name ?? '').toLowerCase().replace('é', 'e').split(/[^a-z0-9]+/), local, ...local.split(/[.+]/), domain];
  return words.some((word) => word.startsWith(start));
}

function expected(filter: (c: Stored) => boolean, sort = 'created_at', order = 'desc'): string[] {
  const sorted = stored.filter(filter).sort((a, b) => byKey(sortKeys[sort]!(a), sortKeys[sort]!(b)));
  return (order === 'asc' ? sorted : sorted.reverse()).map((c) => c.id);
}

describe('GET /v1/customers', () => {
  it('lists newest first with the §4.2 list fields', async () => {
    const response = await list({});
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 8, page: 1, per_page: 20, total_pages: 1 });
    expect(response.body.data.map((c: Stored) => c.id)).toEqual(expected(() => true));
    const ada = response.body.data.find((c: Stored) => c.id === ids.ada);
    expect(ada).toEqual({
      id: ids.ada,
      email: 'ada@analytical.example',
      name: 'Ada Lovelace',
      psp: 'acme',
      psp_customer_id: 'cust_ada',
      status: 'active',
      total_payments: 2,
      failed_payments: 2,
      recovered_payments: 0,
      total_recovered_amount: 0,
      total_recovered_currency: 'eur',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const edith = response.body.data.find((c: Stored) => c.id === ids.edith);
    expect(edith).toMatchObject({ status: 'recovered', failed_payments: 0, recovered_payments: 1, total_recovered_amount: 4900, total_recovered_currency: 'eur' });
    expect(response.body.data.find((c: Stored) => c.id === ids.barbara).status).toBe('churned');
  });

  it.each(['created_at', 'name', 'email', 'total_recovered'].flatMap((sort) => [[sort, 'asc'], [sort, 'desc']]))(
    'sorts by %s %s across pages (case-insensitive text, ties by creation)',
    async (sort, order) => {
      const { ids: listed, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { sort: sort!, order: order! }, 3);
      expect(total).toBe(8);
      expect(listed).toEqual(expected(() => true, sort, order));
    },
  );

  it('puts "barbara liskov" between Alan and Édith by name, and Édith after every ASCII name', async () => {
    const { ids: byName } = await readAllPages(merchant.keys.test_read, '/v1/customers', { sort: 'name', order: 'asc' }, 20);
    expect(byName.indexOf(ids.barbara!)).toBeGreaterThan(byName.indexOf(ids.alan!));
    expect(byName.at(-1)).toBe(ids.edith);
    expect(byName[0]).toBe(ids.nameless);
    expect(byName.indexOf(ids.ada!)).toBeLessThan(byName.indexOf(ids.alan!));
    expect(byName.indexOf(ids.byron!)).toBeLessThan(byName.indexOf(ids.ada!));
  });

  it.each<[string, Record<string, string>, (c: Stored) => boolean]>([
    ['status active', { status: 'active' }, (c) => c.status === 'active'],
    ['status recovered', { status: 'recovered' }, (c) => c.status === 'recovered'],
    ['status churned', { status: 'churned' }, (c) => c.status === 'churned'],
    ['psp', { psp: 'zeta' }, (c) => c.psp === 'zeta'],
    ['has_failed_payment=true', { has_failed_payment: 'true' }, (c) => c.failed_payments > 0],
    ['has_failed_payment=false', { has_failed_payment: 'false' }, (c) => c.failed_payments === 0],
    ['status and psp', { status: 'active', psp: 'acme' }, (c) => c.status === 'active' && c.psp === 'acme'],
    ['status and failing', { status: 'active', has_failed_payment: 'false' }, (c) => c.status === 'active' && c.failed_payments === 0],
    ['unknown psp', { psp: 'nobody' }, () => false],
  ])('filters by %s in every order', async (_, filter, predicate) => {
    for (const sort of ['created_at', 'name', 'email', 'total_recovered']) {
      const { ids: listed, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { ...filter, sort, order: 'asc' }, 2);
      expect(listed, sort).toEqual(expected(predicate, sort, 'asc'));
      expect(total).toBe(listed.length);
    }
  });

  it('filters by creation time (exclusive bounds), alone and with other filters', async () => {
    const byCreation = [...stored].sort((a, b) => byKey(a.id, b.id));
    const lower = byCreation[1]!.created_at as string;
    const upper = byCreation[6]!.created_at as string;
    const cases: [Record<string, string>, (c: Stored) => boolean][] = [
      [{ created_after: lower }, (c) => c.created_at > lower],
      [{ created_before: upper }, (c) => c.created_at < upper],
      [{ created_after: lower, created_before: upper }, (c) => c.created_at > lower && c.created_at < upper],
      [{ created_after: lower, status: 'active' }, (c) => c.created_at > lower && c.status === 'active'],
      [{ created_after: lower, has_failed_payment: 'true' }, (c) => c.created_at > lower && c.failed_payments > 0],
    ];
    for (const [filter, predicate] of cases) {
      for (const sort of ['created_at', 'email']) {
        const { ids: listed } = await readAllPages(merchant.keys.test_read, '/v1/customers', { ...filter, sort, order: 'desc' }, 2);
        expect(listed, JSON.stringify(filter)).toEqual(expected(predicate, sort, 'desc'));
      }
    }
  });

  it.each<[string, string, string[]]>([
    ['a name part', 'ada', ['ada', 'byron']],
    ['any case', 'ADA', ['ada', 'byron']],
    ['the start of a last name', 'lovel', ['ada']],
    ['not the middle of a word', 'ovela', []],
    ['an email domain', 'bletchley', ['alan']],
    ['a whole email domain', 'example.org', ['nameless', 'byron']],
    ['a part of an email', 'byr', ['byron']],
    ['a whole local part', 'ada.byron', ['byron']],
    ['a whole email', 'ada.byron@example.org', ['byron']],
    ['two words, in either order', 'lovelace ADA', ['ada']],
    ['two word starts', 'ad by', ['byron']],
    ['words that no one has together', 'ada turing', []],
    ['an accent the name does not have', 'lïnus', ['linus']],
    ['an upper-case email', 'barbara@mit', ['barbara']],
    ['a name with an accent', 'ÉDITH', ['edith']],
    ['an email of a nameless customer', 'someone@', ['nameless']],
    ['nothing', 'zzz-no-one', []],
  ])('searches %s (query=%s)', async (_, query, keysExpected) => {
    const response = await list({ query, sort: 'name', order: 'asc' });
    expect(response.status).toBe(200);
    const want = expected((c) => keysExpected.some((key) => ids[key] === c.id), 'name', 'asc');
    expect(response.body.data.map((c: Stored) => c.id)).toEqual(want);
    expect(response.body.pagination.total).toBe(want.length);
  });

  it('combines search with filters, other orders and pages', async () => {
    const failing = await list({ query: 'ada', has_failed_payment: 'true', psp: 'zeta' });
    expect(failing.body.data.map((c: Stored) => c.id)).toEqual([ids.byron]);
    for (const sort of ['created_at', 'name', 'email', 'total_recovered']) {
      const { ids: found, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { query: 'e', sort, order: 'desc' }, 2);
      expect(found, sort).toEqual(expected((c) => startsAWord(c, 'e'), sort, 'desc'));
      expect(total).toBe(found.length);
    }
    const recent = await list({ query: 'a', created_after: stored.find((c) => c.id === ids.linus)!.created_at, sort: 'total_recovered' });
    expect(recent.body.data.map((c: Stored) => c.id)).toEqual(expected((c) => startsAWord(c, 'a') && c.id > ids.linus!, 'total_recovered', 'desc'));
    const active = await list({ query: 'a', status: 'active', sort: 'name', order: 'asc' });
    expect(active.body.data.map((c: Stored) => c.id)).toEqual(expected((c) => startsAWord(c, 'a') && c.status === 'active', 'name', 'asc'));
  });

  it.each([
    ['status', 'lost'],
    ['sort', 'amount'],
    ['order', 'sideways'],
    ['has_failed_payment', 'yes'],
    ['query', ''],
    ['query', 'x'.repeat(101)],
    ['created_before', '2026-13-01T00:00:00Z'],
    ['psp', 'ACME'],
    ['page', '0'],
    ['per_page', '101'],
    ['email', 'ada@analytical.example'],
  ])('refuses %s=%s with 400 naming it', async (param, value) => {
    const response = await list({ [param]: value });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('is read-scoped and tenant-bound', async () => {
    expect((await list({}, merchant.keys.pub)).status).toBe(403);
    expect((await list({}, merchant.keys.test_write)).status).toBe(200);
    const other = await newMerchant();
    expect((await list({ query: 'ada' }, other.keys.test_read)).body.pagination.total).toBe(0);
    expect((await list({}, merchant.keys.live_admin)).body.pagination.total).toBe(0);
  });
});

describe('GET /v1/customers/{id}', () => {
  it('adds subscriptions, payment method and a recovery summary counted from the payments', async () => {
    // Prepare: one customer with a recovery, a terminal failure and two open ones.
    const { paths, keys } = await merchantWithProcessors();
    const recovered = await recordFailure(paths, { customer: 'cust_mix', code: 'insufficient_funds', amount: 2500, currency: 'USD' });
    await recordSuccess(paths.acme, recovered.event);
    await recordFailure(paths, { customer: 'cust_mix', code: 'stolen_card', amount: 9000, currency: 'USD', after: DAY });
    await recordFailure(paths, { customer: 'cust_mix', code: 'insufficient_funds', amount: 2500, currency: 'USD', after: DAY });
    const last = await recordFailure(paths, { customer: 'cust_mix', code: 'expired_card', amount: 2500, currency: 'USD', after: DAY });
    // Act
    const response = await call('GET', `/v1/customers/${last.customerId}`, { key: keys.test_read });
    // Assess
    expect(response.status).toBe(200);
    const customer = response.body.data;
    expect(customer).toMatchObject({
      id: last.customerId,
      psp_customer_id: 'cust_mix',
      status: 'active',
      total_payments: 4,
      failed_payments: 2,
      recovered_payments: 1,
      total_recovered_amount: 2500,
      total_recovered_currency: 'usd',
      payment_method: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2027 },
      recovery_summary: {
        total_failures: 4,
        total_recovered: 1,
        total_terminal: 1,
        total_pending: 2,
        recovery_rate: 0.25,
        total_recovered_amount: 2500,
        currency: 'usd',
      },
    });
    expect(customer.subscriptions.length).toBeGreaterThan(0);
    for (const subscription of customer.subscriptions) {
      expect(Object.keys(subscription).sort()).toEqual(['amount', 'currency', 'current_period_end', 'id', 'plan', 'psp_subscription_id', 'status']);
      expect(subscription.id).toMatch(/^sub_/);
    }
    const listFields = Object.keys((await list({}, keys.test_read)).body.data[0]);
    expect(Object.keys(customer).sort()).toEqual([...listFields, 'subscriptions', 'payment_method', 'recovery_summary'].sort());
  });

  it('gives a customer without recoveries a zero rate, and agrees with the list fields', async () => {
    const response = await call('GET', `/v1/customers/${ids.ada}`, { key: merchant.keys.test_read });
    expect(response.body.data.recovery_summary).toEqual({
      total_failures: 2,
      total_recovered: 0,
      total_terminal: 0,
      total_pending: 2,
      recovery_rate: 0,
      total_recovered_amount: 0,
      currency: 'eur',
    });
    for (const key of Object.keys(ids)) {
      const { data } = (await call('GET', `/v1/customers/${ids[key]}`, { key: merchant.keys.test_read })).body;
      expect(data.recovery_summary.total_failures, key).toBe(data.total_payments);
      expect(data.recovery_summary.total_pending, key).toBe(data.failed_payments);
      expect(data.recovery_summary.total_recovered, key).toBe(data.recovered_payments);
      expect(data.recovery_summary.total_recovered_amount, key).toBe(data.total_recovered_amount);
    }
  });

  it('keeps counts and summary in step when a late event turns an unclassified failure terminal', async () => {
    const { paths, keys } = await merchantWithProcessors();
    const first = genericFailure({ code: null, customerId: 'cust_late', paymentId: 'chg_late' });
    const created = await postGeneric(paths.acme, first);
    await postGeneric(paths.acme, { ...first, id: `${first.id}_again`, payment: { ...first.payment, decline_code: 'stolen_card' } });
    const { data } = (await call('GET', `/v1/customers/${created.body.customer_id}`, { key: keys.test_read })).body;
    expect(data).toMatchObject({ failed_payments: 0, recovery_summary: { total_terminal: 1, total_pending: 0 } });
    const notFailing = await call('GET', '/v1/customers', { key: keys.test_read, query: { has_failed_payment: 'false' } });
    expect(notFailing.body.data.map((c: Stored) => c.id)).toEqual([created.body.customer_id]);
  });

  it('answers 404 for an unknown or foreign customer, 401 across environments, 403 without the read scope', async () => {
    const other = await newMerchant();
    expect((await call('GET', `/v1/customers/${ids.ada}`, { key: other.keys.test_read })).status).toBe(404);
    const live = await call('GET', `/v1/customers/${ids.ada}`, { key: merchant.keys.live_admin });
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('invalid_api_key');
    expect((await call('GET', '/v1/customers/cus_00000000000000000000000000', { key: merchant.keys.test_read })).status).toBe(404);
    expect((await call('GET', '/v1/customers/ada', { key: merchant.keys.test_read })).status).toBe(404);
    expect((await call('GET', `/v1/customers/${ids.ada}`, { key: merchant.keys.pub })).status).toBe(403);
  });
});

describe('GET /v1/customers/{id}/payments', () => {
  it('lists the customer\'s payments with the §4.2 item fields, filtered, sorted and paged', async () => {
    const payments = (await storedPayments(tenant)).filter((p) => p.customer_id === ids.ada);
    expect(payments).toHaveLength(2);
    const path = `/v1/customers/${ids.ada}/payments`;
    const response = await call('GET', path, { key: merchant.keys.test_read });
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 2, page: 1, per_page: 20, total_pages: 1 });
    expect(response.body.data.map((p: Stored) => p.id)).toEqual(payments.map((p) => p.id).sort().reverse());
    expect(Object.keys(response.body.data[0]).sort()).toEqual(
      ['id', 'amount', 'currency', 'status', 'decline_code', 'decline_category', 'retry_count', 'created_at', 'recovered_at'].sort(),
    );
    const byAmount = await call('GET', path, { key: merchant.keys.test_read, query: { sort: 'amount', order: 'asc' } });
    expect(byAmount.body.data.map((p: Stored) => p.amount)).toEqual([800, 1200]);
    const second = await call('GET', path, { key: merchant.keys.test_read, query: { per_page: '1', page: '2' } });
    expect(second.body).toMatchObject({ data: [{ id: payments.map((p) => p.id).sort()[0] }], pagination: { total: 2, page: 2, per_page: 1, total_pages: 2 } });
    const recovered = await call('GET', `/v1/customers/${ids.edith}/payments`, { key: merchant.keys.test_read, query: { status: 'recovered' } });
    expect(recovered.body.data).toEqual([expect.objectContaining({ status: 'recovered', amount: 4900, recovered_at: expect.any(String) })]);
    const none = await call('GET', `/v1/customers/${ids.edith}/payments`, { key: merchant.keys.test_read, query: { status: 'pending' } });
    expect(none.body.pagination.total).toBe(0);
  });

  it('refuses bad parameters and answers 404 / 401 like the customer itself', async () => {
    const path = `/v1/customers/${ids.ada}/payments`;
    for (const [param, value] of [['status', 'lost'], ['sort', 'name'], ['customer_id', ids.ada!], ['per_page', '500']]) {
      const response = await call('GET', path, { key: merchant.keys.test_read, query: { [param!]: value! } });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe(param);
    }
    expect((await call('GET', '/v1/customers/cus_00000000000000000000000000/payments', { key: merchant.keys.test_read })).status).toBe(404);
    const other = await newMerchant();
    expect((await call('GET', path, { key: other.keys.test_read })).status).toBe(404);
    expect((await call('GET', path, { key: merchant.keys.live_admin })).status).toBe(401);
    expect((await call('GET', path, { key: merchant.keys.pub })).status).toBe(403);
  });
});

describe('customer counters', () => {
  it('give the same totals as counting the customers', async () => {
    advanceClock(60);
    for (const [filter, predicate] of [
      [{}, () => true],
      [{ status: 'active' }, (c: Stored) => c.status === 'active'],
      [{ psp: 'acme' }, (c: Stored) => c.psp === 'acme'],
      [{ has_failed_payment: 'true' }, (c: Stored) => c.failed_payments > 0],
    ] as const) {
      expect((await list({ ...filter, per_page: '1' })).body.pagination.total).toBe(stored.filter(predicate).length);
    }
  });
});
