import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ReturnValue } from '@aws-sdk/client-dynamodb';
import { JOB_ID_PATTERN, type JobEvent, type ScheduledJob, type Scheduler } from '../../ports/scheduler.ts';
import { isConditionFailure } from '../../store/dynamo.ts';

/** Local schedule items start with this; a scope keeps separate processes (test files) off each other's jobs. */
export const LOCAL_JOB_PREFIX = 'LOCALJOB';

export interface DueJob extends JobEvent {
  runAt: string;
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

  async cancel(jobId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: this.pk, sk: jobId } }));
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
    return Items.map((item) => ({
      jobId: item.sk as string,
      kind: item.kind as JobEvent['kind'],
      tenant: item.tenant as JobEvent['tenant'],
      payload: item.payload as Record<string, unknown>,
      runAt: item.run_at as string,
    }));
  }

  /**
   * Marks a recurring job's run at `occurrence` as taken; false when it (or a later one) already was,
   * so two runners (the timer and /__dev/run-due) never fire one run twice.
   */
  async claimRecurring(name: string, occurrence: Date): Promise<boolean> {
    const at = occurrence.toISOString();
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: this.pk, sk: `RECURRING#${name}`, entity: 'local_recurring_job', last_run: at },
          ConditionExpression: 'attribute_not_exists(pk) OR last_run < :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Takes a due job off the schedule; false when another runner (or a cancel) got there first. */
  async claim(job: DueJob): Promise<boolean> {
    try {
      const { Attributes } = await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: this.pk, sk: job.jobId },
          ConditionExpression: 'run_at = :runAt',
          ExpressionAttributeValues: { ':runAt': job.runAt },
          ReturnValues: ReturnValue.ALL_OLD,
        }),
      );
      return Attributes !== undefined;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
