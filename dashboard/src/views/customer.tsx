import { useId, useState } from 'preact/hooks';
import { answer, api } from '../api/client.ts';
import type { components } from '../api/schema.gen.ts';
import { ActionButton } from '../components/controls.tsx';
import { Empty, ErrorNotice, Resolved } from '../components/states.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { rate, words } from '../format.ts';
import { useAction, useLoad } from '../load.ts';
import { href, navigate } from '../router.ts';
import { TableHead } from '../components/table-head.tsx';

type Customer = components['schemas']['Customer'];
type CustomerPayment = components['schemas']['CustomerPayment'];
type Enrollment = components['schemas']['Enrollment'];

async function customerWithHistory(id: string) {
  const path = { path: { id } };
  const [customer, payments, enrollments] = await Promise.all([
    answer(api.GET('/v1/customers/{id}', { params: path })),
    answer(api.GET('/v1/customers/{id}/payments', { params: { ...path, query: { per_page: 100 } } })),
    answer(api.GET('/v1/customers/{id}/enrollments', { params: { ...path, query: { per_page: 100 } } })),
  ]);
  return { customer: customer.data, payments: payments.data, paymentTotal: payments.pagination.total, enrollments: enrollments.data };
}

export function CustomerPage({ id }: { id: string }) {
  const loaded = useLoad(() => customerWithHistory(id), id);
  return (
    <section aria-labelledby="customer-title">
      <p>
        <a href={href('/customers')}>← Customers</a>
      </p>
      <Resolved loaded={loaded} what="the customer">
        {(data) => <CustomerDetail {...data} />}
      </Resolved>
    </section>
  );
}

function CustomerDetail({ customer, payments, paymentTotal, enrollments }: { customer: Customer; payments: CustomerPayment[]; paymentTotal: number; enrollments: Enrollment[] }) {
  const summary = customer.recovery_summary;
  return (
    <>
      <h1 id="customer-title">
        {customer.name ?? customer.email ?? customer.id} <Status value={customer.status} />
      </h1>
      <dl class="facts">
        <dt>Customer</dt>
        <dd>
          <code>{customer.id}</code>
        </dd>
        <dt>Email</dt>
        <dd>{customer.email ?? '—'}</dd>
        <dt>Processor</dt>
        <dd>
          {customer.psp} · <code>{customer.psp_customer_id}</code>
        </dd>
        <dt>Card</dt>
        <dd>
          {customer.payment_method
            ? `${customer.payment_method.brand ?? customer.payment_method.type} ending ${customer.payment_method.last_four ?? '?'}, expires ${customer.payment_method.exp_month ?? '?'}/${customer.payment_method.exp_year ?? '?'}`
            : '—'}
        </dd>
        <dt>Recovery</dt>
        <dd>
          {summary.total_recovered} recovered, {summary.total_pending} open, {summary.total_terminal} lost of {summary.total_failures} failures ({rate(summary.recovery_rate)})
          {summary.currency && (
            <>
              {' · '}
              <Money amount={summary.total_recovered_amount} currency={summary.currency} /> recovered
            </>
          )}
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time at={customer.created_at} />
        </dd>
      </dl>

      <h2>Subscriptions</h2>
      {customer.subscriptions.length === 0 ? (
        <p class="muted">None reported by the processor.</p>
      ) : (
        <ul>
          {customer.subscriptions.map((subscription) => (
            <li>
              {subscription.plan ?? 'plan'} · {subscription.amount !== null && subscription.currency ? <Money amount={subscription.amount} currency={subscription.currency} /> : '—'} ·{' '}
              {subscription.status ?? 'status unknown'} · renews <Time at={subscription.current_period_end} />
            </li>
          ))}
        </ul>
      )}

      <h2>Payments ({paymentTotal})</h2>
      {payments.length === 0 ? (
        <Empty>No payments.</Empty>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={['Amount', 'Status', 'Decline', 'Retries', 'Failed']} />
            <tbody>
              {payments.map((payment) => (
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
                  <td>{payment.retry_count}</td>
                  <td>
                    <Time at={payment.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2>Campaign enrollments</h2>
      {enrollments.length === 0 ? (
        <p class="muted">Not enrolled in any campaign.</p>
      ) : (
        <ul>
          {enrollments.map((enrollment) => (
            <li>
              <a href={href(`/campaigns/${enrollment.campaign_id}`)}>{enrollment.campaign_id}</a> · <Status value={enrollment.status} />
              {enrollment.stop_reason ? ` (${words(enrollment.stop_reason)})` : ''} · {enrollment.messages_sent} sent · enrolled <Time at={enrollment.enrolled_at} />
            </li>
          ))}
        </ul>
      )}

      <Erasure customer={customer} />
    </>
  );
}

/** GDPR erasure, behind typing the customer's id: it cannot be undone. */
function Erasure({ customer }: { customer: Customer }) {
  const [typed, setTyped] = useState('');
  const erase = useAction();
  const inputId = useId();
  const confirmed = typed.trim() === customer.id;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!confirmed) return;
    const done = await erase.run(() => answer(api.DELETE('/v1/customers/{id}', { params: { path: { id: customer.id } } })));
    if (done) navigate(href('/customers', { erased: customer.id }));
  };
  return (
    <section class="danger-zone" aria-labelledby="erase-title">
      <h2 id="erase-title">Erase personal data</h2>
      <p>
        Deletes this customer's name, email, card details and subscriptions for good (GDPR erasure) and stops their recovery. Their payments are kept without
        anything that identifies them, for financial reporting. This cannot be undone.
      </p>
      <form onSubmit={submit}>
        <label for={inputId}>
          Type <code>{customer.id}</code> to confirm
        </label>
        <input id={inputId} value={typed} autoComplete="off" spellcheck={false} onInput={(event) => setTyped(event.currentTarget.value)} />
        <ActionButton
          operation="DELETE /v1/customers/{id}"
          type="submit"
          variant="danger"
          running={erase.running}
          blockedBecause={confirmed ? null : 'Type the customer id above to enable erasure.'}
        >
          Erase customer
        </ActionButton>
      </form>
      {erase.error && <ErrorNotice error={erase.error} />}
    </section>
  );
}
