import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_STREAM_HANDLER, MAX_RECORD_AGE } from '../../lib/event-stream.ts';
import { list, synthesize, type Resource, type Statement } from './template.ts';

const STREAM_READS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];

let built: ReturnType<typeof synthesize>;
let resources: Record<string, Resource>;
let tableId: string;
let deadLetterId: string;
let consumerId: string;
let consumerRoleId: string;

beforeAll(() => {
  built = synthesize();
  resources = built.template.toJSON().Resources;
  const { stack } = built;
  tableId = stack.getLogicalId(stack.data.table.node.defaultChild as CfnTable);
  deadLetterId = stack.getLogicalId(stack.queues.eventsDeadLetter.node.defaultChild as CfnQueue);
  consumerId = stack.getLogicalId(stack.events.consumer.function.node.defaultChild as CfnFunction);
  consumerRoleId = stack.getLogicalId(stack.events.consumer.role.node.defaultChild as CfnRole);
});

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, resource]) => resource.Type === type);

function statementsOfRole(roleId: string): Statement[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

const granting = (statements: Statement[], action: string) =>
  statements.filter((statement) => statement.Effect !== 'Deny' && list(statement.Action).includes(action));

describe('the event stream', () => {
  it('has the table stream new images', () => {
    expect(resources[tableId]!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('feeds one consumer function, given 60 s and write access to the table', () => {
    // Prepare
    const consumers = ofType('AWS::Lambda::Function').filter(([, fn]) =>
      (fn.Properties.Tags ?? []).some((tag: { Key: string; Value: string }) => tag.Key === 'handler' && tag.Value === EVENT_STREAM_HANDLER),
    );
    // Assess
    expect(consumers.map(([id]) => id)).toEqual([consumerId]);
    const [[, consumer]] = consumers as [[string, Resource]];
    expect(consumer.Properties.Timeout).toBe(60);
    expect(consumer.Properties.Role).toEqual({ 'Fn::GetAtt': [consumerRoleId, 'Arn'] });
    expect(granting(statementsOfRole(consumerRoleId), 'dynamodb:PutItem')).toEqual([
      expect.objectContaining({ Resource: { 'Fn::GetAtt': [tableId, 'Arn'] } }),
    ]);
  });

  it('maps only inserted event items, in order from the oldest, to the consumer, with a dead-letter queue for what it gives up on', () => {
    // Prepare
    // The table's stream only; SQS workers (lib/workers.ts) have mappings of their own.
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [tableId, 'StreamArn'] }),
    );
    // Assess
    expect(mappings).toHaveLength(1);
    const [[, mapping]] = mappings as [[string, Resource]];
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      FunctionName: { Ref: consumerId },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: false,
      MaximumRetryAttempts: 10,
      BatchSize: 25,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } } },
    });
    // Below the stream's 24-hour retention, so nothing expires unreported.
    expect(mapping.Properties.MaximumRecordAgeInSeconds).toBe(MAX_RECORD_AGE.toSeconds());
    expect(mapping.Properties.MaximumRecordAgeInSeconds).toBeLessThan(24 * 60 * 60);
    const patterns = mapping.Properties.FilterCriteria.Filters.map((filter: { Pattern: string }) => JSON.parse(filter.Pattern));
    expect(patterns).toEqual([{ eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: 'EVENT#' }] } } } }]);
  });

  it("lets the consumer read this table's stream by its ARN, and no other function read any stream", () => {
    // Act
    const statements = statementsOfRole(consumerRoleId);
    // Assess
    for (const action of STREAM_READS) {
      const grants = granting(statements, action);
      expect(grants, action).toHaveLength(1);
      expect(list(grants[0]!.Resource), action).toEqual([{ 'Fn::GetAtt': [tableId, 'StreamArn'] }]);
    }
    const otherRoles = ofType('AWS::IAM::Role')
      .map(([id]) => id)
      .filter((id) => id !== consumerRoleId);
    for (const roleId of otherRoles) {
      const actions = statementsOfRole(roleId).flatMap((statement) => list(statement.Action));
      expect(actions.filter((action) => action.startsWith('dynamodb:') && action.includes('Stream')), roleId).toEqual([]);
      expect(actions, roleId).not.toContain('dynamodb:GetRecords');
    }
  });

  it('lets the consumer send to its dead-letter queue and schedule jobs in the group', () => {
    // Prepare
    const statements = statementsOfRole(consumerRoleId);
    const environment = resources[consumerId]!.Properties.Environment.Variables;
    // Assess
    expect(granting(statements, 'sqs:SendMessage')).toEqual([
      expect.objectContaining({ Resource: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } }),
    ]);
    expect(granting(statements, 'scheduler:CreateSchedule')).toEqual([
      expect.objectContaining({ Resource: built.stack.resolve(built.stack.scheduling.scheduleArns) }),
    ]);
    expect(granting(statements, 'iam:PassRole')).toHaveLength(1);
    for (const name of ['SCHEDULE_GROUP', 'SCHEDULER_ROLE_ARN', 'JOB_TARGETS']) expect(environment).toHaveProperty(name);
  });
});

describe("the event stream's dead-letter queue", () => {
  it('is encrypted by SQS, keeps messages 14 days and refuses requests without TLS', () => {
    // Assess
    expect(resources[deadLetterId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 60 * 60 });
    const [[, policy]] = ofType('AWS::SQS::QueuePolicy').filter(([, policy]) => policy.Properties.Queues.some((queue: { Ref: string }) => queue.Ref === deadLetterId)) as [
      [string, Resource],
    ];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('raises an alarm as soon as one message is in it', () => {
    // Act
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, alarm]) =>
      (alarm.Properties.Dimensions ?? []).some(
        (dimension: { Name: string; Value: unknown }) =>
          dimension.Name === 'QueueName' && JSON.stringify(dimension.Value) === JSON.stringify({ 'Fn::GetAtt': [deadLetterId, 'QueueName'] }),
      ),
    );
    // Assess
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: expect.any(String) }],
    });
  });
});
