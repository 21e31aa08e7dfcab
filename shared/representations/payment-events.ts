import type { Payment } from '../model/payment.ts';
import { paymentResource } from './payment.ts';

/**
 * payment.recovered's data: the §2.4 payment plus how it came back (`recovery_channel`), which the
 * REST object does not carry. Analytics credits recoveries to channels from it, and merchants
 * mirroring state over webhooks get the same answer (docs/decisions.md, Analytics).
 */
export function recoveredEventData(payment: Payment) {
  return { ...paymentResource(payment), recovery_channel: payment.recovery_channel };
}

/**
 * payment.recategorized's data (internal): what analytics needs to move the payment's failure from
 * the category it was counted under to the one it has now, on its cohort day.
 */
export function recategorizedEventData(before: Payment, after: Payment) {
  return {
    id: after.id,
    psp: after.psp,
    amount: after.amount,
    currency: after.currency,
    created_at: after.created_at,
    previous_decline_category: before.decline_category,
    decline_category: after.decline_category,
  };
}
