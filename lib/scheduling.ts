import { createHash } from 'node:crypto';
import { ArnFormat, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { CfnSchedule, ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { JOB_ASYNC_RETRIES, type JobDefinition, type RecurringJobDefinition } from '../shared/jobs.ts';
import type { JobKind } from '../shared/ports/scheduler.ts';
import type { Data } from './data.ts';
import { underOwner, type FunctionPlacement } from './function-stacks.ts';
import { constructIdFor, RouteFunction } from './route-function.ts';

/** Lambda function names and schedule group names both stop at 64 characters. */
const NAME_LIMIT = 64;

/** A job retries a payment through a processor (with its own backoff) or sends a message; no gateway limits it. */
const JOB_TIMEOUT = Duration.seconds(60);

/**
 * A recurring run that keeps failing is retried for a few hours, then left to the next day's run
 * (which does the day's work again); the function's error alarm reports it either way.
 */
const RECURRING_RETRY = { maximumRetryAttempts: 10, maximumEventAgeInSeconds: 6 * 3600 };

/**
 * Scheduler invokes job functions asynchronously, so its retry policy covers only getting the event to
 * Lambda; a job that throws is Lambda's to retry: as often as Lambda allows (twice, backing off over a
 * few minutes), for up to 6 hours of throttling, then into the jobs' dead-letter queue (Queues).
 */
const JOB_ASYNC_INVOKE = { retryAttempts: JOB_ASYNC_RETRIES.retryAttempts, maxEventAge: Duration.hours(JOB_ASYNC_RETRIES.maxEventAgeHours) };

const SCHEDULER_SERVICE = 'scheduler.amazonaws.com';

/** What scheduling functions may do with the group's schedules, and may not do with its recurring ones. */
const SCHEDULE_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'];

/**
 * `<stack>-<suffix>`, within 64 characters. A stage name may be up to 40 characters, which would push
 * the longest names over; then the stack name is cut and followed by a hash of it, so the name stays
 * deterministic and two long stage names sharing a prefix still get different names.
 */
export function boundedName(stackName: string, suffix?: string): string {
  const name = suffix === undefined ? stackName : `${stackName}-${suffix}`;
  if (name.length <= NAME_LIMIT) return name;
  const hash = createHash('sha256').update(stackName).digest('hex').slice(0, 8);
  const tail = suffix === undefined ? `-${hash}` : `-${hash}-${suffix}`;
  return `${stackName.slice(0, NAME_LIMIT - tail.length)}${tail}`;
}

/**
 * cdk-nag names a wildcard-resource finding after the resource as synthesized, with each reference
 * written `<Name>` (`arn:<AWS::Partition>:scheduler:<AWS::Region>:...`), so the acknowledgement below
 * can name exactly the one wildcard it accepts.
 */
function nagResourceName(scope: Construct, arn: string): string {
  const flatten = (node: unknown): string => {
    if (typeof node === 'string') return node;
    if (typeof node === 'object' && node !== null) {
      if ('Fn::Join' in node) {
        const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
        return parts.map(flatten).join(separator);
      }
      if ('Ref' in node) return `<${String(node.Ref)}>`;
    }
    throw new Error(`Cannot name ${JSON.stringify(node)} for cdk-nag`);
  };
  return flatten(Stack.of(scope).resolve(arn));
}

/** What `grantScheduling` needs of a function: RouteFunction has both. */
export interface SchedulingGrantee {
  readonly function: LambdaFunction;
  readonly role: IRole;
}

export interface SchedulingProps {
  data: Data;
  /** The job table (shared/jobs.ts); a prop so tests can pass their own. */
  jobs: readonly JobDefinition[];
  /** Jobs on a daily schedule (RECURRING_JOBS of shared/jobs.ts). Default: none. */
  recurring?: readonly RecurringJobDefinition[];
  /** Where the job functions are created; the group and the role stay here. Default: under this construct. */
  placement?: FunctionPlacement;
  /** Where a job that failed every try is kept (Queues.jobsDeadLetter). */
  jobsDeadLetter: IQueue;
  /** Where a schedule's event goes when Scheduler cannot hand it to the function (Queues.schedulesDeadLetter). */
  schedulesDeadLetter: IQueue;
}

/**
 * One-time jobs through EventBridge Scheduler: a schedule group for this stack's schedules, one
 * function per job kind as their target, and the role Scheduler assumes to invoke those functions
 * and nothing else. Functions that schedule jobs get their configuration and rights through
 * `grantScheduling`: the adapter (shared/adapters/aws/eventbridge-scheduler.ts) reads SCHEDULE_GROUP,
 * SCHEDULER_ROLE_ARN, SCHEDULER_DEAD_LETTER_ARN and JOB_TARGETS at cold start. Recurring jobs get a
 * function (read-only table access; it may queue one-time jobs) and a daily schedule in the same
 * group, which no function may change. Every schedule, recurring or made at run time, names the
 * schedules' dead-letter queue, which the invoke role may send to.
 */
export class Scheduling extends Construct {
  readonly group: ScheduleGroup;
  /** Assumed by EventBridge Scheduler when a schedule fires. */
  readonly role: Role;
  readonly jobFunctions: ReadonlyMap<JobKind, RouteFunction>;
  /** The recurring jobs' functions and their schedules, by job name. */
  readonly recurringJobs: ReadonlyMap<string, { fn: RouteFunction; schedule: CfnSchedule }>;
  /** ARN pattern of every schedule in the group: what granted functions may create, move and delete. */
  readonly scheduleArns: string;
  /** The recurring schedules' ARNs: in the group, but no function may touch them (CloudFormation owns them). */
  private readonly recurringScheduleArns: string[];
  /** Job kind → target function ARN, formed from the fixed function names (see the constructor). */
  private readonly targets: Partial<Record<JobKind, string>>;
  /** Where every schedule's undeliverable event goes. */
  private readonly deadLetter: IQueue;

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (Token.isUnresolved(stack.stackName)) throw new Error('Scheduling needs a literal stack name to name its group and job functions');

    this.group = new ScheduleGroup(this, 'Group', {
      scheduleGroupName: boundedName(stack.stackName),
      // Its schedules only target this stack's job functions, which go with the stack; a retained
      // group would also block re-creating the stack under the same name. Its pending schedules go
      // too; what was due stays recorded in the retained table (next_retry_at, enrollments).
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const scheduleArn = (name: string) =>
      stack.formatArn({
        service: 'scheduler',
        resource: 'schedule',
        resourceName: `${this.group.scheduleGroupName}/${name}`,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
    this.scheduleArns = scheduleArn('*');
    const recurring = props.recurring ?? [];
    this.recurringScheduleArns = recurring.map((job) => scheduleArn(job.name));
    this.deadLetter = props.schedulesDeadLetter;

    this.role = new Role(this, 'InvokeRole', {
      description: 'Assumed by EventBridge Scheduler to invoke the job functions',
      // Only schedules of this account's group can use it (confused-deputy protection). Scheduler
      // requires the group ARN here, not a schedule's.
      assumedBy: new ServicePrincipal(SCHEDULER_SERVICE, {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': this.group.scheduleGroupArn } },
      }),
    });
    // Scheduler writes a schedule's dead letter as this role.
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetter.queueArn] }));

    // Each job function's ARN comes from its fixed name, not from `functionArn`: job functions
    // schedule follow-up jobs, so JOB_TARGETS in their own environment names their own ARN, which
    // as a reference would make the function depend on itself.
    const functionName = (name: string) => boundedName(stack.stackName, `job-${name}`);
    const functionArn = (name: string) =>
      stack.formatArn({ service: 'lambda', resource: 'function', resourceName: functionName(name), arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    const jobFunction = (name: string, handler: string, description: string, access: 'read' | 'write') => {
      const fn = new RouteFunction((props.placement ?? underOwner)(this, handler), constructIdFor(`job/${name}`), {
        handler,
        description,
        data: props.data,
        access,
        functionName: functionName(name),
        timeout: JOB_TIMEOUT,
      });
      fn.function.configureAsyncInvoke({ ...JOB_ASYNC_INVOKE, onFailure: new SqsDestination(props.jobsDeadLetter) });
      return fn;
    };
    const functions = new Map<JobKind, RouteFunction>();
    const targets: Partial<Record<JobKind, string>> = {};
    for (const job of props.jobs) {
      if (functions.has(job.kind)) throw new Error(`Two job definitions for ${job.kind}`);
      functions.set(job.kind, jobFunction(job.kind, job.handler, `Scheduled ${job.kind} jobs (EventBridge Scheduler target)`, 'write'));
      targets[job.kind] = functionArn(job.kind);
    }
    this.jobFunctions = functions;
    this.targets = targets;

    // A recurring job reads the table and queues one-time jobs (the sweep queues tenant scans); it writes nothing itself.
    const recurringJobs = new Map<string, { fn: RouteFunction; schedule: CfnSchedule }>();
    for (const job of recurring) {
      if (recurringJobs.has(job.name) || functions.has(job.name as JobKind)) throw new Error(`Two job definitions for ${job.name}`);
      const fn = jobFunction(job.name, job.handler, job.description, 'read');
      const schedule = new CfnSchedule(this, constructIdFor(`recurring/${job.name}`), {
        name: job.name,
        groupName: this.group.scheduleGroupName,
        description: job.description,
        scheduleExpression: `cron(${job.dailyAt.minute} ${job.dailyAt.hour} * * ? *)`,
        scheduleExpressionTimezone: 'UTC',
        flexibleTimeWindow: { mode: 'OFF' },
        state: 'ENABLED',
        target: {
          arn: functionArn(job.name),
          roleArn: this.role.roleArn,
          // The run's own time, the same on every retry of it: the handler names its work after it.
          input: JSON.stringify({ scheduled_time: '<aws.scheduler.scheduled-time>' }),
          retryPolicy: RECURRING_RETRY,
          deadLetterConfig: { arn: this.deadLetter.queueArn },
        },
      });
      // The target is named, not referenced (see above); wait for the group and the function anyway.
      schedule.node.addDependency(this.group, fn);
      recurringJobs.set(job.name, { fn, schedule });
    }
    this.recurringJobs = recurringJobs;

    const targetArns = [...Object.values(targets), ...recurring.map((job) => functionArn(job.name))];
    // With no job kinds yet the role may invoke nothing: no statement with an empty resource list (which IAM rejects).
    if (targetArns.length > 0) {
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: targetArns }));
    }

    for (const fn of [...functions.values(), ...[...recurringJobs.values()].map((job) => job.fn)]) this.grantScheduling(fn);
  }

  /**
   * Lets a function create, move and delete this group's schedules, handing Scheduler this
   * construct's role and no other, and gives it the adapter's configuration.
   */
  grantScheduling(grantee: SchedulingGrantee): void {
    const { function: fn, role } = grantee;
    fn.addEnvironment('SCHEDULE_GROUP', this.group.scheduleGroupName);
    fn.addEnvironment('SCHEDULER_ROLE_ARN', this.role.roleArn);
    fn.addEnvironment('JOB_TARGETS', Stack.of(this).toJsonString(this.targets));
    fn.addEnvironment('SCHEDULER_DEAD_LETTER_ARN', this.deadLetter.queueArn);
    // Calls to a group that does not exist yet would fail; the first deployment creates it first.
    fn.node.addDependency(this.group);

    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: SCHEDULE_ACTIONS,
        resources: [this.scheduleArns],
      }),
    );
    if (this.recurringScheduleArns.length > 0) {
      // Job ids never collide with recurring schedule names, but a bug or a stolen role must not be able to stop one either.
      role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.DENY, actions: SCHEDULE_ACTIONS, resources: this.recurringScheduleArns }));
    }
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': SCHEDULER_SERVICE } },
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResourceName(this, this.scheduleArns)}]`,
      reason:
        "Schedule names are job ids made at run time (one per payment attempt or campaign step), so no fixed list exists; the wildcard covers only this stack's schedule group, and the schedules' target role can invoke only the job functions.",
    });
  }
}
