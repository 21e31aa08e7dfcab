import type { Payment } from '../domain/payments.ts';
import { paymentResource } from './payment.ts';

/**
 * payment.recovered's data: the §2.4 payment plus how it came back (`recovery_channel`), which the
 * REST object does not carry. Analytics credits recoveries to channels from it, and merchants
 * mirroring state over webhooks get the same answer (docs/decisions.md, Analytics).
 */
export function recoveredEventData(payment: Payment) {
  return { ...paymentResource(payment), recovery_channel: payment.recovery_channel };
}
