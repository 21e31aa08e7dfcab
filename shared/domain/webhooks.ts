import { runtime } from '../composition.ts';
import { newId, randomSecret } from '../ids.ts';
import { log } from '../log.ts';
import type { Scheduler } from '../ports/scheduler.ts';
import type { WebhookSender } from '../ports/webhook-sender.ts';
import { settleAll } from '../settle-all.ts';
import { findEvent, type EventType, type ServiceEvent } from '../store/events.ts';
import {
  createDelivery,
  deliveryIdFor,
  eventIdFor,
  findDelivery,
  listDeliveries,
  updateDelivery,
  type WebhookDelivery,
} from '../store/webhook-deliveries.ts';
import {
  deleteEndpoint,
  disableFailingEndpoint,
  findEndpoint,
  getEndpoint,
  listEndpoints,
  markEndpointSuccess,
  saveEndpoint,
  type WebhookEndpoint,
} from '../store/webhook-endpoints.ts';
import { classifyAddress, isLocalHostName, isSingleLabelHost, writtenAsCalled } from './address-policy.ts';
import { notFound, stateConflict, validationFailed } from './errors.ts';
import type { Tenant } from './tenant.ts';
import { signatureHeader, SIGNATURE_HEADER } from './webhook-signing.ts';

/**
 * Event types merchants can subscribe to. Every other type is internal (INTERNAL_EVENT_TYPES): not
 * subscribable, not even through "*", and never fanned out (docs/decisions.md).
 */
export const DELIVERED_EVENT_TYPES = [
  'customer.created',
  'customer.deleted',
  'customer.retained',
  'customer.subscription_canceled',
  'payment.failed',
  'payment.retry_scheduled',
  'payment.retry_failed',
  'payment.recovered',
  'payment.terminal',
  'campaign.message_sent',
] as const satisfies readonly EventType[];

/**
 * Event types kept for the service's own consumers. CancelFlowCompleted / CancelFlowSaved are the
 * cancel flow's recovery records (§4.5), whose public meaning reaches merchants as customer.retained
 * and customer.subscription_canceled. campaign.enrolled / campaign.recovered feed campaign analytics;
 * merchants see enrollments through the campaigns API and recoveries as payment.recovered.
 * campaign.status_changed has archiving and re-activation sweep a campaign's enrollments; merchants
 * made the change themselves and see it on the campaign. payment.recategorized and
 * payment.terminal_reversed keep the analytics cohorts exact; merchants read the category on the
 * payment itself, and a terminal payment paid after all reaches them as payment.recovered.
 */
export const INTERNAL_EVENT_TYPES = [
  'CancelFlowCompleted',
  'CancelFlowSaved',
  'campaign.enrolled',
  'campaign.recovered',
  'campaign.status_changed',
  'payment.recategorized',
  'payment.terminal_reversed',
] as const satisfies readonly EventType[];

/** Compile-time check: a new event type must be listed as delivered or internal, so it is never exposed by accident. */
type UndecidedEventType = Exclude<EventType, (typeof DELIVERED_EVENT_TYPES)[number] | (typeof INTERNAL_EVENT_TYPES)[number]>;
export const EVERY_EVENT_TYPE_DECIDED: [UndecidedEventType] extends [never] ? true : never = true;

export const MAX_ENDPOINTS = 16;

/**
 * Wait after each failed attempt (seconds, before jitter): 1 m, 5 m, 30 m, 2 h, 5 h, then 10 h seven
 * times: 13 attempts over ~3.1 days. Jitter spreads each wait by ±10 % so a recovering endpoint is not
 * hit by every queued delivery at the same second.
 */
export const RETRY_DELAYS_SECONDS = [60, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** How long a rotated-out secret keeps signing next to the new one. */
export const SECRET_OVERLAP_HOURS = 24;

export function retryDelaySeconds(attemptsMade: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  return base === undefined ? null : Math.round(base * (0.9 + 0.2 * random()));
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string;
  enabled?: boolean;
}

const isLocalRuntime = (): boolean => runtime.mode === 'local';

/** Test-mode endpoints may point at this machine or a private network, but only on the local runtime. */
const mayReachPrivate = (tenant: Tenant): boolean => tenant.environment === 'test' && isLocalRuntime();

/**
 * What can be judged from the URL alone; resolved addresses are checked again at every delivery.
 * A live endpoint must also be written as it will be called and name a fully qualified host.
 */
function checkUrl(tenant: Tenant, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationFailed('Invalid url: must be an absolute http(s) URL', 'url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw validationFailed('Invalid url: must use https', 'url');
  if (tenant.environment === 'live' && url.protocol !== 'https:') throw validationFailed('Invalid url: live-mode endpoints must use https', 'url');
  if (url.username !== '' || url.password !== '') throw validationFailed('Invalid url: must not contain credentials', 'url');
  if (tenant.environment === 'live') {
    if (!writtenAsCalled(raw, url)) throw validationFailed(`Invalid url: it reads as ${url.href} once normalised; send it in that form`, 'url');
    if (isSingleLabelHost(url.hostname)) throw validationFailed(`Invalid url: ${url.hostname} is not a fully qualified domain name`, 'url');
  }
  if (!mayReachPrivate(tenant)) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const kind = classifyAddress(host);
    if (isLocalHostName(host) || (kind !== 'invalid' && kind !== 'public')) {
      throw validationFailed(`Invalid url: ${host} is not a public address`, 'url');
    }
  }
  return url.toString();
}

function normalizeEvents(events: string[]): string[] {
  if (events.includes('*') && events.length > 1) throw validationFailed('Invalid events: "*" must be the only entry', 'events');
  return events;
}

function newSecret(): string {
  return `whsec_${randomSecret(32)}`;
}

export async function createEndpoint(tenant: Tenant, input: EndpointInput, now: Date): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = checkUrl(tenant, input.url);
  const events = normalizeEvents(input.events);
  // Counted from a consistent read: two creations racing at the limit may both pass (documented, harmless).
  if ((await listEndpoints(tenant, true)).length >= MAX_ENDPOINTS) {
    throw stateConflict(`A mode may have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
  }
  const secret = newSecret();
  const at = now.toISOString();
  const enabled = input.enabled ?? true;
  const endpoint: WebhookEndpoint = {
    id: newId('we', now),
    url,
    events,
    description: input.description ?? '',
    enabled,
    disabled_reason: enabled ? null : 'merchant',
    disabled_at: enabled ? null : at,
    secrets: [{ secret, expires_at: null }],
    last_success_at: null,
    created_at: at,
    updated_at: at,
    version: 1,
  };
  await saveEndpoint(tenant, endpoint, null);
  return { endpoint, secret };
}

const MAX_TRIES = 5;

/** Read, change, write conditioned on the version read; a concurrent change makes it read again. */
async function changeEndpoint(tenant: Tenant, id: string, change: (endpoint: WebhookEndpoint) => WebhookEndpoint): Promise<WebhookEndpoint> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await getEndpoint(tenant, id);
    const next = { ...change(current), version: current.version + 1 };
    if (await saveEndpoint(tenant, next, current.version)) return next;
  }
  throw stateConflict(`Webhook endpoint '${id}' was changed by another request at the same time; retry the request.`);
}

export async function updateEndpoint(tenant: Tenant, id: string, patch: Partial<EndpointInput>, now: Date): Promise<WebhookEndpoint> {
  const url = patch.url === undefined ? undefined : checkUrl(tenant, patch.url);
  const events = patch.events === undefined ? undefined : normalizeEvents(patch.events);
  const at = now.toISOString();
  return changeEndpoint(tenant, id, (endpoint) => {
    const enabled = patch.enabled ?? endpoint.enabled;
    const toggled = enabled !== endpoint.enabled;
    return {
      ...endpoint,
      url: url ?? endpoint.url,
      events: events ?? endpoint.events,
      description: patch.description ?? endpoint.description,
      enabled,
      disabled_reason: enabled ? null : toggled ? 'merchant' : endpoint.disabled_reason,
      disabled_at: enabled ? null : toggled ? at : endpoint.disabled_at,
      updated_at: at,
    };
  });
}

/** GET /v1/webhooks/{id}: the endpoint, or 404 (401 when it belongs to the other environment). */
export { getEndpoint };

export async function removeEndpoint(tenant: Tenant, id: string): Promise<void> {
  await deleteEndpoint(tenant, id);
}

/** A new secret, returned once; the previous one keeps signing (a second v1) for 24 hours. */
export async function rotateEndpointSecret(tenant: Tenant, id: string, now: Date): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newSecret();
  const at = now.toISOString();
  const overlapEnd = new Date(now.getTime() + SECRET_OVERLAP_HOURS * 3_600_000).toISOString();
  const endpoint = await changeEndpoint(tenant, id, (current) => {
    const previous = current.secrets.find((entry) => entry.expires_at === null);
    return {
      ...current,
      secrets: [{ secret, expires_at: null }, ...(previous ? [{ secret: previous.secret, expires_at: overlapEnd }] : [])],
      updated_at: at,
    };
  });
  return { endpoint, secret };
}

export async function endpointsOf(tenant: Tenant): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(tenant)).sort((a, b) => (a.id < b.id ? 1 : -1));
}

/** An unknown endpoint is a 404; its deliveries are read beside it and dropped then. */
export async function deliveriesOf(tenant: Tenant, endpointId: string, now: Date): Promise<WebhookDelivery[]> {
  const [, deliveries] = await Promise.all([getEndpoint(tenant, endpointId), listDeliveries(tenant, endpointId, now)]);
  return deliveries;
}

// ---- Delivery --------------------------------------------------------------------------------

const idBody = (id: string): string => id.slice(id.indexOf('_') + 1);

/** Stable per (event, endpoint, attempt): scheduling the same attempt twice moves one schedule. */
export const deliveryJobId = (endpointId: string, eventId: string, attempt: number): string =>
  `wh.${idBody(eventId)}.${idBody(endpointId)}.${attempt}`;

export interface DeliveryPorts {
  scheduler: Scheduler;
  sender: WebhookSender;
}

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

export const isDelivered = (type: EventType): boolean => (DELIVERED_EVENT_TYPES as readonly string[]).includes(type);

/**
 * The fan-out: one delivery per subscribed endpoint, created conditionally on (endpoint, event) so a
 * redelivered event creates nothing new, and its first attempt queued now. A delivery that exists but
 * never got its first attempt (a crash between the two writes) has it queued again; the job id is the
 * same, so that never makes two attempts. The endpoints are independent, so they are served together:
 * an event costs one endpoint's round trips however many are subscribed, and when one fails the
 * others still finish before the stream delivers the event again.
 */
export async function fanOutEvent(ports: Pick<DeliveryPorts, 'scheduler'>, tenant: Tenant, event: ServiceEvent, now: Date): Promise<number> {
  if (!isDelivered(event.type)) return 0;
  const endpoints = (await listEndpoints(tenant)).filter((endpoint) => subscribed(endpoint, event.type));
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
  if (!delivery || delivery.status !== 'pending' || delivery.attempts !== job.attempt - 1) return { outcome: 'stale' };
  if (!endpoint) return abandon(tenant, delivery, 'The endpoint was deleted', clock());
  if (!endpoint.enabled) return abandon(tenant, delivery, 'The endpoint is disabled', clock());
  if (!event) return abandon(tenant, delivery, 'The event is no longer available', clock());

  const body = payloadOf(event);
  const sentAt = clock();
  const timestamp = Math.floor(sentAt.getTime() / 1000);
  const response = await ports.sender.send({
    url: endpoint.url,
    body,
    headers: {
      'Content-Type': 'application/json',
      [SIGNATURE_HEADER]: signatureHeader(activeSecrets(endpoint, sentAt), timestamp, body),
      'Recovery-Event-Id': event.id,
      'Recovery-Delivery-Id': delivery.id,
      'Recovery-Delivery-Attempt': String(job.attempt),
    },
    allowPrivateAddresses: mayReachPrivate(tenant),
  });

  const now = clock();
  const common = { attempts: job.attempt, last_status_code: response.statusCode, last_error: response.error, first_attempt_at: delivery.first_attempt_at ?? sentAt.toISOString() };
  if (response.ok) {
    const recorded = await updateDelivery(tenant, delivery, { ...common, status: 'succeeded', next_attempt_at: null }, now);
    if (recorded) await markEndpointSuccess(tenant, endpoint.id, now);
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
  // Persistent failure: every attempt of this delivery (≈3 days) failed and nothing else got through meanwhile.
  const disabled = recorded && (await disableFailingEndpoint(tenant, endpoint.id, common.first_attempt_at, now));
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
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const delivery = attempt === 0 ? firstRead : await read();
    if (!delivery || delivery.id !== deliveryId) throw notFound('delivery', deliveryId);
    const next: WebhookDelivery = { ...delivery, status: 'pending', next_attempt_at: now.toISOString(), updated_at: now.toISOString() };
    if (await updateDelivery(tenant, delivery, { status: 'pending', next_attempt_at: next.next_attempt_at }, now)) {
      await scheduleAttempt(ports, tenant, next, delivery.attempts + 1, now);
      return next;
    }
  }
  throw stateConflict(`Delivery '${deliveryId}' is being attempted right now; retry the request.`);
}
