import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLogContext, withLogScope } from '../../shared/log.ts';
import { metrics, useMetricSink } from '../../shared/metrics.ts';

const live = { merchantId: 'mer_1', environment: 'live' as const };
const AT = new Date('2026-11-23T09:00:00Z');

/** Runs `act` with metric lines collected instead of written; returns them parsed. */
function collect(act: () => void): Record<string, any>[] {
  const lines: string[] = [];
  const previous = useMetricSink((line) => lines.push(line));
  try {
    act();
  } finally {
    useMetricSink(previous);
  }
  return lines.map((line) => JSON.parse(line));
}

const directives = (line: Record<string, any>) =>
  line._aws.CloudWatchMetrics.map((directive: { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }) => ({
    dimensions: Object.fromEntries(directive.Dimensions[0]!.map((name) => [name, line[name]])),
    metrics: Object.fromEntries(directive.Metrics.map((metric) => [metric.Name, [line[metric.Name], metric.Unit]])),
  }));

describe('the service metrics', () => {
  it('counts a retry attempt by processor family and outcome, with the payment and log context as properties', async () => {
    // Act
    const [line] = await withLogScope(async () => {
      setLogContext({ request_id: 'req_1', route: 'job payment-retry', merchant_id: 'mer_1' });
      return collect(() => metrics.retryAttempted(live, { outcome: 'declined', payment_id: 'pay_1', psp: 'stripe' }, AT));
    });
    // Assess
    expect(line!._aws).toMatchObject({ Timestamp: AT.getTime(), CloudWatchMetrics: [{ Namespace: 'PaymentRecovery-local' }] });
    expect(directives(line!)).toEqual([{ dimensions: { Environment: 'live', Processor: 'stripe', Outcome: 'failed' }, metrics: { RetryAttempted: [1, 'Count'] } }]);
    expect(line).toMatchObject({ request_id: 'req_1', route: 'job payment-retry', merchant_id: 'mer_1', payment_id: 'pay_1' });
  });

  it('gives processors named by merchants one value, and counts no attempt for a job that made none', () => {
    const lines = collect(() => {
      metrics.retryAttempted(live, { outcome: 'no_answer', payment_id: 'pay_1', psp: 'acme-billing' }, AT);
      metrics.retryAttempted(live, { outcome: 'stale', payment_id: 'pay_2' }, AT);
      metrics.retryAttempted(live, { outcome: 'limit_reached', payment_id: 'pay_3', status: 'communication_pending' }, AT);
    });
    expect(lines.map(directives)).toEqual([[{ dimensions: { Environment: 'live', Processor: 'other', Outcome: 'no_answer' }, metrics: { RetryAttempted: [1, 'Count'] } }]]);
  });

  it('counts a recovery by channel and adds its amount up per currency only', () => {
    const [line] = collect(() => metrics.paymentRecovered(live, { id: 'pay_1', channel: 'dunning_campaign', currency: 'eur', amount: 2900 }, AT));
    expect(directives(line!)).toEqual([
      { dimensions: { Environment: 'live', Channel: 'dunning_campaign' }, metrics: { PaymentRecovered: [1, 'Count'] } },
      { dimensions: { Environment: 'live', Currency: 'eur' }, metrics: { RecoveredAmount: [2900, 'None'] } },
    ]);
  });

  it('counts a skipped dunning step by channel and reason, and by reason alone for the sender alarm', () => {
    const [line] = collect(() => metrics.dunningStepSkipped(live, { channel: 'email', reason: 'sender_rejected', reference: 'enr_1#2' }, AT));
    expect(directives(line!)).toEqual([
      { dimensions: { Environment: 'live', Channel: 'email', Reason: 'sender_rejected' }, metrics: { DunningStepSkipped: [1, 'Count'] } },
      { dimensions: { Reason: 'sender_rejected' }, metrics: { DunningStepSkipped: [1, 'Count'] } },
    ]);
    expect(line).toMatchObject({ step: 'enr_1#2' });
  });

  it('counts failures by category, messages by channel, and reports job lag in seconds, never below zero', () => {
    const lines = collect(() => {
      metrics.failureIngested(live, { id: 'pay_1', category: 'hard_customer' }, AT);
      metrics.dunningMessageSent(live, { channel: 'sms', campaignId: 'cmp_1' }, AT);
      metrics.jobLag('payment-retry', 42.5, AT);
      metrics.jobLag('campaign-step', -0.4, AT);
    });
    expect(lines.map(directives)).toEqual([
      [{ dimensions: { Environment: 'live', Category: 'hard_customer' }, metrics: { FailureIngested: [1, 'Count'] } }],
      [{ dimensions: { Environment: 'live', Channel: 'sms' }, metrics: { DunningMessageSent: [1, 'Count'] } }],
      [{ dimensions: { JobKind: 'payment-retry' }, metrics: { JobLag: [42.5, 'Seconds'] } }],
      [{ dimensions: { JobKind: 'campaign-step' }, metrics: { JobLag: [0, 'Seconds'] } }],
    ]);
  });
});

describe('the metrics configuration at cold start', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('fails in AWS without a namespace', async () => {
    vi.resetModules();
    vi.stubEnv('RUNTIME_MODE', '');
    vi.stubEnv('METRICS_NAMESPACE', '');
    await expect(import('../../shared/metrics.ts')).rejects.toThrow(/METRICS_NAMESPACE/);
  });

  it('in AWS writes each line bare to stdout, in the configured namespace, whatever the log level', async () => {
    // Prepare
    vi.resetModules();
    vi.stubEnv('RUNTIME_MODE', '');
    vi.stubEnv('METRICS_NAMESPACE', 'PaymentRecovery-prod');
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    const fresh = await import('../../shared/metrics.ts');
    // Act
    fresh.metrics.jobLag('payment-retry', 1, AT);
    // Assess
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\{"_aws":\{"Timestamp":\d+,"CloudWatchMetrics":\[\{"Namespace":"PaymentRecovery-prod".*\}\n$/);
  });

  it('locally writes nothing unless LOG_LEVEL=debug, so npm start stays readable', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    for (const level of ['info', 'debug']) {
      vi.resetModules();
      vi.stubEnv('RUNTIME_MODE', 'local');
      vi.stubEnv('LOG_LEVEL', level);
      const fresh = await import('../../shared/metrics.ts');
      fresh.metrics.jobLag('campaign-step', 1, AT);
    }
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toMatchObject({ JobKind: 'campaign-step', _aws: { CloudWatchMetrics: [{ Namespace: 'PaymentRecovery-local' }] } });
  });
});
