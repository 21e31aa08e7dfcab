import { serviceClientSettings } from '../aws-clients.ts';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { adapterFor } from './adapters.ts';
import { requireEnv } from '../config.ts';
import type { Scheduler } from '../ports/scheduler.ts';
import { EventBridgeScheduler, type EventBridgeSchedulerConfig } from '../adapters/aws/eventbridge-scheduler.ts';
import { builtOnFirstUse } from '../adapters/built-on-first-use.ts';

/** EventBridge Scheduler, configured at cold start of the functions that import it; its client is built on the first call. */
function eventBridgeScheduler(): Scheduler {
  const config: EventBridgeSchedulerConfig = {
    groupName: requireEnv('SCHEDULE_GROUP'),
    roleArn: requireEnv('SCHEDULER_ROLE_ARN'),
    deadLetterArn: requireEnv('SCHEDULER_DEAD_LETTER_ARN'),
    targets: JSON.parse(requireEnv('JOB_TARGETS')),
  };
  return builtOnFirstUse(() => new EventBridgeScheduler(new SchedulerClient(serviceClientSettings()), config));
}

/** The scheduler for this runtime. */
export const scheduler: Scheduler = adapterFor('scheduler', eventBridgeScheduler);
