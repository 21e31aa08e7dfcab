/** A merchant's outbound webhook endpoints and the deliveries of events to them (domain/outbound-webhooks). */

export interface SigningSecret {
  secret: string;
  /** null for the current secret; when a rotated-out secret stops signing. */
  expires_at: string | null;
}

/** A merchant's outbound webhook endpoint. The secrets are stored (encrypted at rest) because signing needs them. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Event types, or ['*'] for every delivered type. */
  events: string[];
  description: string;
  enabled: boolean;
  /** Why it is disabled: 'merchant' (PUT enabled=false) or 'failing' (disabled automatically). */
  disabled_reason: 'merchant' | 'failing' | null;
  disabled_at: string | null;
  secrets: SigningSecret[];
  /** Last time any delivery to it got a 2xx: what the automatic disabling is judged against. */
  last_success_at: string | null;
  created_at: string;
  updated_at: string;
  /** Optimistic-lock counter for API changes. */
  version: number;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One event for one endpoint. Its key is (endpoint, event), so however often the event log delivers
 * the event, the endpoint gets one delivery; the id is `whd_` + the event id's body, so deliveries sort
 * by event time. It holds no event data: each attempt reads the event item, which erasure anonymises.
 */
export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts made so far; the next attempt is number attempts + 1. */
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  first_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export const deliveryIdFor = (eventId: string): string => `whd_${eventId.slice(eventId.indexOf('_') + 1)}`;
export const eventIdFor = (deliveryId: string): string => `evt_${deliveryId.slice(deliveryId.indexOf('_') + 1)}`;
