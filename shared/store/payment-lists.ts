import type { ListResult } from '../model/listing.ts';
import { pageOffset } from '../model/pagination.ts';
import { PAYMENT_STATUSES, type Payment, type PaymentFilters, type PaymentListRequest } from '../model/payment.ts';
import type { Tenant } from '../model/tenant.ts';
import { tenantPartitions } from './keys.ts';
import { CounterView } from './list-counters.ts';
import {
  amountKey,
  between,
  compareKeys,
  createdFilter,
  creationOrderedSegment,
  equals,
  idTimeBounds,
  readPage,
  sortedSegment,
  type Filter,
  type Predicate,
  type Segment,
} from './list-query.ts';
import { RankView } from './rank-counters.ts';
import { PAYMENT_AMOUNT_ORDER, PAYMENT_SK_PREFIX, paymentFromItem, paymentPartition, paymentsOfCustomer } from './payments.ts';

/**
 * Plans GET /v1/payments onto the payment indexes (docs/data-model.md, "List indexes" and the cost
 * table): which partition to read, what stays a filter, and whether counters can give the total and
 * the jump to a deep page.
 */
export async function queryPayments(tenant: Tenant, request: PaymentListRequest): Promise<ListResult<Payment>> {
  const { filters } = request;
  if (filters.customer_id !== undefined) return customerPaymentsPage(tenant, filters.customer_id, request);
  const view = new CounterView(tenant, 'PAYMENTS');
  const window = filters.created ?? {};
  const predicates = equalityPredicates(tenant, filters);
  const amount = amountFilter(filters);
  let segments: Segment[];
  if (request.sort === 'amount') {
    const segment = sortedSegment(view, (filter) => amountSegment(tenant, filters, filter), predicates, createdFilter(window));
    const unfiltered = predicates.length === 0 && window.from === undefined && window.to === undefined;
    // The rank counters count every payment, and place an amount range in them; the list counters know nothing of amounts.
    const range = { from: filters.amount_min === undefined ? undefined : amountKey(filters.amount_min), below: filters.amount_max === undefined ? undefined : amountKey(filters.amount_max + 1) };
    const ranked = unfiltered ? new RankView(tenant, PAYMENT_AMOUNT_ORDER, range) : undefined;
    segments = [{ ...segment, counted: amount === undefined ? segment.counted : undefined, ranked }];
  } else if (request.sort === 'status') {
    // Status order is the alphabetical order of the values; within a status, creation time.
    const statuses = [...(filters.status ? [filters.status] : PAYMENT_STATUSES)].sort();
    const others = predicates.filter((predicate) => !predicate.dimension.startsWith('status:'));
    segments = await Promise.all(
      statuses.map((status) =>
        creationOrderedSegment(view, (filter) => statusSegment(tenant, status, filter), [statusPredicate(tenant, status), ...others], amount),
      ),
    );
    if (request.order === 'desc') segments.reverse();
  } else {
    segments = [await creationOrderedSegment(view, (filter) => baseSegment(tenant, filter), predicates, amount)];
  }
  const { items, total } = await readPage(segments, window, request.order === 'asc', pageOffset(request), request.per_page);
  return { items: items.map(paymentFromItem), total };
}

const idBounds = idTimeBounds('', 'pay');

function baseSegment(tenant: Tenant, filter: Filter | undefined): Segment {
  return { partition: tenantPartitions(tenant, PAYMENT_SK_PREFIX), prefix: PAYMENT_SK_PREFIX, filter, narrow: false, timeBounds: idTimeBounds(PAYMENT_SK_PREFIX, 'pay') };
}

function statusSegment(tenant: Tenant, status: string, filter: Filter | undefined): Segment {
  return { index: 'gsi2', partition: paymentPartition.status(tenant, status), prefix: 'pay_', filter, narrow: false, timeBounds: idBounds };
}

function statusPredicate(tenant: Tenant, status: string): Predicate {
  return { dimension: `status:${status}`, filter: equals('status', status), partition: (filter) => statusSegment(tenant, status, filter) };
}

function amountSegment(tenant: Tenant, filters: PaymentFilters, filter: Filter | undefined): Segment {
  return {
    index: 'gsi4',
    partition: paymentPartition.amount(tenant),
    prefix: '',
    lower: filters.amount_min === undefined ? undefined : `${amountKey(filters.amount_min)}#`,
    upper: filters.amount_max === undefined ? undefined : `${amountKey(filters.amount_max)}#~`,
    filter,
    narrow: true,
  };
}

function equalityPredicates(tenant: Tenant, filters: PaymentFilters): Predicate[] {
  const predicates: Predicate[] = [];
  if (filters.status !== undefined) predicates.push(statusPredicate(tenant, filters.status));
  const category = filters.decline_category;
  if (category !== undefined) {
    predicates.push({
      dimension: `category:${category}`,
      filter: equals('decline_category', category),
      partition: (filter) => ({ index: 'gsi3', partition: paymentPartition.category(tenant, category), prefix: 'pay_', filter, narrow: false, timeBounds: idBounds }),
    });
  }
  const code = filters.decline_code;
  if (code !== undefined) {
    predicates.push({
      dimension: `code:${code}`,
      filter: equals('decline_code', code),
      partition: (filter) => ({ index: 'gsi5', partition: paymentPartition.code(tenant, code), prefix: 'pay_', filter, narrow: true, timeBounds: idBounds }),
    });
  }
  if (filters.psp !== undefined) predicates.push({ dimension: `psp:${filters.psp}`, filter: equals('psp', filters.psp) });
  if (filters.currency !== undefined) predicates.push({ dimension: `currency:${filters.currency}`, filter: equals('currency', filters.currency) });
  return predicates;
}

/** amount_min/amount_max as a filter; on the amount index they are the key range instead. */
function amountFilter(filters: PaymentFilters): Filter | undefined {
  return between('amount', filters.amount_min, filters.amount_max);
}

/** Whether a payment passes every filter (the in-memory path for one customer's payments). */
function matches(payment: Payment, filters: PaymentFilters): boolean {
  const { created } = filters;
  const createdMs = Date.parse(payment.created_at);
  return (
    (filters.status === undefined || payment.status === filters.status) &&
    (filters.decline_category === undefined || payment.decline_category === filters.decline_category) &&
    (filters.decline_code === undefined || payment.decline_code === filters.decline_code) &&
    (filters.psp === undefined || payment.psp === filters.psp) &&
    (filters.currency === undefined || payment.currency === filters.currency) &&
    (filters.amount_min === undefined || payment.amount >= filters.amount_min) &&
    (filters.amount_max === undefined || payment.amount <= filters.amount_max) &&
    (created?.from === undefined || createdMs >= created.from) &&
    (created?.to === undefined || createdMs < created.to)
  );
}

/** The same orders the indexes give: by the sort field, then by id (creation time). */
const sortKeyOf: Record<PaymentListRequest['sort'], (payment: Payment) => string> = {
  created_at: (payment) => payment.id,
  amount: (payment) => `${amountKey(payment.amount)}#${payment.id}`,
  status: (payment) => `${payment.status}#${payment.id}`,
};

/** A customer's payments are few: read them all from the customer's partition, then filter, sort and slice. */
async function customerPaymentsPage(tenant: Tenant, customerId: string, request: PaymentListRequest): Promise<ListResult<Payment>> {
  const key = sortKeyOf[request.sort];
  const direction = request.order === 'asc' ? 1 : -1;
  const matching = (await paymentsOfCustomer(tenant, customerId))
    .filter((payment) => matches(payment, request.filters))
    .sort((a, b) => direction * compareKeys(key(a), key(b)));
  const start = pageOffset(request);
  return { items: matching.slice(start, start + request.per_page), total: matching.length };
}
