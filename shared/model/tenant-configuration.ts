import type { Campaign } from './campaign.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';

/**
 * What a tenant has set up that the event log's consumers act on. The stream handler reads each part
 * at most once per batch, when a consumer first asks for it, and every consumer of that tenant's
 * records in the batch shares the answer: a batch holds only events written before it was read, so
 * the one read is as fresh for each of them as a read of its own.
 */
export interface TenantConfiguration {
  campaigns(): Promise<readonly Campaign[]>;
  webhookEndpoints(): Promise<readonly WebhookEndpoint[]>;
}
