import type { Context } from 'aws-lambda';
import { describeError, log, withLogScope } from '../../shared/log.ts';
import { lambdaContext } from './lambda-event.ts';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

export interface JobOutcome {
  outcome: 'succeeded' | 'failed';
  error?: string;
}

/** One job the local runners fired, and how it went. */
export interface JobRun extends JobOutcome {
  job_id: string;
  kind: string;
  run_at: string;
}

/** Invokes a job's handler module as its Lambda would be invoked, in a log scope of its own; a failure is logged and reported, not thrown. */
export async function invokeJob(handler: string, event: unknown, describe: Record<string, unknown>): Promise<JobOutcome> {
  try {
    const module = (await import(new URL(`../../functions/${handler}.ts`, import.meta.url).href)) as { handler: Handler };
    await withLogScope(() => module.handler(event, lambdaContext(handler)));
    return { outcome: 'succeeded' };
  } catch (error) {
    log.error('scheduled job failed', { ...describe, ...describeError(error) });
    return { outcome: 'failed', error: (error as Error).message };
  }
}
