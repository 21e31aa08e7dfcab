import * as z from '../../zod.ts';
import { CUSTOMER_STATUSES } from '../../model/customer.ts';
import type { CustomerEventData } from '../../model/events.ts';
import type { eraseCustomer } from '../../domain/customers/customer-erasure.ts';
import { amount, count, currency, prefixedId, rate, timestamp, type Assert, type Same } from './common.ts';

/** §2.3 / §4.2: the customer list item. */
export const customerListItemSchema = z
  .strictObject({
    id: prefixedId('cus'),
    email: z.string().nullable(),
    name: z.string().nullable(),
    psp: z.string(),
    psp_customer_id: z.string(),
    status: z.enum(CUSTOMER_STATUSES),
    total_payments: count,
    failed_payments: count.meta({ description: 'payments still awaiting recovery' }),
    recovered_payments: count,
    total_recovered_amount: amount.meta({ description: 'in total_recovered_currency' }),
    total_recovered_currency: currency.nullable().meta({ description: "the customer's billing currency (their latest payment's)" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'CustomerListItem' });

/** §2.3 detail. */
export const customerDetailSchema = customerListItemSchema
  .extend({
    subscriptions: z.array(
      z.strictObject({
        id: prefixedId('sub'),
        psp_subscription_id: z.string(),
        plan: z.string().nullable(),
        amount: amount.nullable(),
        currency: currency.nullable(),
        status: z.string().nullable(),
        current_period_end: timestamp.nullable(),
      }),
    ),
    payment_method: z
      .strictObject({
        type: z.string(),
        brand: z.string().nullable(),
        last_four: z.string().nullable(),
        exp_month: z.int().min(1).max(12).nullable(),
        exp_year: z.int().nullable(),
      })
      .nullable(),
    recovery_summary: z.strictObject({
      total_failures: count,
      total_recovered: count,
      total_terminal: count,
      total_pending: count,
      recovery_rate: rate,
      total_recovered_amount: amount,
      currency: currency.nullable(),
    }),
  })
  .meta({ id: 'Customer' });

/** §4.2 DELETE: what the erasure removed and kept. */
export const customerErasureSchema = z
  .strictObject({
    id: prefixedId('cus'),
    deleted: z.literal(true),
    anonymized_records: count.meta({ description: 'payment records kept in anonymised form for financial reporting' }),
  })
  .meta({ id: 'CustomerErasure' });

export type CustomerListItem = z.output<typeof customerListItemSchema>;
export type CustomerDetail = z.output<typeof customerDetailSchema>;

export type ErasureMatches = Assert<Same<Awaited<ReturnType<typeof eraseCustomer>>, z.output<typeof customerErasureSchema>>>;

/** Customer events carry exactly the list item (model/events.ts). */
export type CustomerEventMatches = Assert<Same<CustomerListItem, CustomerEventData>>;
