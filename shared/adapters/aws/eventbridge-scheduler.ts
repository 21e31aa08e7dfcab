import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ConflictException,
} from '@aws-sdk/client-scheduler';
import type { JobEvent, JobKind, ScheduledJob, Scheduler } from '../../ports/scheduler.ts';
import { JOB_ID_PATTERN } from '../../ports/scheduler.ts';

export interface EventBridgeSchedulerConfig {
  groupName: string;
  roleArn: string;
  /** The SQS queue Scheduler puts a job's event in when it cannot invoke the target after its retries. */
  deadLetterArn: string;
  /** The Lambda that runs each kind of job. */
  targets: Partial<Record<JobKind, string>>;
}

/** EventBridge Scheduler `at()` expressions take whole seconds of local time without zone; the zone is given separately. */
function atExpression(runAt: Date): string {
  return `at(${runAt.toISOString().slice(0, 19)})`;
}

/** The moment the `at()` expression fires: runAt to the second below. */
function firesAt(runAt: Date): string {
  return new Date(Math.floor(runAt.getTime() / 1000) * 1000).toISOString();
}

/** One-time schedules that delete themselves after running, no flexible window, with the stack's dead-letter queue. */
export class EventBridgeScheduler implements Scheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly config: EventBridgeSchedulerConfig,
  ) {}

  async schedule(job: ScheduledJob): Promise<void> {
    if (!JOB_ID_PATTERN.test(job.id)) throw new Error(`Invalid job id '${job.id}'`);
    const arn = this.config.targets[job.kind];
    if (!arn) throw new Error(`No scheduler target configured for ${job.kind} jobs`);
    const event: JobEvent = { jobId: job.id, kind: job.kind, tenant: job.tenant, payload: job.payload, scheduledAt: firesAt(job.runAt) };
    const input = {
      Name: job.id,
      GroupName: this.config.groupName,
      ScheduleExpression: atExpression(job.runAt),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      ActionAfterCompletion: 'DELETE' as const,
      Target: { Arn: arn, RoleArn: this.config.roleArn, Input: JSON.stringify(event), DeadLetterConfig: { Arn: this.config.deadLetterArn } },
    };
    try {
      await this.client.send(new CreateScheduleCommand(input));
    } catch (error) {
      // The same job scheduled again (a retried request) moves the existing schedule instead of failing.
      if (!(error instanceof ConflictException)) throw error;
      await this.client.send(new UpdateScheduleCommand(input));
    }
  }

  async cancel(jobId: string): Promise<void> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: jobId, GroupName: this.config.groupName }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}
