/**
 * List cost at scale: seeds one merchant with N payments (and N/5 customers) written with the store's
 * own item builders and counter layout, then measures list requests through the real handlers in
 * process: latency, DynamoDB items read and read capacity per request.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dispatch } from '../bin/local/dispatch.ts';
import { runtime } from '../shared/runtime.ts';
import { customerStatus, type Customer } from '../shared/model/customer.ts';
import { newCustomer, newPayment } from '../shared/domain/ingestion/failure-accounting.ts';
import { onboardMerchant } from '../shared/domain/access/merchant-onboarding.ts';
import { isOpen, type Payment, type PaymentStatus } from '../shared/model/payment.ts';
import type { Tenant } from '../shared/model/tenant.ts';
import { searchIndexing } from '../shared/model/customer-search.ts';
import { searchCountItem, searchEntry } from '../shared/store/customer-search.ts';
import { customerDimensions, customerItem } from '../shared/store/customers.ts';
import { counterItems } from '../shared/store/list-counters.ts';
import { paymentDimensions, paymentItem } from '../shared/store/payments.ts';
import { progress, type Step } from './progress.ts';
import { seededRandom, summarize } from './support.ts';

const DAY_MS = 86_400_000;
const SPAN_DAYS = 90;
const PAYMENTS_PER_CUSTOMER = 5;
const WRITERS = 8;

const FIRST = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'donald', 'margaret', 'ken', 'dennis', 'frances', 'john', 'radia', 'tim', 'linus', 'guido', 'anita', 'leslie', 'niklaus', 'sophie', 'karen'];
const LAST = ['lovelace', 'hopper', 'turing', 'dijkstra', 'liskov', 'knuth', 'hamilton', 'thompson', 'ritchie', 'allen', 'mccarthy', 'perlman', 'berners', 'torvalds', 'rossum', 'borg', 'lamport', 'wirth', 'wilson', 'jones', 'smith', 'garcia', 'mueller', 'rossi', 'dubois', 'novak', 'kowalski', 'nakamura', 'silva', 'ivanova'];
const CODES = ['insufficient_funds', 'insufficient_funds', 'insufficient_funds', 'do_not_honor', 'generic_decline', 'processing_error', 'try_again_later', 'expired_card', 'expired_card', 'incorrect_cvc', 'card_declined', 'authentication_required', 'stolen_card', 'fraudulent', 'lost_card'];
const CURRENCIES = ['usd', 'usd', 'usd', 'eur', 'eur', 'gbp'];

interface Seeded {
  tenant: Tenant;
  keys: Record<string, string>;
  customerIds: string[];
  searchTerm: string;
  seconds: number;
}

function statusFor(payment: Payment, roll: number): PaymentStatus {
  if (payment.decline_category === 'terminal') return 'terminal';
  if (payment.decline_category === 'soft_retry') {
    if (roll < 0.35) return 'pending';
    if (roll < 0.4) return 'retrying';
    if (roll < 0.75) return 'recovered';
    return 'communication_pending';
  }
  return roll < 0.3 ? 'recovered' : 'communication_pending';
}

/** The data, built with the domain's own constructors: ids carry their creation time as in production. */
function generate(count: number, seed: number) {
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const end = Date.now();
  const start = end - SPAN_DAYS * DAY_MS;
  const customerCount = Math.max(1, Math.round(count / PAYMENTS_PER_CUSTOMER));
  const times = Array.from({ length: count }, () => start + Math.floor(next() * (end - start))).sort((a, b) => a - b);
  const owners = times.map(() => Math.floor(next() * customerCount));
  const firstSeen = new Map<number, number>();
  owners.forEach((owner, i) => firstSeen.has(owner) || firstSeen.set(owner, times[i]!));
  const customers: Customer[] = [];
  const byIndex = new Map<number, Customer>();
  for (let i = 0; i < customerCount; i++) {
    const created = new Date(firstSeen.get(i) ?? start + Math.floor(next() * (end - start)));
    const first = pick(FIRST);
    const last = pick(LAST);
    const psp = next() < 0.7 ? 'stripe' : 'braintree';
    const customer = newCustomer(
      psp,
      { pspCustomerId: `${psp === 'stripe' ? 'cus_' : 'bt_'}${seed}_${i}`, email: `${first}.${last}.${i}@example.com`, name: `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`, timezone: null, country: 'US', phone: null },
      created,
    );
    customer.payment_method = { type: 'card', brand: 'visa', last_four: String(1000 + (i % 9000)), exp_month: 1 + (i % 12), exp_year: 2027 + (i % 4) };
    customers.push(customer);
    byIndex.set(i, customer);
  }
  const currencyOf = new Map(customers.map((customer) => [customer.id, pick(CURRENCIES)]));
  const payments: Payment[] = times.map((at, i) => {
    const customer = byIndex.get(owners[i]!)!;
    const amount = Math.round(500 * 100 ** next());
    const created = newPayment({
      psp: customer.psp,
      charge: { pspPaymentId: `ch_${seed}_${i}`, references: [`in_${seed}_${i}`], amount, currency: currencyOf.get(customer.id)!, declineCode: customer.psp === 'stripe' ? pick(CODES) : pick(['2001', '2001', '2046', '2004', '2051', '2015']) },
      customerId: customer.id,
      subscription: null,
      timeZone: null,
      now: new Date(at),
    });
    const status = statusFor(created, next());
    const recovered = status === 'recovered' ? new Date(at + Math.floor(next() * 7 * DAY_MS)).toISOString() : null;
    return {
      ...created,
      status,
      retry_count: status === 'pending' ? 0 : Math.min(created.max_retries, 1 + Math.floor(next() * 3)),
      next_retry_at: status === 'pending' ? created.next_retry_at : null,
      recovered_at: recovered,
      recovery_channel: recovered ? 'automatic_retry' : null,
      updated_at: recovered ?? created.updated_at,
    };
  });
  // Each customer's counters and status from their payments, as ingestion would have left them.
  const byId = new Map(customers.map((customer) => [customer.id, customer]));
  for (const payment of payments) {
    const customer = byId.get(payment.customer_id!)!;
    customer.total_payments += 1;
    if (isOpen(payment.status)) customer.failed_payments += 1;
    if (payment.status === 'terminal') customer.terminal_payments += 1;
    if (payment.status === 'recovered') {
      customer.recovered_payments += 1;
      customer.recovered_amounts[payment.currency] = (customer.recovered_amounts[payment.currency] ?? 0) + payment.amount;
    }
    customer.primary_currency = payment.currency;
  }
  for (const customer of customers) customer.status = customerStatus(customer);
  return { customers, payments };
}

async function writeAll(items: Record<string, unknown>[], step: Step): Promise<void> {
  let next = 0;
  const writer = async () => {
    while (next < items.length) {
      const batch = items.slice(next, next + 25);
      next += 25;
      let request: Record<string, any> | undefined = { [runtime.tableName]: batch.map((Item) => ({ PutRequest: { Item } })) };
      for (let round = 0; request && Object.keys(request).length > 0; round++) {
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** round)));
        const response: { UnprocessedItems?: Record<string, any> } = await runtime.db.send(new BatchWriteCommand({ RequestItems: request }));
        request = response.UnprocessedItems;
      }
      step.advance(batch.length);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
}

/** Customers with their search entries and the entries' counts, as their transactions would have left them. */
function searchIndexItems(tenant: Tenant, customers: readonly Customer[]): Record<string, unknown>[] {
  const counts = new Map<string, number>();
  const items: Record<string, unknown>[] = [];
  for (const customer of customers) {
    const { prefixes, text } = searchIndexing(customer.name, customer.email);
    items.push(customerItem(tenant, customer, prefixes), ...prefixes.map((prefix) => searchEntry(tenant, customer, prefix, text)));
    for (const prefix of prefixes) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  return [...items, ...[...counts].map(([prefix, matches]) => searchCountItem(tenant, prefix, matches))];
}

async function seed(payments: number, seedNumber: number): Promise<Seeded> {
  const started = performance.now();
  const { merchant, keys } = await onboardMerchant({ plan: 'enterprise' }, new Date());
  const tenant: Tenant = { merchantId: merchant.id, environment: 'test' };
  const data = generate(payments, seedNumber);
  const items = [
    ...searchIndexItems(tenant, data.customers),
    ...counterItems(tenant, 'CUSTOMERS', data.customers.map((customer) => ({ id: customer.id, created_at: customer.created_at, dimensions: customerDimensions(customer) }))),
    ...data.payments.map((payment) => paymentItem(tenant, payment)),
    ...counterItems(tenant, 'PAYMENTS', data.payments.map((payment) => ({ id: payment.id, created_at: payment.created_at, dimensions: paymentDimensions(payment) }))),
  ];
  const step = progress.step(`seeding ${payments.toLocaleString('en-US')} payments (items written)`, items.length);
  await writeAll(items as Record<string, unknown>[], step);
  step.done();
  return { tenant, keys: keys as Record<string, string>, customerIds: data.customers.map((customer) => customer.id), searchTerm: 'lovelace', seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** What one request cost in DynamoDB reads, the API key lookup and rate-limit write left out (the same for every request). */
function readMeter() {
  let itemsRead = 0;
  let capacity = 0;
  let requests = 0;
  const isPlatform = (input: any) => {
    const pk = (input?.Key?.pk ?? '') as string;
    return pk.startsWith('KEYHASH#') || pk.startsWith('RATE#');
  };
  runtime.db.middlewareStack.add(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      const name = args.input && 'TransactItems' in args.input ? 'transact' : '';
      if (name === '' && !isPlatform(args.input) && !args.input?.RequestItems?.[runtime.tableName]?.[0]?.PutRequest) {
        args.input.ReturnConsumedCapacity ??= 'TOTAL';
        const output = await next(args);
        const result = output.output ?? {};
        requests += 1;
        if (typeof result.ScannedCount === 'number') itemsRead += result.ScannedCount;
        else if (result.Responses) itemsRead += Object.values(result.Responses as Record<string, unknown[]>).reduce((sum, items) => sum + items.length, 0);
        else if (result.Item) itemsRead += 1;
        const consumed = result.ConsumedCapacity;
        for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) capacity += entry.CapacityUnits ?? 0;
        return output;
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchReadMeter' },
  );
  return {
    reset() {
      itemsRead = 0;
      capacity = 0;
      requests = 0;
    },
    get reading() {
      return { itemsRead, capacity, requests };
    },
  };
}

let meter: ReturnType<typeof readMeter> | undefined;

async function measure(key: string, paths: () => string, samples: number) {
  meter ??= readMeter();
  const latency: number[] = [];
  const items: number[] = [];
  const rcu: number[] = [];
  const requests: number[] = [];
  let total = 0;
  for (let i = 0; i < samples + 3; i++) {
    const url = new URL(paths(), 'http://bench');
    meter.reset();
    const started = performance.now();
    const response = await dispatch({ method: 'GET', path: url.pathname, query: url.searchParams, headers: { authorization: `Bearer ${key}` }, body: Buffer.alloc(0), sourceIp: '127.0.0.1' });
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${response.body.toString()}`);
    if (i < 3) continue; // warm-up: module load, connection pool
    total = JSON.parse(response.body.toString()).pagination.total;
    latency.push(elapsed);
    items.push(meter.reading.itemsRead);
    rcu.push(meter.reading.capacity);
    requests.push(meter.reading.requests);
  }
  return { total, latency_ms: summarize(latency), items_read: summarize(items), read_capacity_units: summarize(rcu), dynamodb_requests: summarize(requests) };
}

export const LIST_CASES = [
  'first page, unfiltered',
  'status filter (pending)',
  "one customer's payments",
  'page 500, unfiltered',
  'customer search',
  'page 500, status filter',
  'page 500, sorted by amount',
  'status + currency (pair counter)',
  'status + decline code (counted by reading)',
] as const;

export async function benchLists(sizes: readonly number[], samples = 30) {
  const results: Record<string, unknown> = {};
  for (const [i, size] of sizes.entries()) {
    const seeded = await seed(size, 1000 + i);
    const key = seeded.keys.test_read!;
    const next = seededRandom(7);
    const customer = () => seeded.customerIds[Math.floor(next() * seeded.customerIds.length)]!;
    const paths: Record<(typeof LIST_CASES)[number], () => string> = {
      'first page, unfiltered': () => '/v1/payments',
      'status filter (pending)': () => '/v1/payments?status=pending',
      "one customer's payments": () => `/v1/customers/${customer()}/payments`,
      'page 500, unfiltered': () => '/v1/payments?page=500',
      'customer search': () => `/v1/customers?query=${seeded.searchTerm}`,
      'page 500, status filter': () => '/v1/payments?status=pending&page=500',
      'page 500, sorted by amount': () => '/v1/payments?sort=amount&order=asc&page=500',
      'status + currency (pair counter)': () => '/v1/payments?status=pending&currency=eur',
      'status + decline code (counted by reading)': () => '/v1/payments?status=communication_pending&decline_code=expired_card',
    };
    const cases: Record<string, unknown> = {};
    const step = progress.step(`list cases measured on ${size.toLocaleString('en-US')} payments`, LIST_CASES.length);
    for (const name of LIST_CASES) {
      cases[name] = { request: paths[name]().replace(/cus_\w+/, 'cus_…'), ...(await measure(key, paths[name], samples)) };
      step.advance();
    }
    step.done();
    results[String(size)] = { payments: size, customers: seeded.customerIds.length, seed_seconds: seeded.seconds, samples, cases };
  }
  return results;
}
