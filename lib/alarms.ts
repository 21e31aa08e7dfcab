import { Annotations, ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { JobKind } from '../shared/ports/scheduler.ts';
import { metricsNamespace, rootStackOf } from './metrics-namespace.ts';
import type { RouteApi } from './route-api.ts';
import type { RouteFunction } from './route-function.ts';

/** One window for every alarm: short enough to page within minutes, long enough to smooth one bad request. */
const PERIOD = Duration.minutes(5);

/** Below this many requests in a window, a 5XX rate says more about chance than about the service. */
export const API_MIN_REQUESTS = 10;
/** Share of requests, in percent, that may fail with 5XX in a window before someone is told. */
export const API_5XX_PERCENT = 5;
/** A metric math alarm reads at most 10 metrics (a hard CloudWatch limit); each function adds two. */
export const FUNCTIONS_PER_ALARM = 5;
/** Windows in a row a job backlog must stay over its limit: one late job (a cold start, a retried call) is not a backlog. */
export const JOB_LAG_PERIODS = 2;

export interface AlarmsProps {
  /** Subscribed to the topic by email (confirmed by the recipient); absent, the topic has no subscriber yet. */
  email?: string;
}

/**
 * Every alarm of the stack and the one SNS topic they notify, on entering ALARM and on returning to
 * OK. The topic exists even without an email, so other subscribers (chat, paging) can be added
 * without touching the alarms. Each `watch*` method creates its alarm under the construct it
 * watches, so logical ids follow that construct, and names it `<stack>-<construct path>-<what>`,
 * which is also how the topic's policy recognises this stack's alarms.
 *
 * Lambda errors and throttles: one metric math alarm per group of up to FUNCTIONS_PER_ALARM
 * functions of one stack (one area), on the sum of their errors and throttles. One alarm per
 * function would cost a stack resource per route; one for all is impossible (a metric math alarm
 * reads at most 10 metrics, two per function). The description names every handler it watches.
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.topic = new Topic(this, 'Topic', { displayName: `${stack.stackName} alarms`, enforceSSL: true });
    // The topic policy `enforceSSL` creates replaces SNS's default one, so CloudWatch, a service
    // principal, needs its own statement: only alarms of this account named after this stack.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${stack.stackName}-*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
          StringEquals: { 'aws:SourceAccount': stack.account },
        },
      }),
    );
    if (props.email !== undefined) this.topic.addSubscription(new EmailSubscription(props.email));
    // Deployable without one (a first try, a stage subscribed to otherwise), but said on every synth and deploy.
    else Annotations.of(this).addWarningV2('recovery:no-alarm-email', "No 'alarmEmail' in the CDK context: the alarms notify a topic nobody is subscribed to.");
    this.action = new SnsAction(this.topic);

    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        "Notifications carry alarm names, thresholds and metric values, never customer or payment data. At-rest encryption would need a customer-managed KMS key with a key policy for CloudWatch (alarms cannot publish to a topic under AWS's managed SNS key); transport is TLS-only (enforceSSL).",
    });
  }

  /**
   * Unhandled errors (crashes, timeouts, out of memory) and throttles: either means an invocation
   * got no answer from our code. A 500 the middleware answers is not an error to Lambda; the API's
   * 5XX rate covers those. Functions are grouped by stack, so each alarm lives next to the functions
   * it watches (in their area's nested stack), then by handler order, so an area's neighbouring
   * routes share an alarm; every function is in exactly one group.
   */
  watchFunctions(functions: readonly RouteFunction[]): Alarm[] {
    const byStack = new Map<Stack, RouteFunction[]>();
    for (const fn of functions) {
      const stack = Stack.of(fn);
      byStack.set(stack, [...(byStack.get(stack) ?? []), fn]);
    }
    const alarms: Alarm[] = [];
    for (const [stack, members] of byStack) {
      const nested = stack !== Stack.of(this);
      const owner = nested ? stack : this;
      const sorted = members.toSorted((a, b) => a.handler.localeCompare(b.handler));
      for (let start = 0; start < sorted.length; start += FUNCTIONS_PER_ALARM) {
        const group = sorted.slice(start, start + FUNCTIONS_PER_ALARM);
        const name = `ErrorsOrThrottles${start / FUNCTIONS_PER_ALARM + 1}`;
        // The area in the construct id too, so logical ids stay unique across the nested stacks.
        alarms.push(this.watchFunctionGroup(owner, nested ? `${stack.node.id}${name}` : name, name, group));
      }
    }
    return alarms;
  }

  private watchFunctionGroup(owner: Construct, id: string, name: string, group: readonly RouteFunction[]): Alarm {
    const usingMetrics: Record<string, IMetric> = {};
    group.forEach((fn, i) => {
      usingMetrics[`errors${i}`] = fn.function.metricErrors({ period: PERIOD });
      usingMetrics[`throttles${i}`] = fn.function.metricThrottles({ period: PERIOD });
    });
    const errorsOrThrottles = new MathExpression({
      expression: group.map((_, i) => `FILL(errors${i}, 0) + FILL(throttles${i}, 0)`).join(' + '),
      usingMetrics,
      label: 'Errors + throttles',
      period: PERIOD,
    });
    const handlers = group.map((fn) => fn.handler).join(', ');
    return this.alarm(owner, id, {
      name,
      metric: errorsOrThrottles,
      threshold: 1,
      description: `Invocations failed (unhandled error, timeout) or were throttled in the last 5 minutes, in one of: ${handlers}. The metrics in the alarm tell which function; check its log group for errors, and the account's concurrency for throttles.`,
    });
  }

  /**
   * How far behind the stream function is: a record it keeps failing holds up its shard (order
   * matters), so the age grows until the retries are spent and the batch goes to the dead-letter queue.
   */
  watchStreamAge(fn: RouteFunction, maxAge: Duration): Alarm {
    return this.alarm(fn, 'IteratorAge', {
      metric: fn.function.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD }),
      threshold: maxAge.toMilliseconds(),
      description: `${fn.handler}: the oldest stream record waiting is over ${maxAge.toHumanString()} old. A consumer is failing on a record (see the log group) or the function is throttled.`,
    });
  }

  /** The share of requests the API answered with 5XX, once there are enough requests to tell. */
  watchApi(api: RouteApi): Alarm {
    const stage = api.api.deploymentStage;
    const rate = new MathExpression({
      expression: `IF(requests >= ${API_MIN_REQUESTS}, 100 * errors / requests, 0)`,
      usingMetrics: {
        errors: stage.metricServerError({ statistic: 'Sum', period: PERIOD }),
        requests: stage.metricCount({ statistic: 'Sum', period: PERIOD }),
      },
      label: '5XX (% of requests)',
      period: PERIOD,
    });
    return this.alarm(api, 'ServerErrorRate', {
      metric: rate,
      threshold: API_5XX_PERCENT,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `${api.api.restApiName}: over ${API_5XX_PERCENT}% of requests answered 5XX in the last 5 minutes (at least ${API_MIN_REQUESTS} requests). The functions' ErrorsOrThrottles alarms and the access log (status, error_type) tell which route.`,
    });
  }

  /**
   * How late the jobs of one kind start after their scheduled time (JobLag, which the job functions
   * report; shared/job-handler.ts): the age of that kind's backlog. It grows when a job keeps failing
   * (each scheduler retry starts later), when the function is throttled, or when more jobs fall due
   * than run. No jobs means no data, which is fine: nothing is waiting.
   */
  watchJobLag(fn: RouteFunction, kind: JobKind, maxLag: Duration): Alarm {
    return this.alarm(fn, 'Lag', {
      metric: new Metric({ namespace: metricsNamespace(this), metricName: 'JobLag', dimensionsMap: { JobKind: kind }, statistic: 'Maximum', period: PERIOD }),
      threshold: maxLag.toSeconds(),
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: JOB_LAG_PERIODS,
      description: `${kind} jobs started over ${maxLag.toHumanString()} after their scheduled time for ${JOB_LAG_PERIODS * PERIOD.toMinutes()} minutes: the backlog is growing. Check ${fn.handler}'s ErrorsOrThrottles alarm and log group (a job failing and retried), and its concurrency.`,
    });
  }

  /**
   * The messaging provider refused this deployment's sender (an identity no longer verified, a
   * configuration set deleted, a grant that misses): every dunning message on that channel, of every
   * merchant, is skipped until a deployment fixes it (DunningStepSkipped by Reason, which the step
   * runner reports; shared/metrics.ts). One refusal is enough to look.
   */
  watchRefusedSender(fn: RouteFunction): Alarm {
    return this.alarm(fn, 'SenderRejected', {
      metric: new Metric({ namespace: metricsNamespace(this), metricName: 'DunningStepSkipped', dimensionsMap: { Reason: 'sender_rejected' }, statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      description: `The email or sms provider refused this deployment's sender: dunning steps are being skipped (sender_rejected) for every merchant. ${fn.handler}'s log has one warning per step with the channel and the provider's code; fix the identity, configuration set or grant named in the messaging context and redeploy.`,
    });
  }

  /** A schedule whose retries ran out: its job never ran, and nothing will run it again. */
  watchDroppedJobs(owner: Construct, group: IScheduleGroup): Alarm {
    return this.alarm(owner, 'DroppedJobs', {
      metric: group.metricDropped({ statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      description: `EventBridge Scheduler gave up on a job of group ${group.scheduleGroupName} after its retries (up to 24 h): a payment retry, campaign step or webhook delivery never ran. Its event is in the schedules' dead-letter queue (alarmed on its own) unless putting it there failed too. The job functions' logs show why their invocations failed; the payment or enrollment still records what was due.`,
    });
  }

  /** Anything in a dead-letter queue is work that was given up on and waits for someone to look. */
  watchDeadLetter(queue: IQueue, description: string): Alarm {
    return this.alarm(queue, 'Depth', {
      metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
      threshold: 1,
      description,
    });
  }

  private alarm(
    owner: Construct,
    id: string,
    options: { metric: IMetric; threshold: number; description: string; comparison?: ComparisonOperator; name?: string; evaluationPeriods?: number },
  ): Alarm {
    const alarm = new Alarm(owner, id, {
      alarmName: alarmNameFor(owner, options.name ?? id),
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      // No data means no invocations, requests or messages: nothing is failing.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}

/**
 * `<stack>-<path below the stack>-<id>`, e.g. `PaymentRecovery-prod-Functions-Jobs-Events-StreamsEvents-IteratorAge`.
 * The stack is the top-level one even for alarms in nested stacks (whose own names CloudFormation
 * makes up), as the topic's policy expects.
 */
function alarmNameFor(owner: Construct, id: string): string {
  const stack = rootStackOf(owner);
  const path = owner.node.scopes
    .slice(owner.node.scopes.indexOf(stack) + 1)
    .map((scope) => scope.node.id)
    .join('-');
  return [stack.stackName, path, id].filter(Boolean).join('-');
}
