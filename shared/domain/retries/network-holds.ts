import { newEvent, type ServiceEvent } from '../../model/events.ts';
import type { LedgerBlock, NetworkAnswer } from '../../model/card-ledger.ts';
import type { Payment } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';
import { paymentResource } from '../../representations/payment.ts';
import { blockedUntil, blocksForGood, holdFromBlocks } from './network-guard.ts';
import { nextRetryAt } from './retry-policy.ts';

/** What a card update answers, shown to the customer when a network forbids retrying their card. */
const UPDATE_CARD = 'Update payment method';

interface Routed {
  payment: Payment;
  nextAttemptAt: Date | null;
  events: readonly string[];
}

/**
 * A failure routed by its processor code (§2.6), then by the card network's answer to it: a block until
 * the card changes sends a payment that would be retried to the customer instead (dunning asks for a
 * card update, as for a hard decline); a timed block moves its next retry to when the block ends. The
 * payment keeps the network's codes and the hold that applied.
 */
export function heedNetworkAnswer<R extends Routed>(routed: R, answer: NetworkAnswer | null, blocks: readonly LedgerBlock[], now: Date, timeZone: string | null): R {
  const payment: Payment = answer ? withNetworkAnswer(routed.payment, answer) : routed.payment;
  const hold = holdFromBlocks(blocks, now);
  if (!hold || payment.status !== 'pending') return { ...routed, payment: hold ? { ...payment, network_hold: hold } : payment };
  if (blocksForGood(blocks)) {
    return {
      ...routed,
      payment: { ...payment, status: 'communication_pending', next_retry_at: null, customer_action: UPDATE_CARD, network_hold: hold },
      nextAttemptAt: null,
      events: routed.events.filter((type) => type !== 'payment.retry_scheduled'),
    };
  }
  const until = blockedUntil(blocks)!;
  if (payment.next_retry_at !== null && Date.parse(payment.next_retry_at) >= until.getTime()) return { ...routed, payment: { ...payment, network_hold: hold } };
  const when = nextRetryAt({ failedAt: until, cooldownHours: 0, subcategory: payment.decline_subcategory ?? 'Generic', timeZone });
  return { ...routed, payment: { ...payment, next_retry_at: when.toISOString(), network_hold: hold }, nextAttemptAt: when };
}

/** The network's codes on the payment, and on the attempt they answered when it was a retry. */
function withNetworkAnswer(payment: Payment, answer: NetworkAnswer): Payment {
  const codes = { network_decline_code: answer.declineCode, network_advice_code: answer.adviceCode };
  const last = payment.retries.at(-1);
  const retries = last && last.attempt === payment.retry_count ? [...payment.retries.slice(0, -1), { ...last, ...codes }] : payment.retries;
  return { ...payment, ...codes, retries };
}

/** payment.network_held: the payment and the rule that held it back, for merchants' endpoints and analytics. */
export function networkHeldEvent(tenant: Tenant, payment: Payment, now: Date): ServiceEvent<'payment.network_held'> {
  return newEvent(tenant, 'payment.network_held', { ...paymentResource(payment), network_hold: payment.network_hold! }, now);
}
