/**
 * Every Lambda function the stack deploys, from the same tables lib/ builds them from: one per route,
 * the APIs' fallback, one per scheduled job kind and recurring job, the SQS workers and the event
 * stream's consumer.
 */
import { EVENT_STREAM_HANDLER } from '../lib/event-stream.ts';
import { WORKERS } from '../lib/workers.ts';
import { JOBS, RECURRING_JOBS } from '../shared/jobs.ts';
import type { JobKind } from '../shared/ports/scheduler.ts';
import { FALLBACK_HANDLER, ROUTES, type Route } from '../shared/routes.ts';

export type LambdaEntry =
  | { handler: string; kind: 'route'; route: Route }
  | { handler: string; kind: 'fallback' }
  | { handler: string; kind: 'job'; job: JobKind }
  | { handler: string; kind: 'recurring' }
  | { handler: string; kind: 'worker' }
  | { handler: string; kind: 'stream' };

export function lambdaEntries(): LambdaEntry[] {
  return [
    ...ROUTES.map((route): LambdaEntry => ({ handler: route.handler, kind: 'route', route })),
    { handler: FALLBACK_HANDLER, kind: 'fallback' },
    ...JOBS.map((job): LambdaEntry => ({ handler: job.handler, kind: 'job', job: job.kind })),
    ...RECURRING_JOBS.map((job): LambdaEntry => ({ handler: job.handler, kind: 'recurring' })),
    ...WORKERS.map((worker): LambdaEntry => ({ handler: worker.handler, kind: 'worker' })),
    { handler: EVENT_STREAM_HANDLER, kind: 'stream' },
  ];
}
