import * as z from '../zod.ts';
import { DECLINE_CATEGORIES, PAYMENT_SORTS, PAYMENT_STATUSES } from '../model/payment.ts';
import { createdRange, processorName } from './list-filters.ts';
import { oneOf, pageQuery, queryValue, sortOrder } from './query-schemas.ts';

const amount = queryValue(
  z
    .string()
    .regex(/^\d{1,15}$/, { error: 'must be a non-negative integer in the smallest currency unit' })
    .transform(Number),
  { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 },
);

/**
 * GET /v1/payments (§4.3). Strict: an unknown parameter is a 400 naming it, as is a value outside
 * its set.
 */
export const paymentListQuery = z
  .strictObject({
    status: oneOf(PAYMENT_STATUSES).optional(),
    customer_id: z.string().regex(/^cus_[0-9a-z]{26}$/, { error: 'must be a cus_ id' }).optional(),
    decline_category: oneOf(DECLINE_CATEGORIES).optional(),
    decline_code: z.string().min(1).max(100, { error: 'must be at most 100 characters' }).optional(),
    psp: processorName().optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 code' })
      .transform((code) => code.toLowerCase())
      .optional(),
    amount_min: amount.optional(),
    amount_max: amount.optional(),
    ...createdRange(),
    sort: oneOf(PAYMENT_SORTS).default('created_at'),
    order: sortOrder(),
    ...pageQuery,
  })
  .refine((query) => query.amount_min === undefined || query.amount_max === undefined || query.amount_min <= query.amount_max, {
    error: 'must not be greater than amount_max',
    path: ['amount_min'],
  });
