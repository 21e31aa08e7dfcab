import type { Tenant } from '../../model/tenant.ts';
import type { Payment } from '../../model/payment.ts';
import type { Ports } from '../../ports/ports.ts';

/** One schedule per attempt of one payment: scheduling it again (a replayed webhook) moves, never duplicates, it. */
export const retryJobId = (paymentId: string, attempt: number): string => `retry-${paymentId}-${attempt}`;

/**
 * §1 routing after a failure is recorded: soft declines get their next silent retry scheduled.
 * Safe to call again for the same payment state (every step is idempotent), which is how a
 * replayed webhook finishes a hand-off that a crash interrupted.
 */
export async function routeFailure(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, payment: Payment): Promise<void> {
  if (payment.status === 'pending' && payment.next_retry_at !== null) {
    const attempt = payment.retry_count + 1;
    await ports.scheduler.schedule({
      id: retryJobId(payment.id, attempt),
      kind: 'payment-retry',
      runAt: new Date(payment.next_retry_at),
      tenant,
      payload: { payment_id: payment.id, attempt },
    });
  }
}

/** Once a payment is recovered or terminal, no scheduled retry may fire for it. */
export async function cancelPendingRetry(ports: Pick<Ports, 'scheduler'>, payment: Payment): Promise<void> {
  await ports.scheduler.cancel(retryJobId(payment.id, payment.retry_count + 1));
}
