import { answer, api } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import type { Filter } from '../components/filter-form.tsx';
import { FilteredList } from '../components/filtered-list.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { words } from '../format.ts';
import { href } from '../router.ts';
import { TableHead } from '../components/table-head.tsx';

type PaymentQuery = NonNullable<paths['/v1/payments']['get']['parameters']['query']>;

/** The list's filters, named as the API names its parameters, so the address bar reads like the curl call. */
const FILTERS: Filter[] = [
  { name: 'status', label: 'Status', options: ['pending', 'retrying', 'communication_pending', 'recovered', 'terminal'] },
  { name: 'decline_category', label: 'Decline category', options: ['soft_retry', 'hard_customer', 'terminal', 'unknown'] },
  { name: 'decline_code', label: 'Decline code' },
  { name: 'psp', label: 'Processor' },
  { name: 'currency', label: 'Currency', hint: 'Three letters, e.g. eur' },
  { name: 'amount_min', label: 'Amount at least', hint: 'In the smallest unit (cents)', inputMode: 'numeric' },
  { name: 'amount_max', label: 'Amount at most', hint: 'In the smallest unit (cents)', inputMode: 'numeric' },
  { name: 'customer_id', label: 'Customer id', hint: 'cus_…' },
  { name: 'created_after', label: 'Failed after', type: 'date' },
  { name: 'created_before', label: 'Failed before', type: 'date' },
  { name: 'sort', label: 'Sort by', options: ['created_at', 'amount', 'status'], noAny: true },
  { name: 'order', label: 'Order', options: ['desc', 'asc'], noAny: true },
];

export function PaymentList({ query }: { query: URLSearchParams }) {
  return (
    <section aria-labelledby="payments-title">
      <h1 id="payments-title">Payments</h1>
      <FilteredList
        path="/payments"
        filters={FILTERS}
        query={query}
        load={(values) => answer(api.GET('/v1/payments', { params: { query: { per_page: 20, ...values } as unknown as PaymentQuery } }))}
        what="Payments"
        label="Filter payments"
        empty="No failed payments yet."
        emptyFiltered="No payment matches these filters."
      >
        {(items) => (
          <>
            <TableHead columns={['Amount', 'Status', 'Decline', 'Processor', 'Retries', 'Next retry', 'Failed']} />
            <tbody>
              {items.map((payment) => (
                <tr>
                  <td>
                    <a href={href(`/payments/${payment.id}`)}>
                      <Money amount={payment.amount} currency={payment.currency} />
                    </a>
                  </td>
                  <td>
                    <Status value={payment.status} />
                  </td>
                  <td>
                    {payment.decline_code ?? '—'} <span class="muted">({words(payment.decline_category)})</span>
                  </td>
                  <td>{payment.psp}</td>
                  <td>
                    {payment.retry_count} of {payment.max_retries}
                  </td>
                  <td>
                    <Time at={payment.next_retry_at} />
                  </td>
                  <td>
                    <Time at={payment.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </>
        )}
      </FilteredList>
    </section>
  );
}
