import * as z from '../zod.ts';
import { CUSTOMER_SORTS, CUSTOMER_STATUSES } from '../model/customer.ts';
import { createdRange, processorName } from './list-filters.ts';
import { oneOf, pageQuery, queryValue, sortOrder } from './query-schemas.ts';

/** GET /v1/customers (§4.2): search, filters, four orders. Strict, as every list's query. */
export const customerListQuery = z.strictObject({
  query: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }).optional(),
  status: oneOf(CUSTOMER_STATUSES).optional(),
  psp: processorName().optional(),
  has_failed_payment: queryValue(
    oneOf(['true', 'false']).transform((value) => value === 'true'),
    { type: 'boolean' },
  ).optional(),
  ...createdRange(),
  sort: oneOf(CUSTOMER_SORTS).default('created_at'),
  order: sortOrder(),
  ...pageQuery,
});
