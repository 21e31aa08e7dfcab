import { answer, api } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { Pager } from '../components/controls.tsx';
import { FilterForm, type Filter } from '../components/filter-form.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { words } from '../format.ts';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';

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

/** Query values as the API takes them: dates become the start of that UTC day. */
export function apiQuery(query: URLSearchParams, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = query.get(name);
    if (!value) continue;
    values[name] = /^created_(after|before)$/.test(name) && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  }
  return values;
}

export function PaymentList({ query }: { query: URLSearchParams }) {
  const filters = apiQuery(query, [...FILTERS.map((filter) => filter.name), 'page']);
  const loaded = useLoad(
    () => answer(api.GET('/v1/payments', { params: { query: { per_page: 20, ...filters } as unknown as PaymentQuery } })),
    JSON.stringify(filters),
  );
  return (
    <section aria-labelledby="payments-title">
      <h1 id="payments-title">Payments</h1>
      <FilterForm key={query.toString()} path="/payments" filters={FILTERS} query={query} error={loaded.state === 'error' ? loaded.error : null} label="Filter payments" />
      {loaded.state === 'loading' && <Loading what="payments" />}
      {loaded.state === 'error' && <ErrorNotice error={loaded.error} onRetry={loaded.reload} />}
      {loaded.state === 'ready' &&
        (loaded.data.data.length === 0 ? (
          <Empty>
            <p>{Object.keys(filters).length > 0 ? 'No payment matches these filters.' : 'No failed payments yet.'}</p>
          </Empty>
        ) : (
          <>
            <div class="table-scroll">
              <table>
                <caption class="visually-hidden">Payments, {query.get('sort') ?? 'created_at'} order</caption>
                <thead>
                  <tr>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Decline</th>
                    <th scope="col">Processor</th>
                    <th scope="col">Retries</th>
                    <th scope="col">Next retry</th>
                    <th scope="col">Failed</th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.data.data.map((payment) => (
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
              </table>
            </div>
            <Pager pagination={loaded.data.pagination} path="/payments" query={Object.fromEntries(query)} label="Payments" />
          </>
        ))}
    </section>
  );
}
