import type { Context } from 'aws-lambda';
import * as z from './zod.ts';
import { runtime } from './runtime.ts';
import { ENVIRONMENTS, type Tenant } from './model/tenant.ts';
import { describeError, log, setLogContext } from './log.ts';
import { metrics } from './metrics.ts';
import type { JobEvent } from './ports/scheduler.ts';

const jobEvent = z.object({
  jobId: z.string(),
  kind: z.string(),
  tenant: z.object({ merchantId: z.string().min(1), environment: z.enum(ENVIRONMENTS) }),
  payload: z.record(z.string(), z.unknown()),
  // Absent on schedules created before it was added.
  scheduledAt: z.iso.datetime().optional(),
});

/**
 * A scheduled job's Lambda: validates the event EventBridge Scheduler (or the local runner) delivers,
 * logs with the job's context, reports how late it started, and lets failures propagate: Lambda
 * retries the asynchronous invocation (each retry reports a later start, so a stuck job shows as lag),
 * then keeps the event in the jobs' dead-letter queue (lib/scheduling.ts, JOB_ASYNC_INVOKE).
 */
export function jobHandler<P extends z.ZodType>(payload: P, run: (tenant: Tenant, job: z.infer<P>, event: JobEvent) => Promise<unknown>) {
  return async (raw: unknown, context?: Context): Promise<unknown> => {
    const event = jobEvent.parse(raw) as JobEvent;
    setLogContext({
      request_id: context?.awsRequestId,
      route: `job ${event.kind}`,
      job_id: event.jobId,
      merchant_id: event.tenant.merchantId,
      environment: event.tenant.environment,
    });
    if (event.scheduledAt !== undefined) {
      const now = runtime.clock.now();
      metrics.jobLag(event.kind, (now.getTime() - Date.parse(event.scheduledAt)) / 1000, now);
    }
    const job = payload.parse(event.payload);
    try {
      const result = await run(event.tenant, job, event);
      log.info('job completed', { result });
      return result;
    } catch (error) {
      log.error('job failed', describeError(error));
      throw error;
    }
  };
}
