import type { DynamoDBStreamEvent } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import type { EventConsumer } from '../../shared/events/consumers.ts';
import { eventStreamHandler } from '../../shared/events/stream-handler.ts';
import { tenantKey } from '../../shared/store/keys.ts';
import { captureLogLines } from '../support/log-lines.ts';
import type { ServiceEvent } from '../../shared/model/events.ts';
import type { TenantConfiguration } from '../../shared/model/tenant-configuration.ts';

function streamOf(items: Record<string, unknown>[]): DynamoDBStreamEvent {
  return {
    Records: items.map((item, i) => ({
      eventName: 'INSERT',
      dynamodb: { NewImage: marshall(item) as never, SequenceNumber: String(i + 1) },
    })),
  };
}

/** Keyed as the event store keys it: a tenant's events sit on several shards (evt_1 and evt_3 of mer_1 on two). */
const eventItem = (id: string, type: string, merchant = 'mer_1') => ({
  ...tenantKey({ merchantId: merchant, environment: 'test' }, `EVENT#${id}`),
  entity: 'event',
  id,
  type,
  created: '2026-11-21T00:00:00.000Z',
  livemode: false,
  data: { id: 'pay_1' },
});

/** For consumers that read no configuration. */
const unconfigured = (): TenantConfiguration => ({ campaigns: async () => [], webhookEndpoints: async () => [] });

describe('event stream handler', () => {
  it('hands each new event to the consumers of its type, in order, with its tenant', async () => {
    // Prepare
    const seen: string[] = [];
    const consumers: EventConsumer[] = [
      { name: 'failures', types: ['payment.failed'], handle: async (tenant, event: ServiceEvent) => void seen.push(`failures:${tenant.merchantId}:${event.id}`) },
      { name: 'all', types: '*', handle: async (_, event) => void seen.push(`all:${event.id}`) },
    ];
    // Act
    const result = await eventStreamHandler(consumers, unconfigured)(
      streamOf([eventItem('evt_1', 'payment.failed'), { pk: 'TENANT#mer_1#test', sk: 'PAYMENT#pay_1' }, eventItem('evt_2', 'payment.recovered')]),
    );
    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(seen).toEqual(['failures:mer_1:evt_1', 'all:evt_1', 'all:evt_2']);
  });

  it('stops at a failing record and reports it, so the stream retries from there', async () => {
    const seen: string[] = [];
    const consumers: EventConsumer[] = [
      {
        name: 'flaky',
        types: '*',
        handle: async (_, event) => {
          if (event.id === 'evt_2') throw new Error('downstream unavailable');
          seen.push(event.id);
        },
      },
    ];
    const errors = captureLogLines('stderr');
    const result = await eventStreamHandler(consumers, unconfigured)(streamOf([eventItem('evt_1', 'payment.failed'), eventItem('evt_2', 'payment.failed'), eventItem('evt_3', 'payment.failed')]));
    vi.restoreAllMocks();
    expect(errors.join('\n')).toContain('downstream unavailable');
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '2' }]);
    expect(seen).toEqual(['evt_1']);
  });

  it('runs the consumers of an event together, and the last one only once the others are done', async () => {
    const timeline: string[] = [];
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    const consumers: EventConsumer[] = [
      { name: 'metrics', types: '*', runsLast: true, handle: async () => void timeline.push('metrics') },
      {
        name: 'slow',
        types: '*',
        handle: async () => {
          timeline.push('slow started');
          await slowGate;
          timeline.push('slow done');
        },
      },
      { name: 'fast', types: '*', handle: async () => void timeline.push('fast done') },
    ];
    const handled = eventStreamHandler(consumers, unconfigured)(streamOf([eventItem('evt_1', 'payment.failed')]));
    await vi.waitFor(() => expect(timeline).toEqual(['slow started', 'fast done']));
    releaseSlow();
    expect((await handled).batchItemFailures).toEqual([]);
    expect(timeline).toEqual(['slow started', 'fast done', 'slow done', 'metrics']);
  });

  it('lets every consumer finish when one fails, reports the record, and skips the last one', async () => {
    const timeline: string[] = [];
    const consumers: EventConsumer[] = [
      { name: 'failing', types: '*', handle: async () => Promise.reject(new Error('webhook store unavailable')) },
      {
        name: 'slower',
        types: '*',
        handle: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          timeline.push('slower done');
        },
      },
      { name: 'metrics', types: '*', runsLast: true, handle: async () => void timeline.push('metrics') },
    ];
    const errors = captureLogLines('stderr');
    const result = await eventStreamHandler(consumers, unconfigured)(streamOf([eventItem('evt_1', 'payment.failed'), eventItem('evt_2', 'payment.failed')]));
    vi.restoreAllMocks();
    expect(errors.join('\n')).toContain('webhook store unavailable');
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '1' }]);
    expect(timeline).toEqual(['slower done']);
  });

  it("gives every consumer of a tenant's records in one batch the same configuration, another tenant its own", async () => {
    // Prepare
    const made: string[] = [];
    const seen = new Map<string, Set<TenantConfiguration>>();
    const configurationOf = (tenant: { merchantId: string }): TenantConfiguration => {
      made.push(tenant.merchantId);
      return unconfigured();
    };
    const remember = (merchant: string, configuration: TenantConfiguration) => seen.set(merchant, (seen.get(merchant) ?? new Set()).add(configuration));
    const consumers: EventConsumer[] = ['dunning', 'webhooks'].map((name) => ({
      name,
      types: '*',
      handle: async (tenant, _, configuration) => void remember(tenant.merchantId, configuration),
    }));
    const batch = streamOf([eventItem('evt_1', 'payment.failed'), eventItem('evt_2', 'payment.failed', 'mer_2'), eventItem('evt_3', 'payment.recovered')]);
    // Act
    await eventStreamHandler(consumers, configurationOf)(batch);
    await eventStreamHandler(consumers, configurationOf)(batch);
    // Assess
    expect(made).toEqual(['mer_1', 'mer_2', 'mer_1', 'mer_2']);
    expect(seen.get('mer_1')!.size).toBe(2);
    expect(seen.get('mer_2')!.size).toBe(2);
  });
});
