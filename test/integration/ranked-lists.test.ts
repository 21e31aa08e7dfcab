import { beforeAll, describe, expect, it } from 'vitest';
import { DAY_LEAF } from '../../shared/store/list-counters.ts';
import { RANK_LEAF } from '../../shared/store/rank-counters.ts';
import { advanceClock, call } from '../support/api.ts';
import { itemsRead } from '../support/items-read.ts';
import { byKey, merchantWithProcessors, readAllPages, recordFailure, recordSuccess, storedCustomers, storedPayments, type FailureSpec } from '../support/recovery-data.ts';

type Stored = Record<string, any>;

describe('payments sorted by amount, deep pages from rank counters', () => {
  let merchant: Awaited<ReturnType<typeof merchantWithProcessors>>;
  let expected: string[];

  // More payments of one amount than a leaf holds, spread over days (ties split by day), a class with
  // many amounts, and lone amounts on either side.
  beforeAll(async () => {
    merchant = await merchantWithProcessors();
    const specs: FailureSpec[] = [
      ...Array.from({ length: RANK_LEAF + 5 }, (_, i): FailureSpec => ({ amount: 2900, after: i % 9 === 0 ? 86_400 : 60 })),
      ...Array.from({ length: 10 }, (_, i): FailureSpec => ({ amount: 2901 + (i % 7), after: 30 })),
      { amount: 1, after: 30 },
      { amount: 0, after: 30 },
      { amount: 99_999_999, after: 30 },
      ...Array.from({ length: 8 }, (_, i): FailureSpec => ({ amount: 500 + i * 1000, after: 3_600 })),
    ];
    for (const spec of specs) await recordFailure(merchant.paths, { ...spec, code: 'insufficient_funds' });
    const stored: Stored[] = await storedPayments(merchant.tenant);
    const keyOf = (p: Stored) => `${String(p.amount).padStart(16, '0')}#${p.id}`;
    expected = stored.sort((a, b) => byKey(keyOf(a), keyOf(b))).map((p) => p.id);
  }, 300_000);

  it('returns every payment once, in amount then creation order, at any page size and in both orders', async () => {
    for (const perPage of [7, 25, 100]) {
      for (const order of ['asc', 'desc'] as const) {
        const { ids, total } = await readAllPages(merchant.keys.test_read, '/v1/payments', { sort: 'amount', order }, perPage);
        expect(total).toBe(expected.length);
        expect(ids, `${perPage} ${order}`).toEqual(order === 'asc' ? expected : [...expected].reverse());
      }
    }
  }, 120_000);

  it('reads at most 2 × per_page + 50 items for any page', async () => {
    const perPage = 5;
    for (let page = 1; page <= Math.ceil(expected.length / perPage); page += 3) {
      let body: any;
      const read = await itemsRead(async () => {
        body = (await call('GET', '/v1/payments', { key: merchant.keys.test_read, query: { sort: 'amount', order: 'asc', page: String(page), per_page: String(perPage) } })).body;
      });
      expect(body.data.map((p: Stored) => p.id)).toEqual(expected.slice((page - 1) * perPage, page * perPage));
      // The key lookup and the rate-limit write are counted too: a few items over the list's own.
      expect(read, `page ${page}`).toBeLessThanOrEqual(2 * perPage + 50 + 3);
    }
  }, 120_000);

  it('places an amount range in the counts: exact totals and every page, inside a tie and across classes', async () => {
    const stored: Stored[] = await storedPayments(merchant.tenant);
    const amounts = new Map(stored.map((p) => [p.id, p.amount as number]));
    const ranges: [number | undefined, number | undefined][] = [[2900, 2903], [2901, 2905], [0, 1], [2903, undefined], [undefined, 2900], [3000, 3500], [1, 99_999_999]];
    for (const [min, max] of ranges) {
      const query: Record<string, string> = { sort: 'amount', ...(min === undefined ? {} : { amount_min: String(min) }), ...(max === undefined ? {} : { amount_max: String(max) }) };
      const inRange = expected.filter((id) => (min === undefined || amounts.get(id)! >= min) && (max === undefined || amounts.get(id)! <= max));
      for (const order of ['asc', 'desc'] as const) {
        const { ids, total } = await readAllPages(merchant.keys.test_read, '/v1/payments', { ...query, order }, 4);
        expect(total, JSON.stringify(query)).toBe(inRange.length);
        expect(ids, JSON.stringify({ query, order })).toEqual(order === 'asc' ? inRange : [...inRange].reverse());
      }
    }
  }, 120_000);

  it('reads through the index, with the same results, when a filter narrows the list', async () => {
    const stored: Stored[] = await storedPayments(merchant.tenant);
    const pending = new Set(stored.filter((p) => p.status === 'pending').map((p) => p.id));
    const { ids, total } = await readAllPages(merchant.keys.test_read, '/v1/payments', { sort: 'amount', order: 'desc', status: 'pending' }, 11);
    expect(total).toBe(pending.size);
    expect(ids).toEqual([...expected].reverse().filter((id) => pending.has(id)));
  }, 60_000);
});

describe('customers sorted by total recovered, deep pages from rank counters', () => {
  let merchant: Awaited<ReturnType<typeof merchantWithProcessors>>;
  const failures: Awaited<ReturnType<typeof recordFailure>>[] = [];

  const recovered = (c: Stored) => (c.primary_currency ? (c.recovered_amounts[c.primary_currency] ?? 0) : 0);
  async function expectedOrder(): Promise<string[]> {
    const keyOf = (c: Stored) => `${String(recovered(c)).padStart(16, '0')}#${c.id}`;
    return (await storedCustomers(merchant.tenant)).sort((a, b) => byKey(keyOf(a), keyOf(b))).map((c) => c.id);
  }
  async function expectPagesToMatch(label: string) {
    const wanted = await expectedOrder();
    for (const [perPage, order] of [[4, 'asc'], [9, 'desc'], [100, 'asc']] as const) {
      const { ids, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { sort: 'total_recovered', order }, perPage);
      expect(total, label).toBe(wanted.length);
      expect(ids, `${label}: ${perPage} ${order}`).toEqual(order === 'asc' ? wanted : [...wanted].reverse());
    }
  }

  // More customers with nothing recovered than a leaf holds (ties split by the day they were created),
  // and a few recovered ones.
  beforeAll(async () => {
    merchant = await merchantWithProcessors();
    for (let i = 0; i < RANK_LEAF + 20; i++) {
      const amount = i % 9 === 0 ? 1000 + i : 2500;
      failures.push(await recordFailure(merchant.paths, { customer: `cust_rank_${i}`, amount, code: 'insufficient_funds', after: i % 10 === 0 ? 86_400 : 120 }));
    }
    for (const failure of failures.filter((_, i) => i % 9 === 0)) await recordSuccess(merchant.paths.acme, failure.event);
  }, 300_000);

  it('returns every customer once, by total recovered then creation, at any page size and in both orders', async () => {
    await expectPagesToMatch('as created');
  }, 120_000);

  it('moves a customer when their total grows and drops one that is erased', async () => {
    // A customer with nothing recovered so far is paid: they leave the tie at zero for the top.
    await recordSuccess(merchant.paths.acme, failures[5]!.event);
    // A second payment of a recovered customer, recovered too: their total grows inside the class.
    const again = await recordFailure(merchant.paths, { customer: 'cust_rank_9', amount: 777, code: 'insufficient_funds', after: 60 });
    await recordSuccess(merchant.paths.acme, again.event);
    await expectPagesToMatch('after recoveries');
    for (const failure of [failures[18]!, failures[30]!]) {
      const erased = await call('DELETE', `/v1/customers/${failure.customerId}`, { key: merchant.keys.test_admin });
      expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
    }
    await expectPagesToMatch('after erasures');
  }, 120_000);
});

describe('creation order, deep pages inside a busy day (split into hours)', () => {
  let merchant: Awaited<ReturnType<typeof merchantWithProcessors>>;

  // More failures in one UTC day than a day bucket holds before it is split, every 10 minutes from
  // 01:00, some recovered (other statuses), and a few on the days around it.
  beforeAll(async () => {
    merchant = await merchantWithProcessors();
    await recordFailure(merchant.paths, { code: 'insufficient_funds', after: 86_400 });
    const toNextDay = (86_400_000 - (advanceClock(0).getTime() % 86_400_000)) / 1000 + 3_600;
    const busy: Awaited<ReturnType<typeof recordFailure>>[] = [];
    for (let i = 0; i < DAY_LEAF + 15; i++) busy.push(await recordFailure(merchant.paths, { code: i % 4 === 0 ? 'expired_card' : 'insufficient_funds', after: i === 0 ? toNextDay : 600 }));
    for (const failure of busy.filter((_, i) => i % 5 === 1)) await recordSuccess(merchant.paths.acme, failure.event);
    await recordFailure(merchant.paths, { code: 'insufficient_funds', after: 2 * 86_400 });
  }, 300_000);

  it('returns every payment and customer once, in order, unfiltered, by status and sorted by status', async () => {
    const payments = (await storedPayments(merchant.tenant)).sort((a, b) => byKey(a.id, b.id));
    const statusOrder = (p: Stored) => `${p.status}#${p.id}`;
    const cases: [string, Record<string, string>, string[]][] = [
      ['/v1/payments', {}, payments.map((p) => p.id)],
      ['/v1/payments', { status: 'pending' }, payments.filter((p) => p.status === 'pending').map((p) => p.id)],
      ['/v1/payments', { sort: 'status' }, [...payments].sort((a, b) => byKey(statusOrder(a), statusOrder(b))).map((p) => p.id)],
      ['/v1/customers', {}, (await storedCustomers(merchant.tenant)).sort((a, b) => byKey(a.id, b.id)).map((c) => c.id)],
    ];
    for (const [path, filter, ascending] of cases) {
      for (const [perPage, order] of [[7, 'asc'], [6, 'desc']] as const) {
        const { ids, total } = await readAllPages(merchant.keys.test_read, path, { ...filter, order }, perPage);
        expect(total).toBe(ascending.length);
        expect(ids, JSON.stringify({ path, filter, perPage, order })).toEqual(order === 'asc' ? ascending : [...ascending].reverse());
      }
    }
  }, 120_000);

  it('reads the counters and one hour of the busy day for a page in its middle', async () => {
    const payments = (await storedPayments(merchant.tenant)).sort((a, b) => byKey(a.id, b.id)).map((p) => p.id);
    const perPage = 3;
    const page = Math.floor(payments.length / perPage / 2);
    let body: any;
    const read = await itemsRead(async () => {
      body = (await call('GET', '/v1/payments', { key: merchant.keys.test_read, query: { order: 'asc', page: String(page), per_page: String(perPage) } })).body;
    });
    expect(body.data.map((p: Stored) => p.id)).toEqual(payments.slice((page - 1) * perPage, page * perPage));
    // Month and day counter items (4 each, a month more if the days straddle two), a skip inside one
    // hour (six payments), the page, the key lookup: skipping through the whole day would read ~40 more.
    expect(read).toBeLessThanOrEqual(30);
  }, 60_000);
});
