import { answer, api } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import type { Filter } from '../components/filter-form.tsx';
import { FilteredList } from '../components/filtered-list.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { href } from '../router.ts';
import { TableHead } from '../components/table-head.tsx';

type CustomerQuery = NonNullable<paths['/v1/customers']['get']['parameters']['query']>;

const FILTERS: Filter[] = [
  { name: 'query', label: 'Search', hint: 'Name or email' },
  { name: 'status', label: 'Status', options: ['active', 'recovered', 'churned'] },
  { name: 'has_failed_payment', label: 'Open failures', options: ['true', 'false'] },
  { name: 'psp', label: 'Processor' },
  { name: 'created_after', label: 'First seen after', type: 'date' },
  { name: 'created_before', label: 'First seen before', type: 'date' },
  { name: 'sort', label: 'Sort by', options: ['created_at', 'name', 'email', 'total_recovered'], noAny: true },
  { name: 'order', label: 'Order', options: ['desc', 'asc'], noAny: true },
];

export function CustomerList({ query }: { query: URLSearchParams }) {
  const erased = query.get('erased');
  return (
    <section aria-labelledby="customers-title">
      <h1 id="customers-title">Customers</h1>
      {erased && (
        <p class="notice" role="status">
          Customer {erased} was erased: their personal data is gone and their payments are kept anonymised.
        </p>
      )}
      <FilteredList
        path="/customers"
        filters={FILTERS}
        query={query}
        load={(values) => answer(api.GET('/v1/customers', { params: { query: { per_page: 20, ...values } as unknown as CustomerQuery } }))}
        what="Customers"
        label="Search customers"
        empty="No customers yet: they are created by their first failed payment."
        emptyFiltered="No customer matches."
      >
        {(items) => (
          <>
            <TableHead columns={['Customer', 'Status', 'Open / all failures', 'Recovered', 'Processor', 'First seen']} />
            <tbody>
              {items.map((customer) => (
                <tr>
                  <td>
                    <a href={href(`/customers/${customer.id}`)}>{customer.name ?? customer.email ?? customer.id}</a>
                    {customer.email && customer.name && <div class="muted">{customer.email}</div>}
                  </td>
                  <td>
                    <Status value={customer.status} />
                  </td>
                  <td>
                    {customer.failed_payments} / {customer.total_payments}
                  </td>
                  <td>
                    {customer.total_recovered_currency ? <Money amount={customer.total_recovered_amount} currency={customer.total_recovered_currency} /> : '—'}
                  </td>
                  <td>{customer.psp}</td>
                  <td>
                    <Time at={customer.created_at} />
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
