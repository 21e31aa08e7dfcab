import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { JOB_ID_PATTERN, type JobEvent, type ScheduledJob, type Scheduler } from '../../ports/scheduler.ts';
import { isConditionFailure } from '../../store/dynamo.ts';
import { JOB_ASYNC_RETRIES } from '../../jobs.ts';

/** Local schedule items start with this; a scope keeps separate processes (test files) off each other's jobs. */
export const LOCAL_JOB_PREFIX = 'LOCALJOB';

export interface DueJob extends JobEvent {
  runAt: string;
  /** Runs begun so far (a failed or cut-off run leaves the job due again). */
  tries: number;
}

/** One claimed run of a job: who claimed it, and which try it is. */
export interface LocalJobRun {
  runner: string;
  tries: number;
}

/** As Lambda's asynchronous invocation of a job function (lib/scheduling.ts): the first try and two retries, a minute apart and then two. */
const JOB_TRIES = JOB_ASYNC_RETRIES.retryAttempts + 1;
const JOB_RETRY_STEP_MS = 60_000;

function dueJob(item: Record<string, unknown>): DueJob {
  return {
    jobId: item.sk as string,
    kind: item.kind as JobEvent['kind'],
    tenant: item.tenant as JobEvent['tenant'],
    payload: item.payload as Record<string, unknown>,
    runAt: item.run_at as string,
    tries: (item.tries as number | undefined) ?? 0,
  };
}

/**
 * The local stand-in for EventBridge Scheduler: jobs are items in the table (so they survive a
 * restart of `npm start`), indexed by due time; the local server fires the due ones.
 */
export class LocalScheduler implements Scheduler {
  private readonly pk: string;
  private readonly duePk: string;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    scope: string,
  ) {
    this.pk = `${LOCAL_JOB_PREFIX}#${scope}`;
    this.duePk = `${LOCAL_JOB_PREFIX}#DUE#${scope}`;
  }

  async schedule(job: ScheduledJob): Promise<void> {
    if (!JOB_ID_PATTERN.test(job.id)) throw new Error(`Invalid job id '${job.id}'`);
    const runAt = job.runAt.toISOString();
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: this.pk,
          sk: job.id,
          gsi1pk: this.duePk,
          gsi1sk: `${runAt}#${job.id}`,
          entity: 'local_job',
          kind: job.kind,
          run_at: runAt,
          tenant: job.tenant,
          payload: job.payload,
        },
      }),
    );
  }

  /**
   * Deletes the job's schedule. One in the dead letters stays there, as in AWS a deleted schedule does
   * not take back what its dead-letter queue holds: a redrive still runs it, and it finds its work moot.
   */
  async cancel(jobId: string): Promise<void> {
    try {
      await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: this.pk, sk: jobId }, ConditionExpression: 'attribute_not_exists(dead)' }));
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** Jobs due at `now`, earliest first. */
  async due(now: Date): Promise<DueJob[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :now',
        ExpressionAttributeValues: { ':pk': this.duePk, ':now': `${now.toISOString()}#~` },
      }),
    );
    return Items.map(dueJob);
  }

  /**
   * Marks a recurring job's run at `occurrence` as taken by `runner` (unique per call); false when it
   * (or a later one) already was, so two runners (the timer and /__dev/run-due) never fire one run
   * twice. A try whose answer was lost and whose resend then fails the condition finds its own mark.
   */
  async claimRecurring(name: string, occurrence: Date, runner: string = randomUUID()): Promise<boolean> {
    const at = occurrence.toISOString();
    const key = { pk: this.pk, sk: `RECURRING#${name}` };
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, entity: 'local_recurring_job', last_run: at, runner },
          ConditionExpression: 'attribute_not_exists(pk) OR last_run < :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return (await this.read(key))?.runner === runner;
      throw error;
    }
  }

  /**
   * Takes a due job for one run, as EventBridge Scheduler hands an event to Lambda: the job stays in
   * the table, due again at the time Lambda would retry it (1, then 2 minutes of the clock later), so
   * a run that fails, or a server stopped mid-run, runs again; `done` or `failed` follows the run.
   * False when another runner (or a cancel) got there first, or the job is past its last try.
   */
  async claim(job: DueJob, now: Date, runner: string = randomUUID()): Promise<LocalJobRun | undefined> {
    const key = { pk: this.pk, sk: job.jobId };
    const tries = job.tries + 1;
    const retryAt = new Date(now.getTime() + tries * JOB_RETRY_STEP_MS).toISOString();
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET run_at = :retryAt, gsi1sk = :due, tries = :tries, runner = :runner',
          ConditionExpression: 'run_at = :runAt',
          ExpressionAttributeValues: { ':retryAt': retryAt, ':due': `${retryAt}#${job.jobId}`, ':tries': tries, ':runner': runner, ':runAt': job.runAt },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A resend after a lost answer fails on the run_at its first try moved: then the claim is ours.
      if ((await this.read(key))?.runner !== runner) return undefined;
    }
    return { runner, tries };
  }

  /** The run succeeded: the job leaves the schedule, unless a later schedule() replaced it meanwhile. */
  async done(job: DueJob, run: LocalJobRun): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: this.pk, sk: job.jobId },
          ConditionExpression: 'runner = :runner',
          ExpressionAttributeValues: { ':runner': run.runner },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * The run failed: it runs again when its claim said, unless that was its last try; then it leaves
   * the due index for the dead letters (`deadLetters()`), as Lambda sends it to the jobs' dead-letter queue.
   */
  async failed(job: DueJob, run: LocalJobRun): Promise<'retry' | 'dead'> {
    if (run.tries < JOB_TRIES) return 'retry';
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: this.pk, sk: job.jobId },
          UpdateExpression: 'SET dead = :dead REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'runner = :runner',
          ExpressionAttributeValues: { ':runner': run.runner, ':dead': true },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    return 'dead';
  }

  /**
   * Puts every dead-lettered job back on the schedule, due at `now` with its tries afresh, as an
   * operator redrives the jobs' dead-letter queue once the cause is fixed; how many.
   */
  async redrive(now: Date): Promise<number> {
    const dead = await this.deadLetters();
    const at = now.toISOString();
    for (const job of dead) {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: this.pk, sk: job.jobId },
          UpdateExpression: 'SET run_at = :at, gsi1pk = :due, gsi1sk = :sk, tries = :none REMOVE dead',
          ConditionExpression: 'dead = :dead',
          ExpressionAttributeValues: { ':at': at, ':due': this.duePk, ':sk': `${at}#${job.jobId}`, ':none': 0, ':dead': true },
        }),
      );
    }
    return dead.length;
  }

  /** Jobs that failed every try: what the jobs' dead-letter queue would hold. */
  async deadLetters(): Promise<DueJob[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'dead = :dead',
        ExpressionAttributeValues: { ':pk': this.pk, ':dead': true },
        ConsistentRead: true,
      }),
    );
    return Items.map(dueJob);
  }

  private async read(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    return (await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
  }
}
