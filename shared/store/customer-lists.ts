import { type Customer, type CustomerFilters, type CustomerListRequest } from '../model/customer.ts';
import type { ListResult } from '../model/listing.ts';
import { pageOffset } from '../model/pagination.ts';
import type { Tenant } from '../model/tenant.ts';
import { CUSTOMER_SK_PREFIX, customerFromItem, customerPartition } from './customers.ts';
import { tenantPk } from './keys.ts';
import { CounterView } from './list-counters.ts';
import {
  allOf,
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
  type Filter,
  type Predicate,
  type Segment,
} from './list-query.ts';

/**
 * Plans GET /v1/customers onto the customer indexes (docs/data-model.md): creation order from the
 * tenant partition or a status partition, the other orders from their own index partitions, and a
 * search by reading the narrow name index with the search text as a filter.
 */
export async function queryCustomers(tenant: Tenant, request: CustomerListRequest): Promise<ListResult<Customer>> {
  const { filters } = request;
  const view = new CounterView(tenant, 'CUSTOMERS');
  const window = filters.created ?? {};
  const predicates = customerPredicates(tenant, filters);
  if (filters.query !== undefined) return search(tenant, filters.query, predicates, request);
  const sort = request.sort;
  const segment =
    sort === 'created_at'
      ? await creationOrderedSegment(view, (filter) => baseSegment(tenant, filter), predicates, undefined)
      : sortedSegment(view, (filter) => sortSegments[sort](tenant, filter), predicates, createdFilter(window));
  const { items, total } = await readPage([segment], window, request.order === 'asc', pageOffset(request), request.per_page);
  return { items: items.map(customerFromItem), total };
}

const idBounds = idTimeBounds('', 'cus');

function baseSegment(tenant: Tenant, filter: Filter | undefined): Segment {
  return { partition: tenantPk(tenant), prefix: CUSTOMER_SK_PREFIX, filter, narrow: false, timeBounds: idTimeBounds(CUSTOMER_SK_PREFIX, 'cus') };
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

/** Index-order keys of the narrow name index's entries, for sorting search matches in memory. */
const entryKey: Record<CustomerListRequest['sort'], (entry: Record<string, unknown>) => string> = {
  created_at: (entry) => entry.sk as string,
  name: (entry) => entry.gsi4sk as string,
  email: (entry) => entry.gsi5sk as string,
  total_recovered: (entry) => entry.gsi2sk as string,
};

/**
 * `query`: a part of a name or email cannot be a key condition, so the tenant's narrow name index is
 * read whole with the search text as a filter (~450 bytes per customer), the matches sorted in
 * memory, and only the page's customers fetched.
 */
async function search(tenant: Tenant, query: string, predicates: Predicate[], request: CustomerListRequest): Promise<ListResult<Customer>> {
  const text = raw('contains(#search, :query)', { '#search': 'search' }, { ':query': query.toLowerCase() });
  const filter = allOf(text, ...predicates.map((predicate) => predicate.filter), createdFilter(request.filters.created ?? {}));
  const entries = await readAllEntries(sortSegments.name(tenant, filter));
  const key = entryKey[request.sort];
  const direction = request.order === 'asc' ? 1 : -1;
  entries.sort((a, b) => direction * compareKeys(key(a), key(b)));
  const start = pageOffset(request);
  const page = entries.slice(start, start + request.per_page).map((entry) => ({ pk: entry.pk as string, sk: entry.sk as string }));
  return { items: (await fetchItems(page)).map(customerFromItem), total: entries.length };
}
