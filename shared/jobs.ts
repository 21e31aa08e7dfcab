import type { JobKind } from './ports/scheduler.ts';
import type { CredentialUse } from './routes.ts';

/**
 * The functions that run scheduled jobs, like the route table for HTTP: CDK creates one Lambda per
 * entry and makes it a Scheduler target; the local scheduler calls the same handler module.
 */
export interface JobDefinition {
  kind: JobKind;
  /** Handler module under functions/, without extension; it exports `handler(event: JobEvent)`. */
  handler: string;
  /** Outside services beyond the table and the scheduler, for the function's configuration and IAM grants (as routes declare theirs). */
  services?: readonly 'messaging'[];
  /** Opens processors' credentials to call their APIs (as routes declare it). */
  credentials?: CredentialUse;
}

/**
 * How Lambda retries an asynchronous invocation of a job function (lib/scheduling.ts): a try that
 * fails is tried twice more, 1 and then 2 minutes later; an invocation it cannot start (the function
 * throttled) it keeps for up to `maxEventAgeHours`. Past either, the event waits in the jobs'
 * dead-letter queue until an operator redrives it.
 */
export const JOB_ASYNC_RETRIES = { retryAttempts: 2, maxEventAgeHours: 6 } as const;

export const JOBS: readonly JobDefinition[] = [
  { kind: 'payment-retry', handler: 'jobs/payment-retry', credentials: 'open' },
  { kind: 'campaign-step', handler: 'jobs/campaign-step', services: ['messaging'] },
  { kind: 'campaign-sweep', handler: 'jobs/campaign-sweep' },
  { kind: 'webhook-delivery', handler: 'jobs/webhook-delivery' },
  { kind: 'calendar-scan', handler: 'jobs/calendar-scan' },
];

/**
 * Jobs that run on a recurring schedule rather than for one tenant: CDK creates the function and a
 * recurring schedule in the schedule group; the local job runner fires the handler when the clock
 * passes the time of day. The handler gets `{ scheduled_time }` (recurring-job-handler.ts).
 */
export interface RecurringJobDefinition {
  /** Names the function (`<stack>-job-<name>`) and the schedule. */
  name: string;
  /** Handler module under functions/, without extension. */
  handler: string;
  /** Every day at this UTC time. */
  dailyAt: { hour: number; minute: number };
  description: string;
}

export const RECURRING_JOBS: readonly RecurringJobDefinition[] = [
  {
    name: 'calendar-sweep',
    handler: 'jobs/calendar-sweep',
    // Daytime from Europe to the Americas' west coast, so a calendar step without delay lands in the day.
    dailyAt: { hour: 14, minute: 0 },
    description: 'Daily calendar sweep: queues the calendar scan (card_expiring, pre_dunning) of every tenant with an active calendar campaign',
  },
];

/** The latest run of a daily job at or before `now`. */
export function lastDailyRun(job: Pick<RecurringJobDefinition, 'dailyAt'>, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), job.dailyAt.hour, job.dailyAt.minute);
  return new Date(today <= now.getTime() ? today : today - 86_400_000);
}

export function jobFor(kind: JobKind): JobDefinition | undefined {
  return JOBS.find((job) => job.kind === kind);
}
