import * as z from '../zod.ts';
import { PAYMENT_SORTS, PAYMENT_STATUSES } from '../model/payment.ts';
import { oneOf, pageQuery, sortOrder } from './query-schemas.ts';

/** GET /v1/customers/{id}/payments: the payment list's status and orders, within one customer. */
export const customerPaymentsQuery = z.strictObject({
  status: oneOf(PAYMENT_STATUSES).optional(),
  sort: oneOf(PAYMENT_SORTS).default('created_at'),
  order: sortOrder(),
  ...pageQuery,
});
