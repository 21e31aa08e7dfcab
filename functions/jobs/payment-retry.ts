import * as z from '#shared/zod';
import { keyVault } from '#shared/composition/key-vault';
import { paymentProcessor } from '#shared/composition/payment-processor';
import { scheduler } from '#shared/composition/scheduler';
import { runtime } from '#shared/runtime';
import { runRetryAttempt } from '#shared/domain/retries/retry-execution';
import { jobHandler } from '#shared/job-handler';
import { RETRY_TRIGGERS } from '#shared/model/payment';
import { metrics } from '#shared/metrics';

const payload = z.object({
  payment_id: z.string().regex(/^pay_[0-9a-z]{26}$/),
  attempt: z.number().int().min(1),
  trigger: z.enum(RETRY_TRIGGERS).default('automatic'),
  claimed: z.boolean().default(false),
  watchdog: z.boolean().default(false),
});

/** Scheduled by ingestion (automatic) or the retry endpoint (manual): one attempt at the processor, or its watchdog. */
export const handler = jobHandler(payload, async (tenant, job) => {
  const report = await runRetryAttempt(
    { scheduler, paymentProcessor, keyVault },
    tenant,
    { paymentId: job.payment_id, attempt: job.attempt, trigger: job.trigger, claimed: job.claimed, watchdog: job.watchdog },
    () => runtime.clock.now(),
  );
  metrics.retryAttempted(tenant, report, runtime.clock.now());
  return report;
});
