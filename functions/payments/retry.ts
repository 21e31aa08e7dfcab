import { scheduler } from '#shared/composition/scheduler';
import { retryPaymentNow } from '#shared/domain/retries/retry-execution';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import type { RetryStarted } from '#shared/representations/schemas/payment';

/** POST /v1/payments/{id}/retry (§4.3): an immediate retry from pending or communication_pending. */
export const handler = restHandler({ params: idParam('pay') }, async ({ auth, params, now, idempotencyKey }) => {
  const payment = await retryPaymentNow({ scheduler }, auth.tenant, params.id, now, 'manual', idempotencyKey);
  return ok({
    id: payment.id,
    status: payment.status,
    retry_count: payment.retry_count,
    retry_initiated_at: payment.retry_initiated_at,
    message: `Retry attempt ${payment.retry_count} submitted to ${payment.psp}.`,
  } satisfies RetryStarted);
});
