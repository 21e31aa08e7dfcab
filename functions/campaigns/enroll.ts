import * as z from '#shared/zod';
import { scheduler } from '#shared/composition/scheduler';
import { enrollManually } from '#shared/domain/dunning/dunning';
import { restHandler } from '#shared/http/rest-handler';
import { created } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { enrollmentResource } from '#shared/representations/enrollment';

const body = z.strictObject({
  customer_id: z.string().regex(/^cus_[0-9a-z]{26}$/, { error: 'must be a cus_ id' }),
  payment_id: z.string().regex(/^pay_[0-9a-z]{26}$/, { error: 'must be a pay_ id' }).optional(),
});

/** POST /v1/campaigns/{id}/enrollments: enroll a customer by hand (the `manual` trigger, or any active campaign). */
export const handler = restHandler({ params: idParam('cmp'), body }, async ({ auth, params, body, now }) => {
  const enrollment = await enrollManually({ scheduler }, auth.tenant, params.id, body.customer_id, body.payment_id ?? null, now);
  return created(enrollmentResource(enrollment));
});
