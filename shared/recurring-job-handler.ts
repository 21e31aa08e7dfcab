import type { Context } from 'aws-lambda';
import * as z from './zod.ts';
import { describeError, log, setLogContext } from './log.ts';

/**
 * What a recurring schedule delivers: the schedule's own time for this run (EventBridge Scheduler's
 * `<aws.scheduler.scheduled-time>`, the local runner's occurrence), the same on every retry of it.
 */
const recurringEvent = z.object({ scheduled_time: z.iso.datetime({ offset: true }) });

export type RecurringJobEvent = z.infer<typeof recurringEvent>;

/**
 * A recurring job's Lambda: not about one tenant (unlike `jobHandler`), so it gets only the run's
 * scheduled time, which names what it does so a retried run repeats rather than adds work. Failures
 * propagate, for Lambda to retry the run and then keep it in the jobs' dead-letter queue, as for jobHandler.
 */
export function recurringJobHandler(name: string, run: (scheduledTime: Date) => Promise<unknown>) {
  return async (raw: unknown, context?: Context): Promise<unknown> => {
    const event = recurringEvent.parse(raw);
    setLogContext({ request_id: context?.awsRequestId, route: `job ${name}`, scheduled_time: event.scheduled_time });
    try {
      const result = await run(new Date(event.scheduled_time));
      log.info('job completed', { result });
      return result;
    } catch (error) {
      log.error('job failed', describeError(error));
      throw error;
    }
  };
}
