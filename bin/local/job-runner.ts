import { runtime } from '../../shared/runtime.ts';
import { jobFor } from '../../shared/jobs.ts';
import { invokeJob, type JobOutcome, type JobRun } from './invoke-job.ts';
import { localRuntime } from './local-runtime.ts';
import { runRecurringJobs } from './recurring-runner.ts';

const MAX_ROUNDS = 100;

/**
 * Fires every scheduled job due at the clock's now, as EventBridge Scheduler would invoke the job's
 * Lambda, including jobs those jobs schedule for no later than now, after any recurring job whose
 * time of day the clock has passed (the daily calendar sweep). Each job is claimed first, so two
 * runners never fire one job twice.
 */
export async function runDueJobs(): Promise<JobRun[]> {
  const local = localRuntime();
  // Recurring jobs first: what they queue for now runs in the rounds below.
  const runs: JobRun[] = await runRecurringJobs();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const due = await local.scheduler.due(runtime.clock.now());
    if (due.length === 0) break;
    for (const job of due) {
      if (!(await local.scheduler.claim(job))) continue;
      const definition = jobFor(job.kind);
      const { runAt, ...event } = job;
      const outcome: JobOutcome = definition
        ? await invokeJob(definition.handler, { ...event, scheduledAt: runAt }, { job_id: job.jobId, kind: job.kind })
        : { outcome: 'failed', error: `No job handler for ${job.kind}` };
      runs.push({ job_id: job.jobId, kind: job.kind, run_at: runAt, ...outcome });
    }
  }
  return runs;
}
