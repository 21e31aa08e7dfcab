import { runtime } from '../../shared/runtime.ts';
import { lastDailyRun, RECURRING_JOBS } from '../../shared/jobs.ts';
import { invokeJob, type JobRun } from './invoke-job.ts';
import { localRuntime } from './local-runtime.ts';

/** Runs before this process started are not its to fire, as a new schedule does not fire for the past. */
const startedAt = runtime.clock.now().getTime();
/** The latest run this process claimed, per job, so most calls cost no table request. */
const claimed = new Map<string, number>();

/**
 * Fires each recurring job (shared/jobs.ts) whose time of day the clock has passed since its last
 * run, once however far the clock jumped: a run looks at the clock's now, so replaying the days
 * skipped would repeat the same work.
 */
export async function runRecurringJobs(): Promise<JobRun[]> {
  const local = localRuntime();
  const runs: JobRun[] = [];
  for (const job of RECURRING_JOBS) {
    const occurrence = lastDailyRun(job, runtime.clock.now());
    if (occurrence.getTime() <= Math.max(startedAt, claimed.get(job.name) ?? 0)) continue;
    const won = await local.scheduler.claimRecurring(job.name, occurrence);
    claimed.set(job.name, occurrence.getTime());
    if (!won) continue;
    const runAt = occurrence.toISOString();
    const outcome = await invokeJob(job.handler, { scheduled_time: runAt }, { job: job.name, scheduled_time: runAt });
    runs.push({ job_id: `${job.name}@${runAt}`, kind: job.name, run_at: runAt, ...outcome });
  }
  return runs;
}
