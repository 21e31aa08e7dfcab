import { useEffect, useState } from 'preact/hooks';
import { answer, api, idempotencyKey } from '../api/client.ts';
import type { components } from '../api/schema.gen.ts';
import { ActionButton } from '../components/controls.tsx';
import { ErrorNotice, Resolved } from '../components/states.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { words } from '../format.ts';
import { useAction, useLoad } from '../load.ts';
import { href } from '../router.ts';

type PaymentDetail = components['schemas']['PaymentDetail'];
type PaymentEvent = components['schemas']['PaymentEvent'];

const RETRYABLE = ['pending', 'communication_pending'];
/** How long the page follows a retry running in the background before leaving it to a reload. */
const FOLLOW_MS = 30_000;

async function paymentWithHistory(id: string) {
  const [detail, history] = await Promise.all([
    answer(api.GET('/v1/payments/{id}', { params: { path: { id } } })),
    answer(api.GET('/v1/payments/{id}/events', { params: { path: { id }, query: { per_page: 100 } } })),
  ]);
  return { payment: detail.data, events: history.data };
}

export function PaymentPage({ id }: { id: string }) {
  const loaded = useLoad(() => paymentWithHistory(id), id);
  const retrying = loaded.state === 'ready' && loaded.data.payment.status === 'retrying';
  // A retry runs in the background: follow it until its outcome is recorded.
  const [followingSince, setFollowingSince] = useState<number | null>(null);
  useEffect(() => {
    if (!retrying || followingSince === null || Date.now() - followingSince > FOLLOW_MS) return;
    const timer = setTimeout(loaded.reload, 1000);
    return () => clearTimeout(timer);
  });
  return (
    <section aria-labelledby="payment-title">
      <p>
        <a href={href('/payments')}>← Payments</a>
      </p>
      <Resolved loaded={loaded} what="the payment">
        {({ payment, events }) => <Payment payment={payment} events={events} onRetried={() => (setFollowingSince(Date.now()), loaded.reload())} />}
      </Resolved>
    </section>
  );
}

function Payment({ payment, events, onRetried }: { payment: PaymentDetail; events: PaymentEvent[]; onRetried: () => void }) {
  const retry = useAction();
  const [message, setMessage] = useState<string | null>(null);
  const blocked = RETRYABLE.includes(payment.status)
    ? null
    : `Only a pending or communication pending payment can be retried; this one is ${words(payment.status)}.`;
  const retryNow = async () => {
    const started = await retry.run(() =>
      answer(api.POST('/v1/payments/{id}/retry', { params: { path: { id: payment.id }, header: { 'Idempotency-Key': idempotencyKey() } } })),
    );
    if (started) {
      setMessage(started.data.message);
      onRetried();
    }
  };
  return (
    <>
      <div class="page-head">
        <h1 id="payment-title">
          <Money amount={payment.amount} currency={payment.currency} /> <Status value={payment.status} />
        </h1>
        <ActionButton operation="POST /v1/payments/{id}/retry" onClick={retryNow} running={retry.running} blockedBecause={blocked}>
          Retry now
        </ActionButton>
      </div>
      <p role="status" class="notice" aria-live="polite">
        {message}
      </p>
      {retry.error && <ErrorNotice error={retry.error} />}
      <dl class="facts">
        <dt>Payment</dt>
        <dd>
          <code>{payment.id}</code>
        </dd>
        <dt>Customer</dt>
        <dd>
          {payment.customer ? (
            <a href={href(`/customers/${payment.customer.id}`)}>{payment.customer.name ?? payment.customer.email ?? payment.customer.id}</a>
          ) : (
            <span class="muted">erased</span>
          )}
        </dd>
        <dt>Decline</dt>
        <dd>
          {payment.decline_code ?? 'no code'} · {words(payment.decline_category)}
          {payment.decline_subcategory ? ` · ${payment.decline_subcategory}` : ''}
        </dd>
        <dt>Processor</dt>
        <dd>
          {payment.psp} · <code>{payment.psp_payment_id}</code>
        </dd>
        <dt>Retries</dt>
        <dd>
          {payment.retry_count} of {payment.max_retries}
        </dd>
        <dt>Next retry</dt>
        <dd>
          <Time at={payment.next_retry_at} />
        </dd>
        <dt>Failed</dt>
        <dd>
          <Time at={payment.created_at} />
        </dd>
        <dt>Recovered</dt>
        <dd>
          <Time at={payment.recovered_at} />
        </dd>
      </dl>
      <h2>Timeline</h2>
      <Timeline payment={payment} events={events} />
    </>
  );
}

/** One line per event of the payment's history, oldest first, each saying what happened in words. */
function Timeline({ payment, events }: { payment: PaymentDetail; events: PaymentEvent[] }) {
  if (events.length === 0) {
    return (
      <p class="muted">
        No history to show: the customer was erased, which removes the events about them. The payment keeps its {payment.retries.length} recorded{' '}
        {payment.retries.length === 1 ? 'attempt' : 'attempts'}.
      </p>
    );
  }
  return (
    <ol class="timeline" aria-label="Payment timeline">
      {events.map((event) => (
        <li class={`timeline-${event.type.replace('.', '-')}`}>
          <Time at={event.created} /> <strong>{describe(event).title}</strong>
          <span class="muted"> {describe(event).detail}</span>
        </li>
      ))}
    </ol>
  );
}

function describe(event: PaymentEvent): { title: string; detail: string } {
  const data = event.data;
  if ('channel' in data) return { title: `Dunning ${data.channel} sent`, detail: `step ${data.step + 1} of campaign ${data.campaign_id}` };
  switch (event.type) {
    case 'payment.failed':
      return { title: 'Payment failed', detail: `${data.decline_code ?? 'no decline code'} (${words(data.decline_category)}) at ${data.psp}` };
    case 'payment.retry_scheduled':
      return { title: 'Retry scheduled', detail: data.next_retry_at ? `for ${new Date(data.next_retry_at).toLocaleString()}` : '' };
    case 'payment.retry_failed':
      return { title: `Retry ${data.retry_count} declined`, detail: `${data.decline_code ?? 'no decline code'}; now ${words(data.status)}` };
    case 'payment.network_held':
      return { title: 'Held by a card network rule', detail: data.network_hold ? `${data.network_hold.description}; ${data.network_hold.next_allowed_at ? `not before ${new Date(data.network_hold.next_allowed_at).toLocaleString()}` : 'until the card is updated'}` : '' };
    case 'payment.recovered':
      return { title: 'Recovered', detail: data.recovery_channel ? `by ${words(data.recovery_channel)}` : '' };
    case 'payment.terminal':
      return { title: 'Ended: not recoverable', detail: `${data.decline_code ?? 'no decline code'}; never retried again` };
    default:
      return { title: words(event.type), detail: '' };
  }
}
