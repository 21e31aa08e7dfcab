import { totalRecovered, type Customer, type CustomerFilters, type CustomerListRequest } from '../model/customer.ts';
import type { ListResult, TimeWindow } from '../model/listing.ts';
import { pageOffset } from '../model/pagination.ts';
import type { Tenant } from '../model/tenant.ts';
import { planSearch } from './customer-search.ts';
import { RankView } from './rank-counters.ts';
import { CUSTOMER_RANKED_ORDERS, CUSTOMER_SK_PREFIX, customerFromItem, customerPartition, customerSk } from './customers.ts';
import { BATCH_GET_LIMIT } from './dynamo.ts';
import { tenantKey, tenantPartitions } from './keys.ts';
import { CounterView } from './list-counters.ts';
import {
  allOf,
  amountKey,
  compareKeys,
  createdFilter,
  creationOrderedSegment,
  equals,
  fetchItems,
  idTimeBounds,
  raw,
  readAllEntries,
  readPage,
  sortedSegment,
  textKey,
  type Filter,
  type Predicate,
  type Segment,
} from './list-query.ts';

/**
 * Plans GET /v1/customers onto the customer indexes (docs/data-model.md): creation order from the
 * tenant partition or a status partition, the other orders from their own index partitions, and a
 * search from the search index.
 */
export async function queryCustomers(tenant: Tenant, request: CustomerListRequest): Promise<ListResult<Customer>> {
  const { filters } = request;
  const view = new CounterView(tenant, 'CUSTOMERS');
  const window = filters.created ?? {};
  const predicates = customerPredicates(tenant, filters);
  if (filters.query !== undefined) return search(tenant, filters.query, request);
  const sort = request.sort;
  const segment =
    sort === 'created_at'
      ? await creationOrderedSegment(view, (filter) => baseSegment(tenant, filter), predicates, undefined)
      : { ...sortedSegment(view, (filter) => sortSegments[sort](tenant, filter), predicates, createdFilter(window)), ranked: rankedView(tenant, sort, predicates, window) };
  const { items, total } = await readPage([segment], window, request.order === 'asc', pageOffset(request), request.per_page);
  return { items: items.map(customerFromItem), total };
}

const idBounds = idTimeBounds('', 'cus');

/** The rank counters of a value order, when they count exactly the list (no filter, no window). */
function rankedView(tenant: Tenant, sort: Exclude<CustomerListRequest['sort'], 'created_at'>, predicates: readonly Predicate[], window: TimeWindow): RankView | undefined {
  if (predicates.length > 0 || window.from !== undefined || window.to !== undefined || !(sort in CUSTOMER_RANKED_ORDERS)) return undefined;
  return new RankView(tenant, CUSTOMER_RANKED_ORDERS[sort as keyof typeof CUSTOMER_RANKED_ORDERS]);
}

function baseSegment(tenant: Tenant, filter: Filter | undefined): Segment {
  return { partition: tenantPartitions(tenant, CUSTOMER_SK_PREFIX), prefix: CUSTOMER_SK_PREFIX, filter, narrow: false, timeBounds: idTimeBounds(CUSTOMER_SK_PREFIX, 'cus') };
}

const sortSegments: Record<Exclude<CustomerListRequest['sort'], 'created_at'>, (tenant: Tenant, filter: Filter | undefined) => Segment> = {
  name: (tenant, filter) => ({ index: 'gsi4', partition: customerPartition.name(tenant), prefix: '', filter, narrow: true }),
  email: (tenant, filter) => ({ index: 'gsi5', partition: customerPartition.email(tenant), prefix: '', filter, narrow: true }),
  total_recovered: (tenant, filter) => ({ index: 'gsi2', partition: customerPartition.recovered(tenant), prefix: '', filter, narrow: false }),
};

function customerPredicates(tenant: Tenant, filters: CustomerFilters): Predicate[] {
  const predicates: Predicate[] = [];
  const status = filters.status;
  if (status !== undefined) {
    predicates.push({
      dimension: `status:${status}`,
      filter: equals('status', status),
      partition: (filter) => ({ index: 'gsi1', partition: customerPartition.status(tenant, status), prefix: 'cus_', filter, narrow: false, timeBounds: idBounds }),
    });
  }
  if (filters.psp !== undefined) predicates.push({ dimension: `psp:${filters.psp}`, filter: equals('psp', filters.psp) });
  if (filters.has_failed_payment !== undefined) {
    const failing = filters.has_failed_payment;
    predicates.push({
      dimension: `failing:${failing ? 'yes' : 'no'}`,
      filter: raw(failing ? '#failed > :none' : '#failed = :none', { '#failed': 'failed_payments' }, { ':none': 0 }),
    });
  }
  return predicates;
}

/** Sort keys of customers, as their indexes order them: for sorting search matches in memory. */
const customerKey: Record<CustomerListRequest['sort'], (customer: Customer) => string> = {
  created_at: (customer) => customer.id,
  name: (customer) => textKey(customer.name, customer.id),
  email: (customer) => textKey(customer.email, customer.id),
  total_recovered: (customer) => `${amountKey(totalRecovered(customer).amount)}#${customer.id}`,
};

/**
 * `query`: the rarest query word's search partition (customer-search.ts), read in the list's order
 * (creation from the table, name and email from gsi4/gsi5 under the same partition), the other words
 * and `psp` as filters. Status, failing and total recovered change with every payment, so the entries
 * do not carry them: a search with them reads all its matches and sorts them in memory.
 */
async function search(tenant: Tenant, query: string, request: CustomerListRequest): Promise<ListResult<Customer>> {
  const plan = await planSearch(tenant, query);
  if (!plan || plan.matches === 0) return { items: [], total: 0 };
  const { filters, sort } = request;
  const window = filters.created ?? {};
  const psp = filters.psp === undefined ? undefined : equals('psp', filters.psp);
  const itemKey = (entry: Record<string, unknown>) => (tenantKey(tenant, customerSk(entry.customer_id as string)));
  const whole = plan.filter === undefined && psp === undefined && window.from === undefined && window.to === undefined;
  const kept = whole ? async () => plan.matches : undefined;
  const inMemory = filters.status !== undefined || filters.has_failed_payment !== undefined || sort === 'total_recovered';
  if (inMemory) return searchInMemory({ partition: plan.partition, prefix: 'cus_', filter: allOf(plan.filter, psp, createdFilter(window)), narrow: true, itemKey }, request);
  // A word read from its own partition, unfiltered, is placed by the partition's month items (read by the plan).
  const counted = plan.filter === undefined && psp === undefined ? { view: plan.counts, dimension: 'matches' } : undefined;
  const segment: Segment =
    sort === 'created_at'
      ? { partition: plan.partition, prefix: 'cus_', filter: allOf(plan.filter, psp), narrow: true, timeBounds: idBounds, itemKey, kept, counted }
      : { index: sort === 'name' ? 'gsi4' : 'gsi5', partition: plan.partition, prefix: '', filter: allOf(plan.filter, psp, createdFilter(window)), narrow: true, itemKey, kept };
  const { items, total } = await readPage([segment], window, request.order === 'asc', pageOffset(request), request.per_page);
  return { items: items.map(customerFromItem), total };
}

async function searchInMemory(segment: Segment, request: CustomerListRequest): Promise<ListResult<Customer>> {
  const { status, has_failed_payment: failing } = request.filters;
  const entries = await readAllEntries(segment);
  const chunks = Array.from({ length: Math.ceil(entries.length / BATCH_GET_LIMIT) }, (_, i) => entries.slice(i * BATCH_GET_LIMIT, (i + 1) * BATCH_GET_LIMIT));
  const items = (await Promise.all(chunks.map((chunk) => fetchItems(chunk.map(segment.itemKey!))))).flat();
  const matches = items
    .map(customerFromItem)
    .filter((customer) => (status === undefined || customer.status === status) && (failing === undefined || customer.failed_payments > 0 === failing));
  const key = customerKey[request.sort];
  const direction = request.order === 'asc' ? 1 : -1;
  matches.sort((a, b) => direction * compareKeys(key(a), key(b)));
  const start = pageOffset(request);
  return { items: matches.slice(start, start + request.per_page), total: matches.length };
}
