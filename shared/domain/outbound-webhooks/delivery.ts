import { log } from '../../log.ts';
import { notFound, stateConflict } from '../../model/errors.ts';
import { isDelivered, type EventType, type ServiceEvent } from '../../model/events.ts';
import type { Tenant } from '../../model/tenant.ts';
import { deliveryIdFor, eventIdFor, type WebhookDelivery, type WebhookEndpoint } from '../../model/webhook-endpoint.ts';
import type { Ports } from '../../ports/ports.ts';
import { settleAll } from '../../settle-all.ts';
import { findEvent } from '../../store/events.ts';
import { createDelivery, findDelivery, listDeliveries, updateDelivery } from '../../store/webhook-deliveries.ts';
import { disableFailingEndpoint, findEndpoint, getEndpoint, markEndpointSuccess } from '../../store/webhook-endpoints.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { mayReachPrivate } from './endpoints.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signing.ts';

/**
 * Delivering events to merchants' endpoints: the fan-out of each delivered event to the endpoints
 * subscribed to it, one attempt per webhook-delivery job with backoff between them, and replays.
 * Deliveries are keyed by (endpoint, event) and every attempt is conditioned on the one it follows,
 * so redelivered events and repeated jobs change nothing twice.
 */

/**
 * Wait after each failed attempt (seconds, before jitter): 1 m, 5 m, 30 m, 2 h, 5 h, then 10 h seven
 * times: 13 attempts over ~3.1 days. Jitter spreads each wait by ±10 % so a recovering endpoint is not
 * hit by every queued delivery at the same second.
 */
export const RETRY_DELAYS_SECONDS = [60, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/**
 * An endpoint's last success is stamped at most once in this long, not after every delivery (a write
 * to its configuration item, on the tenant's own key, each time). The stamp may then lag a success by
 * this much, so an endpoint is disabled only with no stamp since this long before the failing
 * delivery's first try: a success the stamp left out never gets an endpoint disabled.
 */
export const SUCCESS_STAMP_MS = 3_600_000;

const stampedRecently = (endpoint: WebhookEndpoint, now: Date): boolean =>
  endpoint.last_success_at !== null && Date.parse(endpoint.last_success_at) > now.getTime() - SUCCESS_STAMP_MS;

export function retryDelaySeconds(attemptsMade: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  return base === undefined ? null : Math.round(base * (0.9 + 0.2 * random()));
}

/** An unknown endpoint is a 404; its deliveries are read beside it and dropped then. */
export async function deliveriesOf(tenant: Tenant, endpointId: string, now: Date): Promise<WebhookDelivery[]> {
  const [, deliveries] = await Promise.all([getEndpoint(tenant, endpointId), listDeliveries(tenant, endpointId, now)]);
  return deliveries;
}

const idBody = (id: string): string => id.slice(id.indexOf('_') + 1);

/** Stable per (event, endpoint, attempt): scheduling the same attempt twice moves one schedule. */
export const deliveryJobId = (endpointId: string, eventId: string, attempt: number): string =>
  `wh.${idBody(eventId)}.${idBody(endpointId)}.${attempt}`;

/** Deliveries are attempts scheduled as jobs, each sent by the webhook sender. */
export type DeliveryPorts = Pick<Ports, 'scheduler' | 'webhookSender'>;

async function scheduleAttempt(ports: Pick<DeliveryPorts, 'scheduler'>, tenant: Tenant, delivery: WebhookDelivery, attempt: number, at: Date) {
  await ports.scheduler.schedule({
    id: deliveryJobId(delivery.endpoint_id, delivery.event_id, attempt),
    kind: 'webhook-delivery',
    runAt: at,
    tenant,
    payload: { endpoint_id: delivery.endpoint_id, event_id: delivery.event_id, attempt },
  });
}

function subscribed(endpoint: WebhookEndpoint, type: EventType): boolean {
  return endpoint.enabled && (endpoint.events.includes('*') || endpoint.events.includes(type));
}

/**
 * The fan-out: one delivery per subscribed endpoint, created conditionally on (endpoint, event) so a
 * redelivered event creates nothing new, and its first attempt queued now. A delivery that exists but
 * never got its first attempt (a crash between the two writes) has it queued again; the job id is the
 * same, so that never makes two attempts. The endpoints are independent, so they are served together:
 * an event costs one endpoint's round trips however many are subscribed, and when one fails the
 * others still finish before the stream delivers the event again.
 */
export async function fanOutEvent(
  ports: Pick<DeliveryPorts, 'scheduler'>,
  tenant: Tenant,
  event: ServiceEvent,
  tenantEndpoints: readonly WebhookEndpoint[],
  now: Date,
): Promise<number> {
  if (!isDelivered(event.type)) return 0;
  const endpoints = tenantEndpoints.filter((endpoint) => subscribed(endpoint, event.type));
  const at = now.toISOString();
  const queued = await settleAll(
    endpoints.map(async (endpoint) => {
      const { created, delivery } = await createDelivery(
        tenant,
        {
          id: deliveryIdFor(event.id),
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_type: event.type,
          status: 'pending',
          attempts: 0,
          last_status_code: null,
          last_error: null,
          next_attempt_at: at,
          first_attempt_at: null,
          created_at: at,
          updated_at: at,
        },
        now,
      );
      if (!created && !(delivery.status === 'pending' && delivery.attempts === 0)) return 0;
      await scheduleAttempt(ports, tenant, delivery, 1, now);
      return 1;
    }),
  );
  return queued.reduce((sum: number, one) => sum + one, 0);
}

export interface AttemptJob {
  endpoint_id: string;
  event_id: string;
  attempt: number;
}

export type AttemptReport =
  | { outcome: 'stale' }
  | { outcome: 'succeeded' | 'retry_scheduled' | 'failed'; attempt: number; status_code: number | null; error: string | null; endpoint_disabled?: boolean };

function activeSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  return endpoint.secrets.filter((entry) => entry.expires_at === null || entry.expires_at > now.toISOString()).map((entry) => entry.secret);
}

/** The exact bytes sent: the event as stored, {id, type, created, livemode, data}. */
export function payloadOf(event: ServiceEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, created: event.created, livemode: event.livemode, data: event.data });
}

/** Ends a delivery without an attempt (endpoint gone or disabled, event expired). */
async function abandon(tenant: Tenant, delivery: WebhookDelivery, reason: string, now: Date): Promise<AttemptReport> {
  await updateDelivery(tenant, delivery, { status: 'failed', last_error: reason, next_attempt_at: null }, now);
  return { outcome: 'failed', attempt: delivery.attempts, status_code: null, error: reason };
}

/**
 * One attempt of one delivery (the webhook-delivery job). It runs only if the delivery still awaits
 * exactly this attempt, so a job the scheduler fires twice, or one a replay overtook, does nothing.
 */
export async function runDeliveryAttempt(ports: DeliveryPorts, tenant: Tenant, job: AttemptJob, clock: () => Date): Promise<AttemptReport> {
  // The job names all three records: one round of reads before the send (a stale job wastes two small reads).
  const [delivery, endpoint, event] = await Promise.all([
    findDelivery(tenant, job.endpoint_id, job.event_id),
    findEndpoint(tenant, job.endpoint_id),
    findEvent(tenant, job.event_id),
  ]);
  if (!delivery || delivery.status !== 'pending' || delivery.attempts !== job.attempt - 1) {
    // This attempt is recorded but its run failed before the next one was scheduled (the job runs
    // again): schedule that one, under the same job id, or the delivery would wait for ever.
    if (delivery?.status === 'pending' && delivery.attempts === job.attempt && delivery.next_attempt_at) {
      await scheduleAttempt(ports, tenant, delivery, job.attempt + 1, new Date(delivery.next_attempt_at));
    }
    return { outcome: 'stale' };
  }
  if (!endpoint) return abandon(tenant, delivery, 'The endpoint was deleted', clock());
  if (!endpoint.enabled) return abandon(tenant, delivery, 'The endpoint is disabled', clock());
  if (!event) return abandon(tenant, delivery, 'The event is no longer available', clock());

  const body = payloadOf(event);
  const sentAt = clock();
  const timestamp = Math.floor(sentAt.getTime() / 1000);
  const response = await ports.webhookSender.send({
    url: endpoint.url,
    body,
    headers: {
      'Content-Type': 'application/json',
      [SIGNATURE_HEADER]: signatureHeader(activeSecrets(endpoint, sentAt), timestamp, body),
      'Recovery-Event-Id': event.id,
      'Recovery-Delivery-Id': delivery.id,
      'Recovery-Delivery-Attempt': String(job.attempt),
    },
    allowPrivateAddresses: mayReachPrivate(ports.webhookSender, tenant),
  });

  const now = clock();
  const common = { attempts: job.attempt, last_status_code: response.statusCode, last_error: response.error, first_attempt_at: delivery.first_attempt_at ?? sentAt.toISOString() };
  if (response.ok) {
    const recorded = await updateDelivery(tenant, delivery, { ...common, status: 'succeeded', next_attempt_at: null }, now);
    if (recorded && !stampedRecently(endpoint, now)) await markEndpointSuccess(tenant, endpoint.id, now);
    return { outcome: 'succeeded', attempt: job.attempt, status_code: response.statusCode, error: null };
  }
  const delay = retryDelaySeconds(job.attempt);
  if (delay !== null) {
    const nextAt = new Date(now.getTime() + delay * 1000);
    if (await updateDelivery(tenant, delivery, { ...common, next_attempt_at: nextAt.toISOString() }, now)) {
      await scheduleAttempt(ports, tenant, delivery, job.attempt + 1, nextAt);
    }
    return { outcome: 'retry_scheduled', attempt: job.attempt, status_code: response.statusCode, error: response.error };
  }
  const recorded = await updateDelivery(tenant, delivery, { ...common, status: 'failed', next_attempt_at: null }, now);
  // Persistent failure: every attempt of this delivery (≈3 days) failed and nothing else got through meanwhile (nor in the stamp's hour before).
  const stampedSince = new Date(Date.parse(common.first_attempt_at) - SUCCESS_STAMP_MS).toISOString();
  const disabled = recorded && (await disableFailingEndpoint(tenant, endpoint.id, stampedSince, now));
  if (disabled) log.warn('webhook endpoint disabled after persistent delivery failures', { endpoint_id: endpoint.id });
  return { outcome: 'failed', attempt: job.attempt, status_code: response.statusCode, error: response.error, endpoint_disabled: disabled };
}

/** POST …/deliveries/{id}/replay: one more attempt now, whatever the delivery's status. */
export async function replayDelivery(
  ports: Pick<DeliveryPorts, 'scheduler'>,
  tenant: Tenant,
  endpointId: string,
  deliveryId: string,
  now: Date,
): Promise<WebhookDelivery> {
  const read = () => findDelivery(tenant, endpointId, eventIdFor(deliveryId));
  // The delivery is read beside its endpoint; a lost race reads it again.
  const [endpoint, firstRead] = await Promise.all([getEndpoint(tenant, endpointId), read()]);
  if (!endpoint.enabled) {
    throw stateConflict(`Webhook endpoint '${endpointId}' is disabled; enable it (PUT enabled: true) before replaying deliveries.`);
  }
  const replaying: ContentionPolicy = {
    write: 'webhook_delivery',
    attempts: 5,
    backoff: MERCHANT_WRITE,
    exhausted: () => stateConflict(`Delivery '${deliveryId}' is being attempted right now; retry the request.`),
  };
  return writeOptimistically(replaying, async (attempt) => {
    const delivery = attempt === 0 ? firstRead : await read();
    if (!delivery || delivery.id !== deliveryId) throw notFound('delivery', deliveryId);
    const next: WebhookDelivery = { ...delivery, status: 'pending', next_attempt_at: now.toISOString(), updated_at: now.toISOString() };
    if (!(await updateDelivery(tenant, delivery, { status: 'pending', next_attempt_at: next.next_attempt_at }, now))) return LOST;
    await scheduleAttempt(ports, tenant, next, delivery.attempts + 1, now);
    return next;
  });
}
