import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { areaOf } from '../../lib/function-stacks.ts';
import { MAX_RECEIVE_COUNT } from '../../lib/queues.ts';
import { WORKERS, type Worker } from '../../lib/workers.ts';
import { ROUTES } from '../../shared/routes.ts';
import { list, synthesize, type Resource, type Statement } from './template.ts';

let built: ReturnType<typeof synthesize>;
let resources: Record<string, Resource>;

beforeAll(() => {
  built = synthesize();
  resources = built.template.toJSON().Resources;
});

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const idOf = (construct: { node: { defaultChild?: unknown } }) => built.stack.getLogicalId(construct.node.defaultChild as CfnQueue);

function statementsOfRole(roleId: string): Statement[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

const granting = (statements: Statement[], action: string) =>
  statements.filter((statement) => statement.Effect === 'Allow' && list(statement.Action).includes(action));

function workerFor(service: string): Worker {
  const worker = built.stack.workers.workers.get(service as Worker['definition']['service']);
  if (!worker) throw new Error(`no worker for ${service}`);
  return worker;
}

describe('workers', () => {
  it('has a worker for every queue service a route declares, in the Jobs area', () => {
    const services = new Set(ROUTES.flatMap((route) => route.services ?? []).filter((service) => service !== 'scheduler' && service !== 'messaging'));
    for (const service of services) expect(WORKERS.map((worker) => worker.service), service).toContain(service);
    for (const worker of WORKERS) expect(areaOf(worker.handler), worker.handler).toBe('Jobs');
    expect(WORKERS.find((worker) => worker.service === 'cancel-completions')).toMatchObject({
      handler: 'workers/cancel-completions',
      queue: 'CancelCompletions',
      queueUrlEnv: 'CANCEL_COMPLETION_QUEUE_URL',
    });
  });

  it.each(WORKERS.map((worker) => worker.service))('%s: an SSE, TLS-only queue redriving to its own dead-letter queue after 5 receives', (service) => {
    // Prepare
    const { work } = workerFor(service);
    const queue = resources[idOf(work.queue)]!;
    const deadLetter = resources[idOf(work.deadLetter)]!;
    // Assess
    expect(MAX_RECEIVE_COUNT).toBe(5);
    expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 360 });
    expect(queue.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [idOf(work.deadLetter), 'Arn'] }, maxReceiveCount: 5 });
    expect(deadLetter.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    expect(deadLetter.Properties.RedrivePolicy).toBeUndefined();
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, alarm]) =>
      (alarm.Properties.Dimensions ?? []).some((dimension: { Value: unknown }) => JSON.stringify(dimension.Value) === JSON.stringify({ 'Fn::GetAtt': [idOf(work.deadLetter), 'QueueName'] })),
    );
    expect(alarms).toHaveLength(1);
  });

  it.each(WORKERS.map((worker) => worker.service))('%s: its function consumes the queue in batches of 10, reporting batch item failures, within 60 s', (service) => {
    // Prepare
    const { work, consumer } = workerFor(service);
    const functionId = built.stack.getLogicalId(consumer.function.node.defaultChild as CfnFunction);
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(([, mapping]) => mapping.Properties.FunctionName.Ref === functionId);
    // Assess
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [idOf(work.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources[functionId]!.Properties.Timeout).toBe(60);
    const roleId = built.stack.getLogicalId(consumer.role.node.defaultChild as CfnRole);
    const receives = granting(statementsOfRole(roleId), 'sqs:ReceiveMessage');
    expect(receives.flatMap((statement) => list(statement.Resource))).toEqual([{ 'Fn::GetAtt': [idOf(work.queue), 'Arn'] }]);
    expect(granting(statementsOfRole(roleId), 'dynamodb:PutItem').length).toBeGreaterThan(0);
  });

  it('gives the queue URL and sqs:SendMessage on that queue only to the routes declaring its service', () => {
    for (const worker of WORKERS) {
      const queueId = idOf(workerFor(worker.service).work.queue);
      const producers = new Set(ROUTES.filter((route) => route.services?.includes(worker.service)).map((route) => route.handler));
      expect(producers.size, worker.service).toBeGreaterThan(0);
      for (const [id, fn] of ofType('AWS::Lambda::Function')) {
        const handler = fn.Properties.Tags.find((tag: { Key: string }) => tag.Key === 'handler').Value as string;
        // Sends to this queue (the stream consumer sends to its own dead-letter queue, which is not this).
        const sends = granting(statementsOfRole(fn.Properties.Role['Fn::GetAtt'][0]), 'sqs:SendMessage').filter((statement) =>
          JSON.stringify(statement.Resource).includes(`"${queueId}"`),
        );
        const url = fn.Properties.Environment.Variables[worker.queueUrlEnv];
        if (producers.has(handler)) {
          expect(url, id).toEqual({ Ref: queueId });
          expect(sends.flatMap((statement) => list(statement.Resource)), id).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
          // And to no other queue.
          const elsewhere = granting(statementsOfRole(fn.Properties.Role['Fn::GetAtt'][0]), 'sqs:SendMessage').filter(
            (statement) => !sends.includes(statement),
          );
          expect(elsewhere, id).toEqual([]);
        } else {
          expect(url, id).toBeUndefined();
          expect(sends, id).toEqual([]);
        }
      }
    }
  });
});
