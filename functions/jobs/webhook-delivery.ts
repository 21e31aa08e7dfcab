import * as z from '#shared/zod';
import { runtime } from '#shared/runtime';
import { scheduler } from '#shared/composition/scheduler';
import { webhookSender } from '#shared/composition/webhook-sender';
import { jobHandler } from '#shared/job-handler';
import { runDeliveryAttempt } from '#shared/domain/outbound-webhooks/delivery';

const payload = z.object({
  endpoint_id: z.string().regex(/^we_[0-9a-z]{26}$/),
  event_id: z.string().regex(/^evt_[0-9a-z]{26}$/),
  attempt: z.number().int().min(1),
});

/** Queued by the webhook fan-out (attempt 1), by a failed attempt (the next, after backoff) or by a replay. */
export const handler = jobHandler(payload, (tenant, job) => runDeliveryAttempt({ scheduler, webhookSender }, tenant, job, () => runtime.clock.now()));
