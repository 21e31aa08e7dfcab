import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { ENVIRONMENTS, type Tenant } from './domain/tenant.ts';
import { describeError, log, setLogContext } from './log.ts';
import type { JobEvent } from './ports/scheduler.ts';

const jobEvent = z.object({
  jobId: z.string(),
  kind: z.string(),
  tenant: z.object({ merchantId: z.string().min(1), environment: z.enum(ENVIRONMENTS) }),
  payload: z.record(z.string(), z.unknown()),
});

/**
 * A scheduled job's Lambda: validates the event EventBridge Scheduler (or the local runner) delivers,
 * logs with the job's context, and lets failures propagate so the scheduler's retry policy applies.
 */
export function jobHandler<P extends z.ZodType>(payload: P, run: (tenant: Tenant, job: z.infer<P>, event: JobEvent) => Promise<unknown>) {
  return async (raw: unknown, _context?: Context): Promise<unknown> => {
    const event = jobEvent.parse(raw) as JobEvent;
    setLogContext({ job_id: event.jobId, kind: event.kind, merchant_id: event.tenant.merchantId, environment: event.tenant.environment });
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
