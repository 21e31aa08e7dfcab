import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Data } from './data.ts';
import { underOwner, type FunctionPlacement } from './function-stacks.ts';
import { constructIdFor, RouteFunction } from './route-function.ts';

export const EVENT_STREAM_HANDLER = 'streams/events';

/**
 * Event items' sort-key prefix (shared/store/events.ts); the stream handler checks it too, but the
 * filter keeps every other write to the table from invoking the function at all.
 */
export const EVENT_SK_PREFIX = 'EVENT#';

/** Consumers call the scheduler and write to the table for a batch of up to BATCH_SIZE events. */
const TIMEOUT = Duration.seconds(60);
const BATCH_SIZE = 25;
/** Delivery attempts of a failing batch after the first, before it goes to the dead-letter queue. */
const RETRY_ATTEMPTS = 10;
/**
 * The stream keeps records 24 hours, and a record it trims is gone without reaching the on-failure
 * destination; giving up a few hours earlier means every skipped batch is reported.
 */
export const MAX_RECORD_AGE = Duration.hours(20);

export interface EventStreamProps {
  data: Data;
  /** Where a batch goes once its retries are spent or it is older than MAX_RECORD_AGE. */
  deadLetter: IQueue;
  /** Where the consumer function is created. Default: under this construct. */
  placement?: FunctionPlacement;
}

/**
 * The event log's delivery: the table's stream, filtered to newly inserted event items, feeds one
 * function that hands each event to its consumers (shared/events/registry.ts). Order matters
 * (an enrollment before its cancellation), so a failing batch is never split: the handler reports
 * the first failed record and the stream resumes from it.
 */
export class EventStream extends Construct {
  readonly consumer: RouteFunction;
  readonly source: DynamoEventSource;

  constructor(scope: Construct, id: string, props: EventStreamProps) {
    super(scope, id);
    this.consumer = new RouteFunction((props.placement ?? underOwner)(this, EVENT_STREAM_HANDLER), constructIdFor(EVENT_STREAM_HANDLER), {
      handler: EVENT_STREAM_HANDLER,
      description: 'Event log consumers (DynamoDB stream of new event items)',
      data: props.data,
      // Consumers write: enrollments, deliveries, counters.
      access: 'write',
      timeout: TIMEOUT,
    });
    this.source = new DynamoEventSource(props.data.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: BATCH_SIZE,
      bisectBatchOnError: false,
      reportBatchItemFailures: true,
      retryAttempts: RETRY_ATTEMPTS,
      maxRecordAge: MAX_RECORD_AGE,
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { sk: { S: FilterRule.beginsWith(EVENT_SK_PREFIX) } } },
        }),
      ],
      onFailure: new SqsDlq(props.deadLetter),
    });
    // Also grants reading this table's stream and sending to the dead-letter queue, both by ARN.
    this.consumer.function.addEventSource(this.source);

    // Replaces RouteFunction's acknowledgement of the same finding on this role, whose reason no
    // longer covers every action under Resource "*".
    Validations.of(this.consumer.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "Two kinds of actions need Resource \"*\": X-Ray's PutTraceSegments and PutTelemetryRecords (active tracing), and dynamodb:ListStreams, which Lambda requires of a stream mapping's role and which supports no resource-level permissions; it returns stream ARNs, not data. Reading records (DescribeStream, GetShardIterator, GetRecords) is granted on this table's stream ARN only.",
    });
  }
}
