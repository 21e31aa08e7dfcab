import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Tenant } from '../model/tenant.ts';
import type { TenantConfiguration } from '../model/tenant-configuration.ts';
import { describeError, log, setLogContext } from '../log.ts';
import { handleEvent, type EventConsumer } from './consumers.ts';
import type { ServiceEvent } from '../model/events.ts';

/** TENANT#<merchant>#<env>#<shard> (or without the shard: items written before sharding) → the tenant. */
function tenantOf(pk: string): Tenant | undefined {
  const [prefix, merchantId, environment] = pk.split('#');
  if (prefix !== 'TENANT' || !merchantId || (environment !== 'live' && environment !== 'test')) return undefined;
  return { merchantId, environment };
}

/**
 * Hands each new event item of the stream to its consumers, in order. A failure stops the batch at
 * that record (ReportBatchItemFailures), so the stream retries from there and never skips an event.
 * Each tenant's configuration is read once per batch (`configurationOf`, on first use) and shared by
 * every consumer of every record, instead of once per consumer and record.
 */
export function eventStreamHandler(consumers: readonly EventConsumer[], configurationOf: (tenant: Tenant) => TenantConfiguration) {
  return async (stream: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    const configurations = new Map<string, TenantConfiguration>();
    for (const record of stream.Records) {
      const image = record.dynamodb?.NewImage;
      if (record.eventName !== 'INSERT' || !image) continue;
      const item = unmarshall(image as Record<string, AttributeValue>);
      const tenant = typeof item.pk === 'string' ? tenantOf(item.pk) : undefined;
      if (!tenant || typeof item.sk !== 'string' || !item.sk.startsWith('EVENT#')) continue;
      const event: ServiceEvent = { id: item.id, type: item.type, created: item.created, livemode: item.livemode, data: item.data };
      setLogContext({
        request_id: context?.awsRequestId,
        route: 'stream events',
        event_id: event.id,
        event_type: event.type,
        merchant_id: tenant.merchantId,
        environment: tenant.environment,
      });
      try {
        // By tenant, not by partition key: a tenant's events are spread over its shards.
        const tenantId = `${tenant.merchantId}#${tenant.environment}`;
        let configuration = configurations.get(tenantId);
        if (!configuration) configurations.set(tenantId, (configuration = configurationOf(tenant)));
        await handleEvent(consumers, tenant, event, configuration);
      } catch (error) {
        log.error('event consumer failed', describeError(error));
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
    }
    return { batchItemFailures: [] };
  };
}
