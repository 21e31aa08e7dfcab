import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { runtime } from '../composition.ts';
import { requireEnv } from '../config.ts';
import type { Scheduler } from '../ports/scheduler.ts';
import { EventBridgeScheduler } from './aws/eventbridge-scheduler.ts';

/** The scheduler for this runtime; in AWS its configuration is read at cold start of the functions that import it. */
export const scheduler: Scheduler =
  runtime.local?.scheduler ??
  new EventBridgeScheduler(new SchedulerClient({}), {
    groupName: requireEnv('SCHEDULE_GROUP'),
    roleArn: requireEnv('SCHEDULER_ROLE_ARN'),
    targets: JSON.parse(requireEnv('JOB_TARGETS')),
  });
