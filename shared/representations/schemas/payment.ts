import * as z from '../../zod.ts';
import type { PaymentEventData } from '../../model/events.ts';
import { CHANNELS } from '../../domain/analytics/recovery-analytics.ts';
import { DECLINE_CATEGORIES, PAYMENT_HISTORY_TYPES, PAYMENT_STATUSES } from '../../model/payment.ts';
import { amount, count, currency, prefixedId, timestamp, type Assert, type Same } from './common.ts';

/** §2.4: the payment object of lists and events. */
export const paymentSchema = z
  .strictObject({
    id: prefixedId('pay'),
    customer_id: prefixedId('cus').nullable().meta({ description: 'null once the customer was erased' }),
    subscription_id: prefixedId('sub').nullable(),
    amount,
    currency,
    status: z.enum(PAYMENT_STATUSES),
    decline_code: z.string().nullable().meta({ description: "the processor's raw decline code" }),
    decline_category: z.enum(DECLINE_CATEGORIES),
    decline_subcategory: z.string().nullable(),
    psp: z.string(),
    psp_payment_id: z.string(),
    retry_count: count,
    max_retries: count,
    next_retry_at: timestamp.nullable(),
    recovered_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Payment' });

/** A card network rule that held back an attempt on the payment's card. */
export const networkHoldSchema = z
  .strictObject({
    rule: z.string().meta({ description: 'the rule, e.g. visa_category_1, mastercard_mac_02, mastercard_attempts_24h' }),
    network: z.enum(['visa', 'mastercard']),
    effect: z.enum(['never', 'not_before', 'limit']),
    description: z.string(),
    next_allowed_at: timestamp.nullable().meta({ description: 'when the card may be charged again; null: not until the customer updates it' }),
    rules_version: z.string().meta({ description: 'the version of the network rules table the decision was taken under' }),
    held_at: timestamp,
    fee_avoided_cents: count.meta({ description: "an estimate: the network's published fee for the attempt, in US cents" }),
  })
  .meta({ id: 'NetworkHold' });

/** §2.4 detail: the payment, its customer's name and email, and every attempt. */
export const paymentDetailSchema = paymentSchema
  .extend({
    customer: z
      .strictObject({ id: prefixedId('cus'), email: z.string().nullable(), name: z.string().nullable() })
      .nullable()
      .meta({ description: 'null once the customer was erased' }),
    retries: z.array(
      z.strictObject({
        attempt: z.int().min(1),
        status: z.enum(['failed', 'succeeded']),
        decline_code: z.string().nullable(),
        attempted_at: timestamp,
      }),
    ),
    network_decline_code: z.string().nullable().meta({ description: "the card network's response code to the latest failure, when the processor passed it on" }),
    network_advice_code: z.string().nullable().meta({ description: "Mastercard's merchant advice code to the latest failure, when the processor passed it on" }),
    network_hold: networkHoldSchema.nullable().meta({ description: 'the latest card network rule that held back an attempt (docs/retry-policy.md, "Card network rules")' }),
  })
  .meta({ id: 'PaymentDetail' });

/** §4.2: a payment in a customer's payment list. */
export const customerPaymentSchema = paymentSchema
  .pick({ id: true, amount: true, currency: true, status: true, decline_code: true, decline_category: true, retry_count: true, created_at: true, recovered_at: true })
  .meta({ id: 'CustomerPayment' });

/**
 * An event of a payment's history (GET /v1/payments/{id}/events): as a webhook delivers it. Payment
 * events carry the payment (a recovery also says how it came back); a message names its campaign step.
 */
export const paymentEventSchema = z
  .strictObject({
    id: prefixedId('evt'),
    type: z.enum(PAYMENT_HISTORY_TYPES),
    created: timestamp,
    livemode: z.boolean(),
    data: z.union([
      paymentSchema.extend({
        recovery_channel: z.enum(CHANNELS).nullable().optional().meta({
          description: 'payment.recovered only: what brought the payment back',
        }),
        network_hold: networkHoldSchema.optional().meta({ description: 'payment.network_held only: the rule that held the attempt back' }),
      }),
      z.strictObject({
        campaign_id: prefixedId('cmp'),
        enrollment_id: prefixedId('enr'),
        customer_id: prefixedId('cus'),
        payment_id: prefixedId('pay'),
        step: count.meta({ description: "index of the step in the campaign version the customer's enrollment joined" }),
        channel: z.enum(['email', 'sms']),
      }),
    ]),
  })
  .meta({ id: 'PaymentEvent' });

/** §4.3 retry response. */
export const retryStartedSchema = z
  .strictObject({
    id: prefixedId('pay'),
    status: z.enum(PAYMENT_STATUSES),
    retry_count: count,
    retry_initiated_at: timestamp.nullable(),
    message: z.string(),
  })
  .meta({ id: 'RetryStarted' });

export type PaymentResource = z.output<typeof paymentSchema>;
export type PaymentDetail = z.output<typeof paymentDetailSchema>;
export type CustomerPaymentItem = z.output<typeof customerPaymentSchema>;
export type RetryStarted = z.output<typeof retryStartedSchema>;
export type PaymentEvent = z.output<typeof paymentEventSchema>;

/** Payment events carry exactly the REST object (model/events.ts). */
export type PaymentEventMatches = Assert<Same<PaymentResource, PaymentEventData>>;
