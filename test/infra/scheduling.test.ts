import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole, Role } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { Alarms } from '../../lib/alarms.ts';
import { Data } from '../../lib/data.ts';
import { Queues } from '../../lib/queues.ts';
import { RouteFunction } from '../../lib/route-function.ts';
import { boundedName, Scheduling } from '../../lib/scheduling.ts';
import type { JobDefinition, RecurringJobDefinition } from '../../shared/jobs.ts';
import { JOBS, RECURRING_JOBS } from '../../shared/jobs.ts';
import { ROUTES } from '../../shared/routes.ts';
import { bundledInputs } from '../support/handler-bundles.ts';
import { findDependencyCycle, list, synthesize, testApp, type Resource, type Statement } from './template.ts';

const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';
const SCHEDULING_ENV = ['SCHEDULE_GROUP', 'SCHEDULER_ROLE_ARN', 'SCHEDULER_DEAD_LETTER_ARN', 'JOB_TARGETS'];
const SCHEDULE_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'];

/**
 * A job list of our own, so these tests do not wait for shared/jobs.ts to fill up. The handlers are
 * stand-ins: NodejsFunction wants an existing entry file even when bundling is skipped, and nothing
 * here depends on what the module does.
 */
const FAKE_JOBS: readonly JobDefinition[] = [
  { kind: 'payment-retry', handler: 'platform/not-found' },
  { kind: 'campaign-step', handler: 'auth/me' },
];

const FAKE_RECURRING: readonly RecurringJobDefinition[] = [
  { name: 'nightly-sweep', handler: 'api-keys/list', dailyAt: { hour: 14, minute: 5 }, description: 'sweeps every day' },
];

/** Scheduling alone in a stack with a known account and region, so ARNs come out as plain strings. */
function buildScheduling(jobs: readonly JobDefinition[], stackName = 'SchedulingTest', recurring: readonly RecurringJobDefinition[] = []) {
  const app = testApp();
  const stack = new Stack(app, stackName, { env: { account: ACCOUNT, region: REGION } });
  const data = new Data(stack, 'Data');
  // The stack's own queues (with their alarms), for the jobs' dead-letter queue.
  const queues = new Queues(stack, 'Queues', { alarms: new Alarms(stack, 'Alarms') });
  const scheduling = new Scheduling(stack, 'Scheduling', {
    data,
    jobs,
    recurring,
    jobsDeadLetter: queues.jobsDeadLetter,
    schedulesDeadLetter: queues.schedulesDeadLetter,
  });
  const receiver = new RouteFunction(stack, 'Receiver', { handler: 'webhooks/stripe', description: 'schedules jobs', data, access: 'write' });
  const bystander = new RouteFunction(stack, 'Bystander', { handler: 'api-keys/list', description: 'schedules nothing', data, access: 'read' });
  scheduling.grantScheduling(receiver);
  const template = Template.fromStack(stack);
  return { app, stack, scheduling, queues, receiver, bystander, template, resources: template.toJSON().Resources as Record<string, Resource> };
}

/** Pseudo parameters as a deployment in ACCOUNT and REGION would see them. */
const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT };

/** A template value as CloudFormation would compute it, for values built only from strings and pseudo parameters. */
function evaluate(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    if ('Fn::Join' in value) {
      const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
      return parts.map(evaluate).join(separator);
    }
    if ('Ref' in value && String(value.Ref) in PSEUDO) return PSEUDO[String(value.Ref)]!;
  }
  throw new Error(`Cannot evaluate ${JSON.stringify(value)}`);
}

const functionArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;

function logicalIdOf(stack: Stack, fn: RouteFunction): string {
  return stack.getLogicalId(fn.function.node.defaultChild as CfnFunction);
}

function roleIdOf(stack: Stack, owner: { role: Role }): string {
  return stack.getLogicalId(owner.role.node.defaultChild as CfnRole);
}

function statementsOfRole(resources: Record<string, Resource>, roleId: string): Statement[] {
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

const withAction = (statements: Statement[], prefix: string, effect = 'Allow') =>
  statements.filter((statement) => (statement.Effect ?? 'Allow') === effect && list(statement.Action).some((action) => action.startsWith(prefix)));

const queueArnOf = (stack: Stack, queue: { node: { defaultChild?: unknown } }) => ({ 'Fn::GetAtt': [stack.getLogicalId(queue.node.defaultChild as CfnQueue), 'Arn'] });

/** The alarms on a queue's depth. */
function depthAlarmsOf(resources: Record<string, Resource>, queueId: string): Resource[] {
  return Object.values(resources).filter(
    (resource) => resource.Type === 'AWS::CloudWatch::Alarm' && JSON.stringify(resource.Properties.Dimensions ?? []).includes(queueId),
  );
}

function environmentOf(resources: Record<string, Resource>, functionId: string): Record<string, unknown> {
  return resources[functionId]!.Properties.Environment.Variables;
}

describe('Scheduling, with a job list of its own', () => {
  let built: ReturnType<typeof buildScheduling>;
  let invokeRoleId: string;
  let groupId: string;

  beforeAll(() => {
    built = buildScheduling(FAKE_JOBS);
    invokeRoleId = roleIdOf(built.stack, built.scheduling);
    groupId = built.stack.getLogicalId(built.scheduling.group.node.defaultChild as CfnScheduleGroup);
  });

  /** What a function allowed to schedule must have; the job functions and the receiver alike. */
  function expectSchedulingGranted(fn: RouteFunction) {
    const { stack, resources } = built;
    const environment = environmentOf(resources, logicalIdOf(stack, fn));
    expect(environment.SCHEDULE_GROUP).toBe('SchedulingTest');
    expect(environment.SCHEDULER_ROLE_ARN).toEqual({ 'Fn::GetAtt': [invokeRoleId, 'Arn'] });
    expect(environment.SCHEDULER_DEAD_LETTER_ARN).toEqual(queueArnOf(stack, built.queues.schedulesDeadLetter));
    expect(JSON.parse(evaluate(environment.JOB_TARGETS))).toEqual({
      'payment-retry': functionArn('SchedulingTest-job-payment-retry'),
      'campaign-step': functionArn('SchedulingTest-job-campaign-step'),
    });

    const statements = statementsOfRole(resources, roleIdOf(stack, fn));
    const scheduling = withAction(statements, 'scheduler:');
    expect(scheduling).toHaveLength(1);
    expect(list(scheduling[0]!.Action).toSorted()).toEqual(SCHEDULE_ACTIONS);
    expect(scheduling[0]!.Condition).toBeUndefined();
    expect(list(scheduling[0]!.Resource).map(evaluate)).toEqual([`arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/SchedulingTest/*`]);

    const passRole = withAction(statements, 'iam:');
    expect(passRole).toEqual([
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: { 'Fn::GetAtt': [invokeRoleId, 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ]);
  }

  it('creates a schedule group named after the stack, removed with it', () => {
    // Assess
    built.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    built.template.hasResource('AWS::Scheduler::ScheduleGroup', { Properties: { Name: 'SchedulingTest' }, DeletionPolicy: 'Delete' });
  });

  it('makes one function per job kind, with a fixed name, a 60 s timeout and write access to the table', () => {
    expect([...built.scheduling.jobFunctions.keys()]).toEqual(FAKE_JOBS.map((job) => job.kind));
    for (const job of FAKE_JOBS) {
      const fn = built.scheduling.jobFunctions.get(job.kind)!;
      const properties = built.resources[logicalIdOf(built.stack, fn)]!.Properties;
      expect(properties.FunctionName).toBe(`SchedulingTest-job-${job.kind}`);
      expect(properties.Timeout).toBe(60);
      expect(properties.Tags).toContainEqual({ Key: 'handler', Value: job.handler });
      const statements = statementsOfRole(built.resources, roleIdOf(built.stack, fn));
      expect(withAction(statements, 'dynamodb:PutItem').length, job.kind).toBeGreaterThan(0);
    }
  });

  it("keeps a job that failed every try Lambda made (Scheduler invokes asynchronously) in the jobs' dead-letter queue, which is alarmed", () => {
    const { stack, resources, queues, scheduling } = built;
    const deadLetterId = stack.getLogicalId(queues.jobsDeadLetter.node.defaultChild as CfnQueue);
    const configs = Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::EventInvokeConfig');
    const jobFunctions = [...scheduling.jobFunctions.values(), ...[...scheduling.recurringJobs.values()].map((job) => job.fn)];
    expect(configs).toHaveLength(jobFunctions.length);
    for (const fn of jobFunctions) {
      const config = configs.find((candidate) => candidate.Properties.FunctionName.Ref === logicalIdOf(stack, fn));
      expect(config?.Properties, fn.node.id).toMatchObject({
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 6 * 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } } },
      });
      const sends = withAction(statementsOfRole(resources, roleIdOf(stack, fn)), 'sqs:SendMessage');
      expect(sends.flatMap((statement) => list(statement.Resource)), fn.node.id).toEqual([{ 'Fn::GetAtt': [deadLetterId, 'Arn'] }]);
    }
    expect(depthAlarmsOf(resources, deadLetterId)).toHaveLength(1);
  });

  it("lets the invoke role put an undeliverable schedule's event in the schedules' dead-letter queue, and nothing else in SQS", () => {
    // Prepare
    const { stack, resources, queues } = built;
    const deadLetterId = stack.getLogicalId(queues.schedulesDeadLetter.node.defaultChild as CfnQueue);
    // Act
    const sends = withAction(statementsOfRole(resources, invokeRoleId), 'sqs:');
    // Assess
    expect(sends).toEqual([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } }]);
    const [alarm] = depthAlarmsOf(resources, deadLetterId);
    expect(alarm?.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm?.Properties.AlarmDescription).toContain('EventBridge Scheduler could not hand to their function');
    expect(depthAlarmsOf(resources, deadLetterId)).toHaveLength(1);
  });

  it("lets only EventBridge Scheduler assume the invoke role, for this account's schedule group", () => {
    const role = built.resources[invokeRoleId]!;
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } } },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toBeUndefined();
  });

  it('lets the invoke role invoke exactly the job functions, by their deployed names', () => {
    // Prepare
    const deployedNames = [...built.scheduling.jobFunctions.values()].map(
      (fn) => built.resources[logicalIdOf(built.stack, fn)]!.Properties.FunctionName as string,
    );
    // Act
    const statements = withAction(statementsOfRole(built.resources, invokeRoleId), 'lambda:');
    // Assess
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Action: 'lambda:InvokeFunction' });
    expect(statements[0]!.Condition).toBeUndefined();
    const resources = list(statements[0]!.Resource).map(evaluate);
    expect(resources.toSorted()).toEqual(deployedNames.map(functionArn).toSorted());
    for (const resource of resources) expect(resource).not.toContain('*');
  });

  it('gives a granted function the adapter configuration, schedule rights on its group only and PassRole on the invoke role only', () => {
    expectSchedulingGranted(built.receiver);
  });

  it('grants every job function the same, so a job can schedule its follow-up (its own ARN included)', () => {
    for (const fn of built.scheduling.jobFunctions.values()) expectSchedulingGranted(fn);
  });

  it('leaves functions it was not asked to grant without scheduler configuration or rights', () => {
    // Act
    const environment = environmentOf(built.resources, logicalIdOf(built.stack, built.bystander));
    const statements = statementsOfRole(built.resources, roleIdOf(built.stack, built.bystander));
    // Assess
    for (const name of SCHEDULING_ENV) expect(environment).not.toHaveProperty(name);
    expect(withAction(statements, 'scheduler:')).toEqual([]);
    expect(withAction(statements, 'iam:')).toEqual([]);
  });

  it('deploys the group before the functions that schedule into it', () => {
    for (const fn of [built.receiver, ...built.scheduling.jobFunctions.values()]) {
      expect(list(built.resources[logicalIdOf(built.stack, fn)]!.DependsOn ?? [])).toContain(groupId);
    }
  });

  it('synthesizes without dependency cycles and without unacknowledged cdk-nag findings', () => {
    expect(findDependencyCycle(built.resources)).toBeUndefined();
    expect(new AwsSolutionsChecks(built.app).validateScope(built.stack).violations).toEqual([]);
  });
});

describe('Scheduling with no job kinds yet', () => {
  it('configures an empty target map, leaves the invoke role nothing to invoke, and stays valid', () => {
    // Act
    const built = buildScheduling([]);
    // Assess
    const environment = environmentOf(built.resources, logicalIdOf(built.stack, built.receiver));
    expect(environment.JOB_TARGETS).toBe('{}');
    expect(environment.SCHEDULE_GROUP).toBe('SchedulingTest');
    expect(withAction(statementsOfRole(built.resources, roleIdOf(built.stack, built.scheduling)), 'lambda:')).toEqual([]);
    built.template.resourceCountIs('AWS::Lambda::Function', 2);
    expect(findDependencyCycle(built.resources)).toBeUndefined();
    expect(new AwsSolutionsChecks(built.app).validateScope(built.stack).violations).toEqual([]);
  });
});

describe('Scheduling with a recurring job', () => {
  let built: ReturnType<typeof buildScheduling>;
  let invokeRoleId: string;
  let groupId: string;
  let sweepId: string;

  beforeAll(() => {
    built = buildScheduling(FAKE_JOBS, 'SchedulingTest', FAKE_RECURRING);
    invokeRoleId = roleIdOf(built.stack, built.scheduling);
    groupId = built.stack.getLogicalId(built.scheduling.group.node.defaultChild as CfnScheduleGroup);
    sweepId = logicalIdOf(built.stack, built.scheduling.recurringJobs.get('nightly-sweep')!.fn);
  });

  const recurringArn = `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/SchedulingTest/nightly-sweep`;

  it('runs it every day at its UTC time in the group, invoking its function through the invoke role with the run time as input', () => {
    // Assess
    const schedules = Object.entries(built.resources).filter(([, resource]) => resource.Type === 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const [, schedule] = schedules[0]!;
    expect(schedule.Properties).toMatchObject({
      Name: 'nightly-sweep',
      GroupName: 'SchedulingTest',
      ScheduleExpression: 'cron(5 14 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
    });
    const target = schedule.Properties.Target;
    expect(evaluate(target.Arn)).toBe(functionArn('SchedulingTest-job-nightly-sweep'));
    expect(target.RoleArn).toEqual({ 'Fn::GetAtt': [invokeRoleId, 'Arn'] });
    expect(JSON.parse(target.Input)).toEqual({ scheduled_time: '<aws.scheduler.scheduled-time>' });
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 21600 });
    expect(target.DeadLetterConfig).toEqual({ Arn: queueArnOf(built.stack, built.queues.schedulesDeadLetter) });
    expect(list(schedule.DependsOn ?? [])).toEqual(expect.arrayContaining([groupId, sweepId]));
    expect(built.resources[sweepId]!.Properties.FunctionName).toBe('SchedulingTest-job-nightly-sweep');
  });

  it('lets the invoke role invoke the recurring function as well as the job functions, and nothing else', () => {
    const resources = withAction(statementsOfRole(built.resources, invokeRoleId), 'lambda:').flatMap((statement) => list(statement.Resource)).map(evaluate);
    expect(resources.toSorted()).toEqual(
      ['SchedulingTest-job-payment-retry', 'SchedulingTest-job-campaign-step', 'SchedulingTest-job-nightly-sweep'].map(functionArn).toSorted(),
    );
  });

  it('gives the recurring function read-only table access and the right to queue one-time jobs', () => {
    // Act
    const statements = statementsOfRole(built.resources, roleIdOf(built.stack, built.scheduling.recurringJobs.get('nightly-sweep')!.fn));
    const environment = environmentOf(built.resources, sweepId);
    // Assess
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) expect(withAction(statements, action)).toEqual([]);
    // UpdateItem only on the rate-limit partition, as every read-only function.
    for (const update of withAction(statements, 'dynamodb:UpdateItem')) expect(update.Condition).toBeDefined();
    expect(withAction(statements, 'dynamodb:Query').length).toBeGreaterThan(0);
    expect(list(withAction(statements, 'scheduler:')[0]!.Action).toSorted()).toEqual(SCHEDULE_ACTIONS);
    for (const name of SCHEDULING_ENV) expect(environment).toHaveProperty(name);
  });

  it('denies every function allowed to schedule any action on the recurring schedule, job functions included', () => {
    const grantees = [built.receiver, ...built.scheduling.jobFunctions.values(), built.scheduling.recurringJobs.get('nightly-sweep')!.fn];
    for (const fn of grantees) {
      const denied = withAction(statementsOfRole(built.resources, roleIdOf(built.stack, fn)), 'scheduler:', 'Deny');
      expect(denied, fn.handler).toHaveLength(1);
      expect(list(denied[0]!.Action).toSorted()).toEqual(SCHEDULE_ACTIONS);
      expect(list(denied[0]!.Resource).map(evaluate)).toEqual([recurringArn]);
    }
    expect(withAction(statementsOfRole(built.resources, roleIdOf(built.stack, built.bystander)), 'scheduler:', 'Deny')).toEqual([]);
  });

  it('synthesizes without dependency cycles and without unacknowledged cdk-nag findings', () => {
    expect(findDependencyCycle(built.resources)).toBeUndefined();
    expect(new AwsSolutionsChecks(built.app).validateScope(built.stack).violations).toEqual([]);
  });
});

describe('job definitions', () => {
  it('refuses two definitions of one kind, which would need two targets for one JOB_TARGETS entry', () => {
    expect(() => buildScheduling([FAKE_JOBS[0]!, { ...FAKE_JOBS[0]!, handler: 'auth/me' }])).toThrow(/Two job definitions for payment-retry/);
  });
});

describe('physical names', () => {
  it('stay within 64 characters, deterministic and distinct, for the longest stage name', () => {
    // Prepare
    const longest = `PaymentRecovery-${'a'.repeat(40)}`;
    const sibling = `PaymentRecovery-${'a'.repeat(39)}b`;
    // Act
    const { resources } = buildScheduling(FAKE_JOBS, longest);
    // Assess
    const names = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function' || resource.Type === 'AWS::Scheduler::ScheduleGroup')
      .map((resource) => resource.Properties.FunctionName ?? resource.Properties.Name)
      .filter((name): name is string => typeof name === 'string');
    expect(names).toHaveLength(FAKE_JOBS.length + 1);
    for (const name of names) expect(name.length, name).toBeLessThanOrEqual(64);
    expect(boundedName(longest, 'job-payment-retry')).toBe(boundedName(longest, 'job-payment-retry'));
    expect(boundedName(longest, 'job-payment-retry')).toMatch(/-job-payment-retry$/);
    expect(boundedName(longest, 'job-payment-retry')).not.toBe(boundedName(sibling, 'job-payment-retry'));
    expect(boundedName('PaymentRecovery-prod', 'job-payment-retry')).toBe('PaymentRecovery-prod-job-payment-retry');
  });
});

describe('Scheduling in the deployed stack', () => {
  let built: ReturnType<typeof synthesize>;
  let resources: Record<string, Resource>;

  beforeAll(() => {
    built = synthesize();
    resources = built.template.toJSON().Resources;
  });

  /** The function RouteApi made for a route, by the handler tag RouteFunction sets. */
  function functionIdFor(handler: string): string {
    const ids = Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .filter(([, fn]) => (fn.Properties.Tags ?? []).some((tag: { Key: string; Value: string }) => tag.Key === 'handler' && tag.Value === handler))
      .map(([id]) => id);
    expect(ids, handler).toHaveLength(1);
    return ids[0]!;
  }

  const roleOfFunction = (functionId: string): string => resources[functionId]!.Properties.Role['Fn::GetAtt'][0];

  const scheduling = ROUTES.filter((route) => route.services?.includes('scheduler'));
  const others = ROUTES.filter((route) => !route.services?.includes('scheduler'));

  it.runIf(scheduling.length > 0)('configures and entitles every route that declares the scheduler', () => {
    const invokeRoleArn = { 'Fn::GetAtt': [roleIdOf(built.stack, built.stack.scheduling), 'Arn'] };
    const groupSchedules = built.stack.resolve(built.stack.scheduling.scheduleArns);
    for (const route of scheduling) {
      const functionId = functionIdFor(route.handler);
      const environment = environmentOf(resources, functionId);
      for (const name of SCHEDULING_ENV) expect(environment, `${route.handler} ${name}`).toHaveProperty(name);
      expect(environment.SCHEDULER_ROLE_ARN).toEqual(invokeRoleArn);
      expect(environment.SCHEDULER_DEAD_LETTER_ARN).toEqual(queueArnOf(built.stack, built.stack.queues.schedulesDeadLetter));
      const statements = statementsOfRole(resources, roleOfFunction(functionId));
      const schedules = withAction(statements, 'scheduler:');
      expect(schedules, route.handler).toHaveLength(1);
      expect(list(schedules[0]!.Action).toSorted()).toEqual(SCHEDULE_ACTIONS);
      expect(schedules[0]!.Resource).toEqual(groupSchedules);
      expect(withAction(statements, 'iam:'), route.handler).toEqual([
        expect.objectContaining({
          Action: 'iam:PassRole',
          Resource: invokeRoleArn,
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      ]);
    }
  });

  it('gives routes that do not declare the scheduler neither its configuration nor its rights', () => {
    for (const route of others) {
      const functionId = functionIdFor(route.handler);
      const environment = environmentOf(resources, functionId);
      for (const name of SCHEDULING_ENV) expect(environment, `${route.handler} ${name}`).not.toHaveProperty(name);
      const statements = statementsOfRole(resources, roleOfFunction(functionId));
      expect(withAction(statements, 'scheduler:'), route.handler).toEqual([]);
      expect(withAction(statements, 'iam:'), route.handler).toEqual([]);
    }
  });

  it("declares the scheduler on exactly the routes whose code can schedule (their bundle holds the scheduler adapter)", async () => {
    const bundles = await bundledInputs(ROUTES.map((route) => route.handler));
    const scheduling = ROUTES.filter((route) => bundles.get(`functions/${route.handler}.ts`)!.includes('shared/composition/scheduler.ts'));
    expect(ROUTES.filter((route) => route.services?.includes('scheduler')).map((route) => route.handler)).toEqual(scheduling.map((route) => route.handler));
  }, 120_000);

  it('targets a function for every job kind of shared/jobs.ts, and only those', () => {
    const [schedulerRoute] = scheduling;
    const environment = schedulerRoute ? environmentOf(resources, functionIdFor(schedulerRoute.handler)) : undefined;
    for (const job of JOBS) {
      const functionId = functionIdFor(job.handler);
      expect(resources[functionId]!.Properties.FunctionName).toBe(`Test-job-${job.kind}`);
    }
    if (environment) {
      const targets = JSON.parse(evaluate(environment.JOB_TARGETS)) as Record<string, string>;
      expect(Object.keys(targets).toSorted()).toEqual(JOBS.map((job) => job.kind).toSorted());
      for (const job of JOBS) expect(targets[job.kind]).toBe(functionArn(`Test-job-${job.kind}`));
    }
    const invokeStatements = withAction(statementsOfRole(resources, roleIdOf(built.stack, built.stack.scheduling)), 'lambda:');
    expect(invokeStatements.flatMap((statement) => list(statement.Resource)).map(evaluate).toSorted()).toEqual(
      [...JOBS.map((job) => job.kind), ...RECURRING_JOBS.map((job) => job.name)].map((name) => functionArn(`Test-job-${name}`)).toSorted(),
    );
  });

  it('runs the daily calendar sweep on a recurring schedule in the group, at 14:00 UTC', () => {
    // Act
    const schedules = Object.values(resources).filter((resource) => resource.Type === 'AWS::Scheduler::Schedule');
    // Assess
    expect(schedules.map((schedule) => schedule.Properties.Name).toSorted()).toEqual(RECURRING_JOBS.map((job) => job.name).toSorted());
    const sweep = schedules.find((schedule) => schedule.Properties.Name === 'calendar-sweep')!;
    expect(sweep.Properties).toMatchObject({ GroupName: 'Test', ScheduleExpression: 'cron(0 14 * * ? *)', ScheduleExpressionTimezone: 'UTC' });
    expect(evaluate(sweep.Properties.Target.Arn)).toBe(functionArn('Test-job-calendar-sweep'));
    expect(sweep.Properties.Target.DeadLetterConfig).toEqual({ Arn: queueArnOf(built.stack, built.stack.queues.schedulesDeadLetter) });
    const sweepFunction = resources[functionIdFor('jobs/calendar-sweep')]!;
    expect(sweepFunction.Properties.FunctionName).toBe('Test-job-calendar-sweep');
  });

  it('has no dependency cycles', () => {
    for (const { stack, resources: own } of built.templates) expect(findDependencyCycle(own), stack.node.path).toBeUndefined();
  });
});
