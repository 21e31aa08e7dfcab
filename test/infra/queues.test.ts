import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTopic } from 'aws-cdk-lib/aws-sns';
import type { CfnQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { Alarms } from '../../lib/alarms.ts';
import { MAX_RECEIVE_COUNT, Queues, type WorkQueue } from '../../lib/queues.ts';
import { findDependencyCycle, testApp, type Resource } from './template.ts';

const FOURTEEN_DAYS = 14 * 24 * 60 * 60;

/** Queues alone, with one work queue as the cancel flow or webhook deliveries will ask for. */
function buildQueues() {
  const app = testApp();
  const stack = new Stack(app, 'QueuesTest');
  const alarms = new Alarms(stack, 'Alarms');
  const queues = new Queues(stack, 'Queues', { alarms });
  const deliveries = queues.newWorkQueue('Deliveries');
  const slow = queues.newWorkQueue('Slow', { visibilityTimeout: Duration.minutes(15) });
  const template = Template.fromStack(stack);
  return { app, stack, alarms, queues, deliveries, slow, resources: template.toJSON().Resources as Record<string, Resource> };
}

describe('Queues', () => {
  let built: ReturnType<typeof buildQueues>;
  const idOf = (queue: Queue) => built.stack.getLogicalId(queue.node.defaultChild as CfnQueue);

  beforeAll(() => {
    built = buildQueues();
  });

  it('encrypts every queue with SQS-managed keys, keeps messages 14 days, refuses requests without TLS and survives the stack', () => {
    // Prepare
    const queues = Object.entries(built.resources).filter(([, resource]) => resource.Type === 'AWS::SQS::Queue');
    const policies = Object.values(built.resources).filter((resource) => resource.Type === 'AWS::SQS::QueuePolicy');
    // Assess
    expect(queues).toHaveLength(7);
    for (const [id, queue] of queues) {
      expect(queue.Properties, id).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: FOURTEEN_DAYS });
      // Kept when the stack goes, with what they hold (acknowledged work, evidence of faults).
      expect([queue.DeletionPolicy, queue.UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
      const policy = policies.find((candidate) => candidate.Properties.Queues.some((ref: { Ref: string }) => ref.Ref === id));
      expect(policy?.Properties.PolicyDocument.Statement, id).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it("sends a work queue's message to its own dead-letter queue after five failed deliveries", () => {
    expect(MAX_RECEIVE_COUNT).toBe(5);
    for (const work of [built.deliveries, built.slow] as WorkQueue[]) {
      const queue = built.resources[idOf(work.queue)]!;
      expect(queue.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [idOf(work.deadLetter), 'Arn'] },
        maxReceiveCount: MAX_RECEIVE_COUNT,
      });
      expect(built.resources[idOf(work.deadLetter)]!.Properties.RedrivePolicy).toBeUndefined();
    }
  });

  it("hides a message in flight for six times a 60 s consumer's timeout, unless told otherwise", () => {
    expect(built.resources[idOf(built.deliveries.queue)]!.Properties.VisibilityTimeout).toBe(360);
    expect(built.resources[idOf(built.slow.queue)]!.Properties.VisibilityTimeout).toBe(900);
  });

  it('alarms on every dead-letter queue, and on no other queue, from its first message, to the alarm topic', () => {
    // Prepare
    const topicId = built.stack.getLogicalId(built.alarms.topic.node.defaultChild as CfnTopic);
    const deadLetters = [built.queues.eventsDeadLetter, built.queues.jobsDeadLetter, built.queues.schedulesDeadLetter, built.deliveries.deadLetter, built.slow.deadLetter].map(idOf);
    const alarms = Object.values(built.resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
    // Assess
    const watched = alarms.map((alarm) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0] as string);
    expect(watched.toSorted()).toEqual(deadLetters.toSorted());
    for (const alarm of alarms) {
      expect(alarm.Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: topicId }],
      });
      expect(alarm.Properties.AlarmName).toMatch(/^QueuesTest-Queues-[A-Za-z]+DeadLetter-Depth$/);
    }
  });

  it('synthesizes without dependency cycles and without unacknowledged cdk-nag findings', () => {
    expect(findDependencyCycle(built.resources)).toBeUndefined();
    expect(new AwsSolutionsChecks(built.app).validateScope(built.stack).violations).toEqual([]);
  });
});
