import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnTopic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_5XX_PERCENT, API_MIN_REQUESTS, JOB_LAG_PERIODS } from '../../lib/alarms.ts';
import { synthesize, type Resource } from './template.ts';

const EMAIL = 'oncall@example.com';

type Built = ReturnType<typeof synthesize> & { resources: Record<string, Resource>; topicId: string };

function build(context: Record<string, unknown> = {}): Built {
  const built = synthesize(context);
  const resources = built.template.toJSON().Resources as Record<string, Resource>;
  const topicId = built.stack.getLogicalId(built.stack.alarms.topic.node.defaultChild as CfnTopic);
  return { ...built, resources, topicId };
}

const ofType = (resources: Record<string, Resource>, type: string): [string, Resource][] =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The metrics an alarm reads, whether it has one metric or a metric math expression. */
function metricsOf(alarm: Resource): { namespace: string; name: string; dimensions: Record<string, unknown> }[] {
  const single = alarm.Properties.MetricName
    ? [{ Namespace: alarm.Properties.Namespace, MetricName: alarm.Properties.MetricName, Dimensions: alarm.Properties.Dimensions ?? [] }]
    : [];
  const math = (alarm.Properties.Metrics ?? []).flatMap((query: { MetricStat?: { Metric: Record<string, any> } }) => (query.MetricStat ? [query.MetricStat.Metric] : []));
  return [...single, ...math].map((metric) => ({
    namespace: metric.Namespace,
    name: metric.MetricName,
    dimensions: Object.fromEntries((metric.Dimensions ?? []).map((dimension: { Name: string; Value: unknown }) => [dimension.Name, dimension.Value])),
  }));
}

describe('alarms without an alarm email', () => {
  let built: Built;
  beforeAll(() => {
    built = build();
  });

  it('creates the topic with no subscription, and says so on every synth', () => {
    expect(ofType(built.resources, 'AWS::SNS::Topic')).toHaveLength(1);
    expect(ofType(built.resources, 'AWS::SNS::Subscription')).toEqual([]);
    Annotations.fromStack(built.stack).hasWarning('*', Match.stringLikeRegexp("No 'alarmEmail'"));
  });

  it('makes every alarm notify the topic when it goes off and when it clears, and treats no data as fine', () => {
    const alarms = ofType(built.resources, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(0);
    for (const [id, alarm] of alarms) {
      expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: built.topicId }]);
      expect(alarm.Properties.OKActions, id).toEqual([{ Ref: built.topicId }]);
      expect(alarm.Properties.TreatMissingData, id).toBe('notBreaching');
    }
  });

  it("watches every function for errors and throttles in exactly one alarm of its own stack, which names the function's handler", () => {
    // Prepare
    const alarms = ofType(built.resources, 'AWS::CloudWatch::Alarm');
    const functions = ofType(built.resources, 'AWS::Lambda::Function');
    const stackOf = (logicalId: string) => built.templates.find(({ resources: own }) => logicalId in own)!.stack;
    const watches = (alarm: Resource, name: string, functionId: string) =>
      metricsOf(alarm).some((metric) => metric.namespace === 'AWS/Lambda' && metric.name === name && JSON.stringify(metric.dimensions) === JSON.stringify({ FunctionName: { Ref: functionId } }));
    // Assess
    for (const [functionId, fn] of functions) {
      const watching = alarms.filter(([, alarm]) => watches(alarm, 'Errors', functionId));
      expect(watching, functionId).toHaveLength(1);
      const [[alarmId, alarm]] = watching as [[string, Resource]];
      expect(watches(alarm, 'Throttles', functionId), functionId).toBe(true);
      expect(stackOf(alarmId), functionId).toBe(stackOf(functionId));
      expect(alarm.Properties.Threshold, functionId).toBe(1);
      expect(alarm.Properties.ComparisonOperator, functionId).toBe('GreaterThanOrEqualToThreshold');
      const handler = fn.Properties.Tags.find((tag: { Key: string }) => tag.Key === 'handler').Value as string;
      expect(alarm.Properties.AlarmDescription, functionId).toContain(handler);
    }
  });

  it('sums every metric of a function alarm, and reads at most the 10 metrics CloudWatch allows', () => {
    const functionAlarms = ofType(built.resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => metricsOf(alarm).some((metric) => metric.name === 'Errors'));
    expect(functionAlarms.length).toBeGreaterThan(0);
    for (const [id, alarm] of functionAlarms) {
      const queries = alarm.Properties.Metrics as { Id: string; MetricStat?: unknown; Expression?: string; ReturnData?: boolean }[];
      const metricIds = queries.filter((query) => query.MetricStat).map((query) => query.Id);
      expect(metricIds.length, id).toBeLessThanOrEqual(10);
      expect(metricsOf(alarm).map((metric) => metric.name).toSorted(), id).toEqual([...Array(metricIds.length / 2).fill('Errors'), ...Array(metricIds.length / 2).fill('Throttles')]);
      const [watched] = queries.filter((query) => query.Expression && query.ReturnData !== false);
      for (const metricId of metricIds) expect(watched!.Expression, id).toContain(`FILL(${metricId}, 0)`);
    }
  });

  it('watches the 5XX rate of both APIs, once enough requests came in', () => {
    const stages = [built.stack.api, built.stack.edge].map((api) => ({
      ApiName: api.api.restApiName,
      Stage: built.stack.resolve(api.api.deploymentStage.stageName),
    }));
    for (const dimensions of stages) {
      const alarms = ofType(built.resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
        metricsOf(alarm).some((metric) => metric.name === '5XXError' && JSON.stringify(metric.dimensions) === JSON.stringify(dimensions)),
      );
      expect(alarms, dimensions.ApiName).toHaveLength(1);
      const [[, alarm]] = alarms as [[string, Resource]];
      expect(metricsOf(alarm).map((metric) => metric.name).toSorted()).toEqual(['5XXError', 'Count']);
      const expression = alarm.Properties.Metrics.find((query: { Expression?: string }) => query.Expression).Expression as string;
      expect(expression).toBe(`IF(requests >= ${API_MIN_REQUESTS}, 100 * errors / requests, 0)`);
      expect(alarm.Properties).toMatchObject({ Threshold: API_5XX_PERCENT, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  it("watches how far the event stream's consumer lags behind", () => {
    const consumerId = built.stack.getLogicalId(built.stack.events.consumer.function.node.defaultChild as CfnFunction);
    const alarms = ofType(built.resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
      metricsOf(alarm).some((metric) => metric.name === 'IteratorAge' && JSON.stringify(metric.dimensions.FunctionName) === JSON.stringify({ Ref: consumerId })),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({ Statistic: 'Maximum', Threshold: 15 * 60 * 1000 });
  });

  it('watches how late retries and campaign steps start (their backlog age), in the namespace the functions write their metrics to', () => {
    // Prepare
    const functions = ofType(built.resources, 'AWS::Lambda::Function');
    const namespaces = new Set(functions.map(([, fn]) => fn.Properties.Environment.Variables.METRICS_NAMESPACE));
    const lagAlarms = ofType(built.resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => metricsOf(alarm).some((metric) => metric.name === 'JobLag'));
    // Assess
    expect([...namespaces]).toEqual(['Test']);
    expect(lagAlarms.map(([, alarm]) => metricsOf(alarm)[0]).toSorted((a, b) => String(a!.dimensions.JobKind).localeCompare(String(b!.dimensions.JobKind)))).toEqual([
      { namespace: 'Test', name: 'JobLag', dimensions: { JobKind: 'campaign-step' } },
      { namespace: 'Test', name: 'JobLag', dimensions: { JobKind: 'payment-retry' } },
    ]);
    for (const [id, alarm] of lagAlarms) {
      expect(alarm.Properties, id).toMatchObject({
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 15 * 60,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: JOB_LAG_PERIODS,
      });
    }
  });

  it('tells when the scheduler gave up on a job of the group', () => {
    const groupName = built.stack.resolve(built.stack.scheduling.group.scheduleGroupName);
    const dropped = ofType(built.resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) =>
      metricsOf(alarm).some((metric) => metric.namespace === 'AWS/Scheduler' && metric.name === 'InvocationDroppedCount'),
    );
    expect(dropped).toHaveLength(1);
    expect(metricsOf(dropped[0]![1])[0]!.dimensions).toEqual({ ScheduleGroup: groupName });
    expect(dropped[0]![1].Properties).toMatchObject({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it("tells when the messaging provider refuses the deployment's sender, on the first refused step", () => {
    const refused = ofType(built.resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => metricsOf(alarm).some((metric) => metric.name === 'DunningStepSkipped'));
    expect(refused.map(([, alarm]) => metricsOf(alarm))).toEqual([[{ namespace: 'Test', name: 'DunningStepSkipped', dimensions: { Reason: 'sender_rejected' } }]]);
    expect(refused[0]![1].Properties).toMatchObject({ Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it("names every alarm after the stack, and lets CloudWatch publish to the topic for those names only, over TLS only", () => {
    // Prepare
    const [[, policy]] = ofType(built.resources, 'AWS::SNS::TopicPolicy') as [[string, Resource]];
    const statements = policy.Properties.PolicyDocument.Statement as Record<string, any>[];
    // Assess
    for (const [id, alarm] of ofType(built.resources, 'AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmName, id).toMatch(/^Test-[A-Za-z0-9-]+$/);
    expect(policy.Properties.Topics).toEqual([{ Ref: built.topicId }]);
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish', Resource: { Ref: built.topicId } });
    expect(JSON.stringify(allows[0]!.Condition.ArnLike['aws:SourceArn'])).toMatch(/:alarm:Test-\*"\]\]\}$/);
    expect(allows[0]!.Condition.StringEquals).toEqual({ 'aws:SourceAccount': { Ref: 'AWS::AccountId' } });
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });
});

describe('alarms with an alarm email', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ alarmEmail: EMAIL });
  });

  it('does not warn of a missing alarm email', () => {
    Annotations.fromStack(built.stack).hasNoWarning('*', Match.stringLikeRegexp("No 'alarmEmail'"));
  });

  it('subscribes the email to the topic every alarm notifies', () => {
    // Assess
    expect(ofType(built.resources, 'AWS::SNS::Subscription').map(([, subscription]) => subscription.Properties)).toEqual([
      { Protocol: 'email', Endpoint: EMAIL, TopicArn: { Ref: built.topicId } },
    ]);
    for (const [id, alarm] of ofType(built.resources, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: built.topicId }]);
    }
  });

  it('reports no unacknowledged cdk-nag findings', () => {
    expect(new AwsSolutionsChecks(built.app).validateScope(built.stack).violations).toEqual([]);
  });
});
