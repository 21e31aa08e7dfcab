import type { Context } from 'aws-lambda';
import { runtime } from '../../shared/composition.ts';
import { jobFor } from '../../shared/jobs.ts';
import { describeError, log, withLogScope } from '../../shared/log.ts';
import type { JobEvent } from '../../shared/ports/scheduler.ts';
import { lambdaContext } from './lambda-event.ts';

type JobHandler = (event: JobEvent, context: Context) => Promise<unknown>;

export interface JobRun {
  job_id: string;
  kind: string;
  run_at: string;
  outcome: 'succeeded' | 'failed';
  error?: string;
}

const MAX_ROUNDS = 100;

/**
 * Fires every scheduled job due at the clock's now, as EventBridge Scheduler would invoke the job's
 * Lambda, including jobs those jobs schedule for no later than now. Each job is claimed first, so
 * two runners never fire one job twice.
 */
export async function runDueJobs(): Promise<JobRun[]> {
  const local = runtime.local;
  if (!local) throw new Error('The local job runner needs RUNTIME_MODE=local');
  const runs: JobRun[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const due = await local.scheduler.due(runtime.clock.now());
    if (due.length === 0) break;
    for (const job of due) {
      if (!(await local.scheduler.claim(job))) continue;
      const definition = jobFor(job.kind);
      const run: JobRun = { job_id: job.jobId, kind: job.kind, run_at: job.runAt, outcome: 'succeeded' };
      try {
        if (!definition) throw new Error(`No job handler for ${job.kind}`);
        const module = (await import(new URL(`../../functions/${definition.handler}.ts`, import.meta.url).href)) as { handler: JobHandler };
        const { runAt: _runAt, ...event } = job;
        await withLogScope(() => module.handler(event, lambdaContext(definition.handler)));
      } catch (error) {
        log.error('scheduled job failed', { job_id: job.jobId, kind: job.kind, ...describeError(error) });
        run.outcome = 'failed';
        run.error = (error as Error).message;
      }
      runs.push(run);
    }
  }
  return runs;
}
