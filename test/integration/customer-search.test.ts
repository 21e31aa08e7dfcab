import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchIndexing } from '../../shared/model/customer-search.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { idTime } from '../../shared/ids.ts';
import { recountSearchIndex, searchPartition, tenantsWithSearchRecords } from '../../shared/store/customer-search.ts';
import { countPlace } from '../../shared/store/search-counts.ts';
import { tenantPk } from '../../shared/store/keys.ts';
import { runtime } from '../../shared/runtime.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { advanceClock, call, drainEvents } from '../support/api.ts';
import { itemsRead } from '../support/items-read.ts';
import { byKey, merchantWithProcessors, readAllPages, recordFailure, storedCustomers } from '../support/recovery-data.ts';
import { scanTable, tenantItems } from '../support/tenant-items.ts';
import { genericFailure, postGeneric } from '../support/webhooks.ts';

/**
 * Issue 26: customer search reads an index the event stream keeps (customer.created, customer.renamed),
 * as Stripe's search lags its writes. Results, order and totals through the API once the stream has
 * run; the index items themselves read straight from the table.
 */

type Merchant = Awaited<ReturnType<typeof merchantWithProcessors>>;

/** Every search item (entries and counts) of a tenant, from a scan: the index's partitions are the prefixes. */
async function searchItems(tenant: Tenant) {
  const partition = `${tenantPk(tenant)}#SEARCH#`;
  return (await scanTable()).filter((item) => (item.pk as string).startsWith(partition)) as Record<string, any>[];
}

/** The index is exactly what the stored customers are found by, and each count is its partition's entries. */
async function expectIndexMatchesCustomers(tenant: Tenant) {
  const items = await searchItems(tenant);
  const entries = items.filter((item) => item.entity === 'search_entry');
  const expected = (await storedCustomers(tenant)).flatMap((customer) =>
    searchIndexing(customer.name, customer.email).prefixes.map((prefix) => `${searchPartition(tenant, prefix)} ${customer.id}`),
  );
  expect(entries.map((entry) => `${entry.pk} ${entry.sk}`).sort()).toEqual(expected.sort());
  // Each month item counts its partition's entries of customers created that month, and each quarter day's.
  const expectedCounts = new Map<string, number>();
  const add = (key: string) => expectedCounts.set(key, (expectedCounts.get(key) ?? 0) + 1);
  for (const entry of entries) {
    const { month, part } = countPlace(idTime(entry.sk)!.getTime());
    add(`${entry.pk} #COUNT#${month} matches`);
    add(`${entry.pk} #COUNT#${month} ${part}`);
  }
  const counts = items.filter((item) => item.entity === 'search_count');
  const stored = counts.flatMap((count) =>
    Object.entries(count)
      .filter(([name, value]) => (name === 'matches' || /^\d{3}$/.test(name)) && value !== 0)
      .map(([name, value]) => [`${count.pk} ${count.sk} ${name}`, value]),
  );
  expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(expectedCounts));
  return items;
}

/** Runs `work`, handing each TransactWriteItems the shared client sends to `onTransaction` (awaited) before it goes. */
async function watchingTransactions(onTransaction: (items: Record<string, any>[]) => unknown, work: () => Promise<unknown>) {
  const name = `transactions${Math.random()}`;
  runtime.db.middlewareStack.add(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      const items = args.input?.TransactItems as Record<string, any>[] | undefined;
      if (items) await onTransaction(items);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    runtime.db.middlewareStack.remove(name);
  }
}

/** The TransactWriteItems sent while `work` runs, each as its items' partition and sort keys. */
async function transactionsDuring(work: () => Promise<unknown>): Promise<string[][]> {
  const seen: string[][] = [];
  await watchingTransactions((items) => seen.push(items.map((item) => { const write = Object.values(item)[0]; const key = write.Item ?? write.Key; return `${key.pk} ${key.sk}`; })), work);
  return seen;
}

/** Runs `interloper` once, just before the first transaction `matching` is sent, then lets that transaction go on. */
async function interleaved(matching: (keys: string) => boolean, interloper: () => Promise<unknown>, work: () => Promise<unknown>) {
  let fired = false;
  await watchingTransactions(async (items) => {
    if (fired || !matching(JSON.stringify(items))) return;
    fired = true;
    await interloper();
  }, work);
  expect(fired).toBe(true);
}

const isIndexItem = (key: string) => key.includes('#SEARCH#') || key.includes(' CUSTSEARCH#');

const search = (merchant: Merchant, query: Record<string, string>) => call('GET', '/v1/customers', { key: merchant.keys.test_read, query });
const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((customer) => customer.id);

/** Renames through the real webhook: a failure whose customer carries a new name and email (the index follows once the stream runs). */
async function rename(merchant: Merchant, customer: string, name: string, email: string) {
  const event = genericFailure({ customerId: customer, email });
  event.customer.name = name;
  const response = await postGeneric(merchant.paths.acme, event);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.customer_id as string;
}

/** The stream's records of a customer's index events (customer.created, customer.renamed), oldest first, as stored. */
async function indexEvents(merchant: Merchant, customerId: string) {
  const events = await tenantItems(merchant.tenant, 'EVENT#');
  return events.filter((event) => (event.type === 'customer.created' || event.type === 'customer.renamed') && event.data.id === customerId);
}

describe('customer search index', () => {
  let merchant: Merchant;
  const made: { id: string; name: string }[] = [];

  beforeAll(async () => {
    merchant = await merchantWithProcessors();
    // 23 customers share the word "Noor", so pages of 5 cross several; names sort apart from creation.
    for (let i = 0; i < 23; i++) {
      const name = `Noor ${String.fromCharCode(122 - i)}${i % 2 === 0 ? 'ä' : 'a'}kim`;
      const failure = await recordFailure(merchant.paths, { customer: `cust_noor_${i}`, name, email: `n${i}.noor+ops@firm${i % 3}.example`, after: 60 });
      made.push({ id: failure.customerId, name });
    }
    await recordFailure(merchant.paths, { customer: 'cust_other', name: 'Zoë Nordstrom', email: 'zoe@firm0.example', after: 60 });
    await drainEvents();
  }, 120_000);

  it('pages a common word in creation, name and email order, with its total, every customer once', async () => {
    const stored = (await storedCustomers(merchant.tenant)).filter((customer) => customer.name.startsWith('Noor'));
    expect(stored).toHaveLength(23);
    const orders: Record<string, (c: Record<string, any>) => string> = {
      created_at: (c) => c.id,
      name: (c) => `${c.name.toLowerCase()}\u0001${c.id}`,
      email: (c) => `${c.email.toLowerCase()}\u0001${c.id}`,
      total_recovered: (c) => `${'0'.repeat(16)}#${c.id}`,
    };
    for (const [sort, key] of Object.entries(orders)) {
      for (const order of ['asc', 'desc']) {
        const { ids: listed, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { query: 'NOOR', sort, order }, 5);
        const want = [...stored].sort((a, b) => byKey(key(a), key(b))).map((c) => c.id);
        expect(total).toBe(23);
        expect(listed, `${sort} ${order}`).toEqual(order === 'asc' ? want : want.reverse());
      }
    }
  });

  it('matches accents and case either way, email parts and domains, and words together', async () => {
    const zAkim = made[0]!; // "Noor zäkim"
    expect(ids(await search(merchant, { query: 'ZAK' }))).toEqual([zAkim.id]);
    expect(ids(await search(merchant, { query: 'zäk' }))).toEqual([zAkim.id]);
    expect((await search(merchant, { query: 'noor ä', per_page: '100' })).body.pagination.total).toBe(0);
    expect((await search(merchant, { query: 'ops' })).body.pagination.total).toBe(23);
    expect((await search(merchant, { query: 'firm0.example' })).body.pagination.total).toBe(9);
    expect((await search(merchant, { query: 'n4.noor+ops@firm1.example' })).body.data.map((c: any) => c.name)).toEqual([made[4]!.name]);
    expect((await search(merchant, { query: 'noor+ops', per_page: '1' })).body.pagination.total).toBe(23);
    expect(ids(await search(merchant, { query: 'nor zo' }))).toHaveLength(1);
    expect((await search(merchant, { query: 'no', per_page: '1' })).body.pagination.total).toBe(24);
  });

  it('makes a new customer searchable once the stream has run, with no index item in any failure of theirs', async () => {
    const customer = `cust_quiet_${randomBytes(4).toString('hex')}`;
    const spec = { customer, name: 'Ulla Quietly', email: 'ulla@quiet.example' };
    const created = await transactionsDuring(() => recordFailure(merchant.paths, spec));
    expect(created).toHaveLength(1);
    expect(created.flat().filter(isIndexItem)).toEqual([]);
    expect(ids(await search(merchant, { query: 'quietly' }))).toEqual([]);
    const indexed = await transactionsDuring(drainEvents);
    expect(indexed.filter((keys) => keys.some(isIndexItem))).toHaveLength(1);
    expect(ids(await search(merchant, { query: 'quietly' }))).toHaveLength(1);
    const again = await transactionsDuring(async () => {
      await recordFailure(merchant.paths, spec);
      await drainEvents();
    });
    expect(again.flat().filter(isIndexItem)).toEqual([]);
    expect(again.flat().some((key) => key.includes(' PAYMENT#'))).toBe(true);
  });

  it('changes nothing on a redelivered or out-of-order stream record: the index follows the customer as stored', async () => {
    const customer = `cust_late_${randomBytes(4).toString('hex')}`;
    const first = await recordFailure(merchant.paths, { customer, name: 'Lotte Early', email: 'lotte@early.example' });
    await rename(merchant, customer, 'Lotte Later', 'lotte@later.example');
    await drainEvents();
    const records = await indexEvents(merchant, first.customerId);
    expect(records.map((record) => record.type)).toEqual(['customer.created', 'customer.renamed']);
    // Out of order: the rename's record before the creation's.
    localRuntime().events.capture([...records].reverse());
    const outOfOrder = await transactionsDuring(drainEvents);
    expect(outOfOrder.flat().filter(isIndexItem)).toEqual([]);
    expect(ids(await search(merchant, { query: 'later' }))).toEqual([first.customerId]);
    expect(ids(await search(merchant, { query: 'early' }))).toEqual([]);
    // Redelivered: both records again, after the index caught up.
    localRuntime().events.capture(records);
    const redelivered = await transactionsDuring(drainEvents);
    expect(redelivered.flat().filter(isIndexItem)).toEqual([]);
    await expectIndexMatchesCustomers(merchant.tenant);
  });

  it('indexes the latest name when the records arrive before the customer was indexed at all, in any order', async () => {
    const customer = `cust_swap_${randomBytes(4).toString('hex')}`;
    await drainEvents();
    const first = await recordFailure(merchant.paths, { customer, name: 'Otto Before', email: 'otto@before.example' });
    await rename(merchant, customer, 'Otto After', 'otto@after.example');
    const pending = await localRuntime().events.take();
    const isIndexEvent = (item: Record<string, unknown>) => item.type === 'customer.created' || item.type === 'customer.renamed';
    expect(pending.filter(isIndexEvent).map((item) => item.type)).toEqual(['customer.created', 'customer.renamed']);
    localRuntime().events.capture([...pending.filter(isIndexEvent).reverse(), ...pending.filter((item) => !isIndexEvent(item))]);
    const run = await transactionsDuring(drainEvents);
    expect(run.filter((keys) => keys.some(isIndexItem))).toHaveLength(1);
    expect(ids(await search(merchant, { query: 'otto after' }))).toEqual([first.customerId]);
    expect(ids(await search(merchant, { query: 'before' }))).toEqual([]);
    await expectIndexMatchesCustomers(merchant.tenant);
  });

  it("finds a whole domain's customers from its own key, with their total, in every order", async () => {
    const firm1 = (await storedCustomers(merchant.tenant)).filter((customer) => customer.email?.endsWith('@firm1.example'));
    expect(firm1.length).toBeGreaterThan(5);
    for (const sort of ['created_at', 'name', 'email']) {
      const { ids: listed, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { query: 'FIRM1.example', sort, order: 'asc' }, 3);
      expect(total).toBe(firm1.length);
      expect([...listed].sort()).toEqual(firm1.map((customer) => customer.id).sort());
    }
    expect(ids(await search(merchant, { query: 'n4.noor+ops@firm1.example' }))).toEqual([made[4]!.id]);
    expect((await search(merchant, { query: 'firm1.example noor' })).body.pagination.total).toBe(firm1.length);
  });

  it('keeps the index in step with renames, including concurrent ones, and never counts a customer twice', async () => {
    const customer = `cust_rename_${randomBytes(4).toString('hex')}`;
    const first = await recordFailure(merchant.paths, { customer, name: 'Quentin Oldname', email: 'quentin@old.example' });
    await drainEvents();
    expect(ids(await search(merchant, { query: 'oldname' }))).toEqual([first.customerId]);
    await rename(merchant, customer, 'Quentin Newname', 'q.newname@new.example');
    expect(ids(await search(merchant, { query: 'oldname' }))).toEqual([first.customerId]);
    await drainEvents();
    expect(ids(await search(merchant, { query: 'oldname' }))).toEqual([]);
    expect(ids(await search(merchant, { query: 'old.example' }))).toEqual([]);
    expect(ids(await search(merchant, { query: 'newn' }))).toEqual([first.customerId]);
    expect(ids(await search(merchant, { query: 'quentin new' }))).toEqual([first.customerId]);
    const names = ['Rhea Alpha', 'Rhea Beta', 'Rhea Gamma', 'Rhea Delta', 'Rhea Epsilon'];
    await Promise.all(names.map((name, i) => rename(merchant, customer, name, `rhea${i}@concurrent.example`)));
    await Promise.all([drainEvents(), drainEvents()]);
    const final = (await storedCustomers(merchant.tenant)).find((c) => c.id === first.customerId)!;
    expect(names).toContain(final.name);
    expect(ids(await search(merchant, { query: final.name }))).toEqual([first.customerId]);
    expect((await search(merchant, { query: 'rhea' })).body.pagination.total).toBe(1);
    await expectIndexMatchesCustomers(merchant.tenant);
  });

  it('leaves nothing of an erased customer in the index: entries, counts only they kept, counts a rename left', async () => {
    const tag = randomBytes(5).toString('hex');
    const customer = `cust_gone_${tag}`;
    const failure = await recordFailure(merchant.paths, { customer, name: `Vanya Q${tag}`, email: `w${tag}@gone.example` });
    await drainEvents();
    await rename(merchant, customer, `Vanya X${tag}`, `y${tag}@gone.example`);
    await drainEvents();
    expect(ids(await search(merchant, { query: `x${tag}` }))).toEqual([failure.customerId]);
    const erased = await call('DELETE', `/v1/customers/${failure.customerId}`, { key: merchant.keys.test_admin });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const items = await expectIndexMatchesCustomers(merchant.tenant);
    const theirs = new Set(
      [searchIndexing(`Vanya Q${tag}`, `w${tag}@gone.example`), searchIndexing(`Vanya X${tag}`, `y${tag}@gone.example`)].flatMap((indexing) =>
        indexing.prefixes.map((prefix) => searchPartition(merchant.tenant, prefix)),
      ),
    );
    expect(items.filter((item) => JSON.stringify(item).includes(tag.slice(0, 4)))).toEqual([]);
    expect(items.filter((item) => theirs.has(item.pk) && (item.entity === 'search_entry' ? item.sk === failure.customerId : item.matches === 0))).toEqual([]);
    expect((await search(merchant, { query: 'vanya' })).body.pagination.total).toBe(0);
    expect((await search(merchant, { query: 'noor' })).body.pagination.total).toBe(23);
  });

  it.each([
    ['the erasure commits between the consumer reading the customer and writing the index', (keys: string) => keys.includes('CUSTSEARCH#') && !keys.includes('"Delete"'), 'erase'],
    ['the consumer indexes the customer between the erasure reading the index and deleting the customer', (keys: string) => keys.includes('"Delete"') && keys.includes('CUSTSEARCH#'), 'index'],
  ] as const)('leaves nothing of a customer erased while the stream indexes them: %s', async (_, matching, interloper) => {
    const tag = randomBytes(5).toString('hex');
    await drainEvents();
    const failure = await recordFailure(merchant.paths, { customer: `cust_race_${tag}`, name: `Rasmus R${tag}`, email: `r${tag}@race.example` });
    const erase = async () => {
      const erased = await call('DELETE', `/v1/customers/${failure.customerId}`, { key: merchant.keys.test_admin });
      expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    };
    const index = async () => {
      await drainEvents();
      expect(await tenantItems(merchant.tenant, `CUSTSEARCH#${failure.customerId}`)).toHaveLength(1);
    };
    if (interloper === 'erase') await interleaved(matching, erase, drainEvents);
    else await interleaved(matching, index, erase);
    await drainEvents();
    const items = await expectIndexMatchesCustomers(merchant.tenant);
    expect(items.filter((item) => JSON.stringify(item).includes(tag.slice(0, 4)))).toEqual([]);
    expect(await tenantItems(merchant.tenant, `CUSTSEARCH#${failure.customerId}`)).toEqual([]);
    expect((await search(merchant, { query: `r${tag}` })).body.pagination.total).toBe(0);
  });
});

describe('deep pages of one search word, placed by its month and quarter-day counts', () => {
  let merchant: Merchant;
  const HOUR = 3_600;

  /** The customers the word "quill" finds, as stored, in creation order. */
  const quills = async () => (await storedCustomers(merchant.tenant)).filter((customer) => customer.name?.startsWith('Quill')).sort((a, b) => byKey(a.id, b.id));

  async function expectAllPages(query: Record<string, string>, want: readonly string[], perPage: number) {
    for (const order of ['asc', 'desc']) {
      const { ids: listed, total } = await readAllPages(merchant.keys.test_read, '/v1/customers', { query: 'quill', ...query, order }, perPage);
      expect(total, JSON.stringify(query)).toBe(want.length);
      expect(listed, `${JSON.stringify(query)} ${order}`).toEqual(order === 'asc' ? want : [...want].reverse());
    }
  }

  beforeAll(async () => {
    merchant = await merchantWithProcessors();
    // A day of 66 (over the 60 a day is skipped through whole), every quarter of it; a sparser day
    // after, crossing midnight; a later month. Other words the prefix finds stay out ("quilt").
    const now = localRuntime().clock.now().getTime();
    advanceClock(Math.ceil((86_400_000 - (now % 86_400_000)) / 1000) + 600);
    const spacing = [...Array<number>(66).fill(900), ...Array<number>(8).fill(3 * HOUR + 1800), 33 * 24 * HOUR, ...Array<number>(5).fill(HOUR)];
    for (const [i, after] of spacing.entries()) {
      await recordFailure(merchant.paths, { customer: `cust_quill_${i}`, name: `Quill Q${i}`, email: `q${i}@quills.example`, after: i === 0 ? 1 : after });
    }
    await recordFailure(merchant.paths, { customer: 'cust_quilt', name: 'Quilt Maker', email: 'maker@quilts.example' });
    await drainEvents();
  }, 300_000);

  it('pages every customer once, in order, with the total, in both orders and creation windows cutting quarters', async () => {
    const all = await quills();
    expect(all).toHaveLength(80);
    const ids = all.map((customer) => customer.id);
    await expectAllPages({}, ids, 6);
    const lower = all[9]!.created_at as string;
    const upper = all[70]!.created_at as string;
    const cases: [Record<string, string>, (created: string) => boolean][] = [
      [{ created_after: lower }, (created) => created > lower],
      [{ created_before: upper }, (created) => created < upper],
      [{ created_after: lower, created_before: upper }, (created) => created > lower && created < upper],
    ];
    for (const [window, inside] of cases) await expectAllPages(window, all.filter((customer) => inside(customer.created_at)).map((customer) => customer.id), 7);
  }, 120_000);

  it('reads the month items, the page and a skip inside one quarter day, not every entry before the page', async () => {
    const all = await quills();
    // Page 6 of 5: customers 25-29, in the middle of the large day (from its nearer end: 25 entries).
    let body: any;
    const read = await itemsRead(async () => {
      body = (await call('GET', '/v1/customers', { key: merchant.keys.test_read, query: { query: 'quill', order: 'asc', page: '6', per_page: '5' } })).body;
    });
    expect(body.data.map((customer: { id: string }) => customer.id)).toEqual(all.slice(25, 30).map((customer) => customer.id));
    expect(body.pagination.total).toBe(80);
    // The key lookup, three month items, a skip of at most half a quarter of the large day (≤ 12), the page and its customers.
    expect(read).toBeLessThanOrEqual(1 + 3 + 12 + 2 * 5);
  }, 60_000);

  it('keeps pages and counts exact after an erasure and a rename in the large day', async () => {
    const before = await quills();
    const erased = await call('DELETE', `/v1/customers/${before[20]!.id}`, { key: merchant.keys.test_admin });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    await rename(merchant, 'cust_quill_40', 'Renamed Person', 'q40@renamed.example');
    await drainEvents();
    const after = await quills();
    expect(after.map((customer) => customer.id)).toEqual(before.filter((_, i) => i !== 20 && i !== 40).map((customer) => customer.id));
    await expectAllPages({}, after.map((customer) => customer.id), 6);
    await expectAllPages({ created_after: before[9]!.created_at }, after.slice(10).map((customer) => customer.id), 7);
    await expectIndexMatchesCustomers(merchant.tenant);
  }, 120_000);

  it('rebuilds the month items of a partition counted before them, and of a miscounted one, from the entries', async () => {
    const ids = (await quills()).map((customer) => customer.id);
    const { db, tableName } = runtime;
    const quill = searchPartition(merchant.tenant, 'quill');
    for (const count of (await searchItems(merchant.tenant)).filter((item) => item.pk === quill && item.entity === 'search_count')) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: count.pk, sk: count.sk } }));
    }
    await db.send(new PutCommand({ TableName: tableName, Item: { pk: quill, sk: '#COUNT', entity: 'search_count', matches: ids.length } }));
    await db.send(new PutCommand({ TableName: tableName, Item: { pk: searchPartition(merchant.tenant, 'q'), sk: '#COUNT#2001-01', entity: 'search_count', matches: 7, '010': 7 } }));
    expect((await search(merchant, { query: 'quill' })).body.pagination.total).toBe(0);
    const report = await recountSearchIndex(merchant.tenant);
    expect(report.deleted).toBe(2);
    await expectIndexMatchesCustomers(merchant.tenant);
    await expectAllPages({}, ids, 6);
    expect(await recountSearchIndex(merchant.tenant)).toEqual({ ...report, deleted: 0 });
  }, 120_000);

  it('finds every tenant with search records, as the local server recounts a kept store', async () => {
    const tenants = await tenantsWithSearchRecords();
    expect(tenants).toContainEqual(merchant.tenant);
    expect(new Set(tenants.map((tenant) => `${tenant.merchantId}#${tenant.environment}`)).size).toBe(tenants.length);
    expect(tenants.every((tenant) => tenant.environment === 'test' || tenant.environment === 'live')).toBe(true);
  }, 60_000);
});
