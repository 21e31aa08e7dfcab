import { log } from '../../shared/log.ts';
import { runtime } from '../../shared/runtime.ts';
import { jobFor } from '../../shared/jobs.ts';
import type { DueJob } from '../../shared/adapters/local/local-scheduler.ts';
import { invokeJob, type JobOutcome, type JobRun } from './invoke-job.ts';
import { inLanes, LOCAL_CONCURRENCY } from './lanes.ts';
import { localRuntime } from './local-runtime.ts';
import { runRecurringJobs } from './recurring-runner.ts';

const MAX_ROUNDS = 100;
/**
 * Due jobs fired side by side go in lanes: a payment's jobs (its retry, its dunning step) still run in
 * due order, so a run does not depend on which of two invocations happened to finish first.
 */
const laneOf = (job: DueJob) => `${job.tenant.merchantId}#${job.tenant.environment}#${String(job.payload.payment_id ?? job.payload.customer_id ?? job.jobId)}`;

/**
 * Fires every scheduled job due at the clock's now, as EventBridge Scheduler would invoke the job's
 * Lambda, including jobs those jobs schedule for no later than now, after any recurring job whose
 * time of day the clock has passed (the daily calendar sweep). Each job is claimed first, so two
 * runners never fire one job twice; one that fails is due again a minute or two of the clock later,
 * three tries in all, as Lambda retries an asynchronous invocation.
 */
export async function runDueJobs(): Promise<JobRun[]> {
  const local = localRuntime();
  // Recurring jobs first: what they queue for now runs in the rounds below.
  const runs: JobRun[] = await runRecurringJobs();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const due = await local.scheduler.due(runtime.clock.now());
    if (due.length === 0) break;
    await inLanes(due, laneOf, LOCAL_CONCURRENCY, async (job) => {
      const run = await local.scheduler.claim(job, runtime.clock.now());
      if (!run) return;
      const definition = jobFor(job.kind);
      const { jobId, kind, tenant, payload, runAt } = job;
      const outcome: JobOutcome = definition
        ? await invokeJob(definition.handler, { jobId, kind, tenant, payload, scheduledAt: runAt }, { job_id: jobId, kind, try: run.tries })
        : { outcome: 'failed', error: `No job handler for ${job.kind}` };
      if (outcome.outcome === 'succeeded') await local.scheduler.done(job, run);
      else if ((await local.scheduler.failed(job, run)) === 'dead') log.error('job moved to the dead letters after its last try', { job_id: job.jobId, kind: job.kind });
      runs.push({ job_id: job.jobId, kind: job.kind, run_at: runAt, ...outcome });
    });
  }
  return runs;
}
