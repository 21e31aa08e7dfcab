import type { Tenant } from '../model/tenant.ts';

/**
 * One-time jobs at a point in time (payment retries, campaign steps, a tenant's calendar scan).
 * EventBridge Scheduler in AWS; a table-backed schedule fired by the local server's timer or
 * `POST /__dev/run-due` locally.
 */
export type JobKind = 'payment-retry' | 'campaign-step' | 'campaign-sweep' | 'webhook-delivery' | 'calendar-scan';

export interface ScheduledJob {
  /** Unique and stable for the work it does, so scheduling the same work twice is harmless. [A-Za-z0-9_.-], ≤ 64. */
  id: string;
  kind: JobKind;
  runAt: Date;
  tenant: Tenant;
  payload: Record<string, unknown>;
}

/** What a job's Lambda receives. */
export interface JobEvent {
  jobId: string;
  kind: JobKind;
  tenant: Tenant;
  payload: Record<string, unknown>;
  /** When the job was due (ISO 8601): the handler reports how late it started (the JobLag metric). */
  scheduledAt?: string;
}

export interface Scheduler {
  schedule(job: ScheduledJob): Promise<void>;
  /** Cancelling a job that already ran or never existed is not an error. */
  cancel(jobId: string): Promise<void>;
}

export const JOB_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
