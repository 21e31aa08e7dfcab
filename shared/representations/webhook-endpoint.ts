import type { Tenant } from '../model/tenant.ts';
import type { WebhookDeliveryResource, WebhookEndpointResource } from './schemas/webhook-endpoint.ts';
import type { WebhookDelivery, WebhookEndpoint } from '../model/webhook-endpoint.ts';

/** The REST shape of an endpoint; its signing secrets are only in the create and rotate responses. */
export function webhookEndpointResource(endpoint: WebhookEndpoint, tenant: Tenant): WebhookEndpointResource {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabled_reason,
    disabled_at: endpoint.disabled_at,
    livemode: tenant.environment === 'live',
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
  };
}

export function webhookDeliveryResource(delivery: WebhookDelivery): WebhookDeliveryResource {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    endpoint_id: delivery.endpoint_id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    next_attempt_at: delivery.next_attempt_at,
    created_at: delivery.created_at,
    updated_at: delivery.updated_at,
  };
}
