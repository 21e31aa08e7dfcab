import { describe, expect, it } from 'vitest';
import { emfLine } from '../../shared/emf.ts';

const AT = Date.UTC(2026, 10, 23, 9, 0, 0);

describe('Embedded Metric Format lines', () => {
  it('writes one directive naming the dimensions and metrics, with their values and the properties at the root', () => {
    // Act
    const line = emfLine({
      namespace: 'PaymentRecovery-prod',
      timestamp: AT,
      sets: [{ dimensions: { Environment: 'live', Processor: 'stripe', Outcome: 'succeeded' }, values: { RetryAttempted: { value: 1, unit: 'Count' } } }],
      properties: { request_id: 'req_1', merchant_id: 'mer_1' },
    });
    // Assess
    expect(line).toBe(
      '{"_aws":{"Timestamp":1795424400000,"CloudWatchMetrics":[{"Namespace":"PaymentRecovery-prod","Dimensions":[["Environment","Processor","Outcome"]],' +
        '"Metrics":[{"Name":"RetryAttempted","Unit":"Count"}]}]},"request_id":"req_1","merchant_id":"mer_1",' +
        '"Environment":"live","Processor":"stripe","Outcome":"succeeded","RetryAttempted":1}',
    );
  });

  it('gives each set its own directive, sharing dimension members that agree', () => {
    const line = emfLine({
      namespace: 'PaymentRecovery-prod',
      timestamp: AT,
      sets: [
        { dimensions: { Environment: 'live', Channel: 'automatic_retry' }, values: { PaymentRecovered: { value: 1, unit: 'Count' } } },
        { dimensions: { Environment: 'live', Currency: 'eur' }, values: { RecoveredAmount: { value: 2900, unit: 'None' } } },
      ],
    });
    expect(line).toBe(
      '{"_aws":{"Timestamp":1795424400000,"CloudWatchMetrics":[' +
        '{"Namespace":"PaymentRecovery-prod","Dimensions":[["Environment","Channel"]],"Metrics":[{"Name":"PaymentRecovered","Unit":"Count"}]},' +
        '{"Namespace":"PaymentRecovery-prod","Dimensions":[["Environment","Currency"]],"Metrics":[{"Name":"RecoveredAmount","Unit":"None"}]}]},' +
        '"Environment":"live","Channel":"automatic_retry","PaymentRecovered":1,"Currency":"eur","RecoveredAmount":2900}',
    );
  });

  it('writes a metric without dimensions as one empty dimension set', () => {
    const line = emfLine({ namespace: 'N', timestamp: AT, sets: [{ dimensions: {}, values: { JobLag: { value: 2.5, unit: 'Seconds' } } }] });
    expect(line).toBe('{"_aws":{"Timestamp":1795424400000,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[[]],"Metrics":[{"Name":"JobLag","Unit":"Seconds"}]}]},"JobLag":2.5}');
  });

  it('never lets a property change the metadata, a dimension or a metric', () => {
    const document = JSON.parse(
      emfLine({
        namespace: 'N',
        timestamp: AT,
        sets: [{ dimensions: { Channel: 'email' }, values: { DunningMessageSent: { value: 1, unit: 'Count' } } }],
        properties: { _aws: 'forged', Channel: 'sms', DunningMessageSent: 99 },
      }),
    );
    expect(document).toMatchObject({ _aws: { Timestamp: AT }, Channel: 'email', DunningMessageSent: 1 });
  });

  it('refuses lines CloudWatch would reject or read wrongly', () => {
    const count = { value: 1, unit: 'Count' } as const;
    const line = (sets: Parameters<typeof emfLine>[0]['sets']) => () => emfLine({ namespace: 'N', timestamp: AT, sets });
    expect(line([{ dimensions: { Channel: 'email' }, values: { A: count } }, { dimensions: { Channel: 'sms' }, values: { B: count } }])).toThrow(/two values/);
    expect(line([{ dimensions: { Channel: ' ' }, values: { A: count } }])).toThrow(/empty/);
    expect(line([{ dimensions: {}, values: { A: { value: Number.NaN, unit: 'Count' } } }])).toThrow(/finite/);
    expect(line([{ dimensions: {}, values: {} }])).toThrow(/1 to 100 metrics/);
    expect(line([{ dimensions: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`D${i}`, 'x'])), values: { A: count } }])).toThrow(/at most 30/);
  });
});
