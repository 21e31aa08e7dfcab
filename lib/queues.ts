import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Alarms } from './alarms.ts';

/** SQS's longest: a dead letter may wait out a long weekend and an investigation before someone redrives it. */
const RETENTION = Duration.days(14);

/** Deliveries of one message before it is set aside: enough for brief outages, few enough to stop a poison message soon. */
export const MAX_RECEIVE_COUNT = 5;

/**
 * AWS advises six times the consumer's timeout, so a message is not handed to a second consumer
 * while the first still works on it, including Lambda's own retries of a throttled batch.
 * Consumers here run up to 60 s.
 */
const DEFAULT_VISIBILITY_TIMEOUT = Duration.minutes(6);

/**
 * What every queue of the stack shares: encrypted at rest by SQS, reachable over TLS only, kept 14
 * days, and kept when the stack is deleted, as the table is: a work queue holds work already
 * acknowledged to its sender (a completion answered 200), a dead-letter queue the evidence of a fault.
 */
const COMMON: QueueProps = {
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
  retentionPeriod: RETENTION,
  removalPolicy: RemovalPolicy.RETAIN,
};

export interface WorkQueue {
  queue: Queue;
  /** Where a message goes after MAX_RECEIVE_COUNT failed deliveries; alarmed on its depth. */
  deadLetter: Queue;
}

export interface WorkQueueOptions {
  /** At least six times the consuming function's timeout. Default 6 minutes (60 s consumers). */
  visibilityTimeout?: Duration;
}

export interface QueuesProps {
  alarms: Alarms;
}

/**
 * The stack's SQS queues, all made alike (see COMMON), each dead-letter queue with an alarm on its
 * depth: the event stream's dead-letter queue, and work queues with their own dead-letter queue
 * and redrive, for work handed from one function to another (cancel-flow completions, outbound
 * webhook deliveries).
 */
export class Queues extends Construct {
  /**
   * Where the event stream's mapping reports a batch it gave up on (retries spent or too old). The
   * message describes the batch (shard, first and last sequence numbers, arrival times), not its
   * records: the events themselves stay in the table under their tenant, to be replayed from there.
   */
  readonly eventsDeadLetter: Queue;
  /**
   * Where Lambda puts a scheduled job it gave up on: EventBridge Scheduler invokes job functions
   * asynchronously, so a job that throws is retried by Lambda (Scheduling), and one that fails every
   * try lands here with its event and the error, instead of being dropped.
   */
  readonly jobsDeadLetter: Queue;
  /**
   * Where EventBridge Scheduler puts a schedule's event it could not hand to Lambda after its
   * retries (the target function gone, its invoke permission or the invoke role broken, throttled for
   * longer than the retry window): without it the job would be dropped, counted but lost.
   */
  readonly schedulesDeadLetter: Queue;
  private readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: QueuesProps) {
    super(scope, id);
    this.alarms = props.alarms;
    this.eventsDeadLetter = this.serviceDeadLetter(
      'EventsDeadLetter',
      'Event stream batches given up on after all retries: their events did not reach every consumer. Each message names the shard and sequence numbers; replay the events from the table, then delete the message.',
      "the event stream's event source mapping",
    );
    this.jobsDeadLetter = this.serviceDeadLetter(
      'JobsDeadLetter',
      "Scheduled jobs (payment retries, dunning steps, webhook deliveries, scans) whose function failed on every try Lambda made. Each message is Lambda's failure record: requestPayload is the job's event, responsePayload the error. Fix the cause, then invoke the job's function again with requestPayload (aws lambda invoke --invocation-type Event), and delete the message.",
      "the job functions' asynchronous invocations",
    );
    this.schedulesDeadLetter = this.serviceDeadLetter(
      'SchedulesDeadLetter',
      "Scheduled jobs EventBridge Scheduler could not hand to their function after its retries: the job never ran. Each message is the schedule's input (the job's event) with the error in its attributes (ERROR_CODE, ERROR_MESSAGE, TARGET_ARN). Fix the cause (the invoke role, the function), then invoke the job's function with the message body (aws lambda invoke --invocation-type Event), and delete the message.",
      "EventBridge Scheduler's schedules (their DeadLetterConfig)",
    );
  }

  /** A queue for work between functions, with its own dead-letter queue and a redrive after MAX_RECEIVE_COUNT deliveries. */
  newWorkQueue(id: string, options: WorkQueueOptions = {}): WorkQueue {
    const deadLetter = this.deadLetterQueue(
      `${id}DeadLetter`,
      `Messages of ${id} that failed ${MAX_RECEIVE_COUNT} deliveries. Find the cause in the consumer's log group, fix it, then redrive them to the source queue from the SQS console.`,
    );
    const queue = new Queue(this, id, {
      ...COMMON,
      visibilityTimeout: options.visibilityTimeout ?? DEFAULT_VISIBILITY_TIMEOUT,
      deadLetterQueue: { queue: deadLetter, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    return { queue, deadLetter };
  }

  /** A dead-letter queue that a service (Lambda, EventBridge Scheduler) writes to for `of`, not through a redrive policy. */
  private serviceDeadLetter(id: string, description: string, of: string): Queue {
    const queue = this.deadLetterQueue(id, description);
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `This queue is a dead-letter queue: where failures of ${of} are written, which cdk-nag does not recognise as one (it looks for queues' redrive policies). A dead-letter queue has no dead-letter queue of its own.`,
    });
    return queue;
  }

  private deadLetterQueue(id: string, description: string): Queue {
    const queue = new Queue(this, id, COMMON);
    this.alarms.watchDeadLetter(queue, description);
    return queue;
  }
}
