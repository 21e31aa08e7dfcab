import type { JobKind } from './ports/scheduler.ts';

/**
 * The functions that run scheduled jobs, like the route table for HTTP: CDK creates one Lambda per
 * entry and makes it a Scheduler target; the local scheduler calls the same handler module.
 */
export interface JobDefinition {
  kind: JobKind;
  /** Handler module under functions/, without extension; it exports `handler(event: JobEvent)`. */
  handler: string;
}

export const JOBS: readonly JobDefinition[] = [
  { kind: 'payment-retry', handler: 'jobs/payment-retry' },
  { kind: 'campaign-step', handler: 'jobs/campaign-step' },
  { kind: 'webhook-delivery', handler: 'jobs/webhook-delivery' },
];

export function jobFor(kind: JobKind): JobDefinition | undefined {
  return JOBS.find((job) => job.kind === kind);
}
