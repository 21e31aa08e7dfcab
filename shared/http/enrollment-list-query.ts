import * as z from '../zod.ts';
import { ENROLLMENT_STATUSES } from '../model/enrollment.ts';
import { oneOf, pageQuery } from './query-schemas.ts';

/** A customer's or a campaign's enrollments: always newest first, like Stripe's lists. */
export const enrollmentListQuery = z.strictObject({
  status: oneOf(ENROLLMENT_STATUSES).optional(),
  ...pageQuery,
});
