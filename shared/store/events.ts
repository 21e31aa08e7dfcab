import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import type { Tenant } from '../domain/tenant.ts';
import { newId } from '../ids.ts';
import { tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * The tenant's event log: every state change writes its event in the same transaction as the change
 * (a transactional outbox), so outbound webhooks and analytics can never miss or invent one.
 */
export type EventType =
  | 'payment.failed'
  | 'payment.recovered'
  | 'payment.terminal'
  | 'payment.retry_scheduled'
  | 'payment.retry_failed'
  | 'customer.created'
  | 'customer.deleted'
  | 'customer.retained'
  | 'customer.subscription_canceled'
  | 'campaign.message_sent'
  | 'CancelFlowCompleted'
  | 'CancelFlowSaved';

export interface ServiceEvent {
  id: string;
  type: EventType;
  created: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

const eventSk = (eventId: string): string => `EVENT#${eventId}`;

export function newEvent(tenant: Tenant, type: EventType, data: Record<string, unknown>, now: Date): ServiceEvent {
  return { id: newId('evt', now), type, created: now.toISOString(), livemode: tenant.environment === 'live', data };
}

export function recordEventWrite(tenant: Tenant, event: ServiceEvent): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { pk: tenantPk(tenant), sk: eventSk(event.id), entity: 'event', ...event },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Events of a tenant, oldest first (ids sort by time). */
export async function listEvents(tenant: Tenant, limit = 100): Promise<ServiceEvent[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'EVENT#' },
      Limit: limit,
    }),
  );
  return Items.map(({ id, type, created, livemode, data }) => ({ id, type, created, livemode, data }) as ServiceEvent);
}
