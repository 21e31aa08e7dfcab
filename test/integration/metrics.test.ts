import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { useMetricSink, type MetricSink } from '../../shared/metrics.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

/** Every metric line written while a test runs, parsed. */
let lines: Record<string, any>[] = [];
let previous: MetricSink | undefined;
beforeEach(() => {
  lines = [];
  previous = useMetricSink((line) => lines.push(JSON.parse(line)));
});
afterEach(() => {
  useMetricSink(previous);
});

/** The lines carrying a metric, as dimensions and value, with the line's properties. */
const measured = (name: string) => lines.filter((line) => line[name] !== undefined);

async function setUp() {
  const merchant = await newMerchant();
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  return { ...merchant, path };
}

describe('metrics of the recovery pipeline', () => {
  it('a soft decline retried successfully: the failure by category, the attempt by outcome, its start lag, the recovery by channel and amount', async () => {
    // Prepare
    const { merchantId, path } = await setUp();
    const failed = await postGeneric(path, genericFailure({ code: 'insufficient_funds', lastFour: '4242', amount: 4500, currency: 'USD' }));
    const paymentId: string = failed.body.payment_id;
    await drainEvents();
    const [pending] = await tenantItems({ merchantId, environment: 'test' }, `PAYMENT#${paymentId}`);
    // Act: move to one second past the retry's time and fire it, as the scheduler would a second late
    advanceClock((Date.parse(pending!.next_retry_at) - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    await drainEvents();
    // Assess
    const mine = (line: Record<string, any>) => line.merchant_id === merchantId;
    expect(measured('FailureIngested').filter(mine)).toEqual([
      expect.objectContaining({ Environment: 'test', Category: 'soft_retry', FailureIngested: 1, payment_id: paymentId, route: 'stream events' }),
    ]);
    const [attempt, ...others] = measured('RetryAttempted').filter(mine);
    expect(others).toEqual([]);
    expect(attempt).toMatchObject({ Environment: 'test', Processor: 'other', Outcome: 'succeeded', RetryAttempted: 1, payment_id: paymentId, route: 'job payment-retry' });
    expect(attempt!._aws.CloudWatchMetrics).toEqual([
      { Namespace: 'PaymentRecovery-local', Dimensions: [['Environment', 'Processor', 'Outcome']], Metrics: [{ Name: 'RetryAttempted', Unit: 'Count' }] },
    ]);
    expect(attempt!.request_id).toEqual(expect.any(String));
    const [lag] = measured('JobLag').filter((line) => mine(line) && line.job_id === `retry-${paymentId}-1`);
    expect(lag).toMatchObject({ JobKind: 'payment-retry' });
    expect(lag!.JobLag).toBeGreaterThanOrEqual(1);
    expect(lag!.JobLag).toBeLessThan(60);
    expect(measured('PaymentRecovered').filter(mine)).toEqual([
      expect.objectContaining({ Environment: 'test', Channel: 'automatic_retry', PaymentRecovered: 1, Currency: 'usd', RecoveredAmount: 4500, payment_id: paymentId }),
    ]);
  });

  it('counts a declined retry as failed', async () => {
    const { merchantId, path } = await setUp();
    const paymentId: string = (await postGeneric(path, genericFailure({ code: 'insufficient_funds', lastFour: '9995' }))).body.payment_id;
    const [pending] = await tenantItems({ merchantId, environment: 'test' }, `PAYMENT#${paymentId}`);
    advanceClock((Date.parse(pending!.next_retry_at) - runtime.clock.now().getTime()) / 1000 + 1);
    await runDueJobs();
    expect(measured('RetryAttempted').filter((line) => line.payment_id === paymentId)).toEqual([expect.objectContaining({ Outcome: 'failed', Processor: 'other' })]);
  });

  it('counts each dunning message by channel when its step is sent', async () => {
    // Prepare
    const { keys, path, merchantId } = await setUp();
    const steps = [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 }];
    const created = await call('POST', '/v1/campaigns', { key: keys.test_write, body: { name: 'Card problems', trigger: 'payment_failed', steps } });
    await call('POST', `/v1/campaigns/${created.body.data.id}/activate`, { key: keys.test_write });
    await postGeneric(path, genericFailure({ code: 'expired_card' }));
    await drainEvents();
    // Act
    advanceClock(3600);
    await runDueJobs();
    await drainEvents();
    // Assess
    expect(measured('DunningMessageSent').filter((line) => line.merchant_id === merchantId)).toEqual([
      expect.objectContaining({ Environment: 'test', Channel: 'email', DunningMessageSent: 1, campaign_id: created.body.data.id }),
    ]);
    expect(measured('FailureIngested').filter((line) => line.merchant_id === merchantId)).toEqual([expect.objectContaining({ Category: 'hard_customer' })]);
  });
});
