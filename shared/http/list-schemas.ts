import * as z from '../zod.ts';
import { CUSTOMER_SORTS, CUSTOMER_STATUSES } from '../domain/customers.ts';
import { ENROLLMENT_STATUSES } from '../domain/enrollments.ts';
import { SORT_ORDERS } from '../domain/listing.ts';
import { DECLINE_CATEGORIES, PAYMENT_SORTS, PAYMENT_STATUSES } from '../domain/payments.ts';
import { pageQuery, queryValue } from './query-schemas.ts';
import { isoTimestamp } from './time-schemas.ts';

/**
 * Query strings of the payment and customer lists (§4.2, §4.3). Strict: an unknown parameter is a
 * 400 naming it, as is a value outside its set.
 */
const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of: ${values.join(', ')}` });

const order = oneOf(SORT_ORDERS).default('desc');

const amount = queryValue(
  z
    .string()
    .regex(/^\d{1,15}$/, { error: 'must be a non-negative integer in the smallest currency unit' })
    .transform(Number),
  { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 },
);

const psp = z.string().regex(/^[a-z][a-z0-9_-]{1,31}$/, { error: 'must be a processor name: lowercase letters, digits, - and _' });

const customerId = z.string().regex(/^cus_[0-9a-z]{26}$/, { error: 'must be a cus_ id' });

const created = {
  created_after: isoTimestamp.optional(),
  created_before: isoTimestamp.optional(),
};

export const paymentListQuery = z
  .strictObject({
    status: oneOf(PAYMENT_STATUSES).optional(),
    customer_id: customerId.optional(),
    decline_category: oneOf(DECLINE_CATEGORIES).optional(),
    decline_code: z.string().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
    psp: psp.optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 code' })
      .transform((code) => code.toLowerCase())
      .optional(),
    amount_min: amount.optional(),
    amount_max: amount.optional(),
    ...created,
    sort: oneOf(PAYMENT_SORTS).default('created_at'),
    order,
    ...pageQuery,
  })
  .refine((query) => query.amount_min === undefined || query.amount_max === undefined || query.amount_min <= query.amount_max, {
    error: 'must not be greater than amount_max',
    path: ['amount_min'],
  });

export const customerPaymentsQuery = z.strictObject({
  status: oneOf(PAYMENT_STATUSES).optional(),
  sort: oneOf(PAYMENT_SORTS).default('created_at'),
  order,
  ...pageQuery,
});

/** A customer's or a campaign's enrollments: always newest first, like Stripe's lists. */
export const enrollmentListQuery = z.strictObject({
  status: oneOf(ENROLLMENT_STATUSES).optional(),
  ...pageQuery,
});

export const customerListQuery = z.strictObject({
  query: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }).optional(),
  status: oneOf(CUSTOMER_STATUSES).optional(),
  psp: psp.optional(),
  has_failed_payment: queryValue(
    oneOf(['true', 'false']).transform((value) => value === 'true'),
    { type: 'boolean' },
  ).optional(),
  ...created,
  sort: oneOf(CUSTOMER_SORTS).default('created_at'),
  order,
  ...pageQuery,
});
