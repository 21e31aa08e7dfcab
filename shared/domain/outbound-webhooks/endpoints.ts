import { newId, randomSecret } from '../../ids.ts';
import { classifyAddress, isLocalHostName, isSingleLabelHost, writtenAsCalled } from '../../model/address-policy.ts';
import { stateConflict, validationFailed } from '../../model/errors.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { Ports } from '../../ports/ports.ts';
import type { WebhookSender } from '../../ports/webhook-sender.ts';
import type { WebhookEndpoint } from '../../model/webhook-endpoint.ts';
import { LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { deleteEndpoint, getEndpoint, listEndpoints, saveEndpoint } from '../../store/webhook-endpoints.ts';

/**
 * Merchants' outbound webhook endpoints (the /v1/webhooks API): which URLs get which events, the
 * checks a URL must pass, and secret rotation. Delivering events to them is delivery.ts.
 */

export const MAX_ENDPOINTS = 16;

/** How long a rotated-out secret keeps signing next to the new one. */
export const SECRET_OVERLAP_HOURS = 24;

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string;
  enabled?: boolean;
}

/** Test-mode endpoints may point at this machine or a private network, but only where the sender allows it (the local server). */
export const mayReachPrivate = (sender: Pick<WebhookSender, 'privateTestEndpoints'>, tenant: Tenant): boolean =>
  tenant.environment === 'test' && sender.privateTestEndpoints;

/** Checking an endpoint's URL asks what the sender may reach. */
export type EndpointPorts = Pick<Ports, 'webhookSender'>;

/**
 * What can be judged from the URL alone; resolved addresses are checked again at every delivery.
 * A live endpoint must also be written as it will be called and name a fully qualified host.
 */
function checkUrl(ports: EndpointPorts, tenant: Tenant, raw: string): string {
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
  if (!mayReachPrivate(ports.webhookSender, tenant)) {
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

export async function createEndpoint(ports: EndpointPorts, tenant: Tenant, input: EndpointInput, now: Date): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = checkUrl(ports, tenant, input.url);
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

/** Read, change, write conditioned on the version read; a concurrent change makes it read again. */
async function changeEndpoint(tenant: Tenant, id: string, change: (endpoint: WebhookEndpoint) => WebhookEndpoint): Promise<WebhookEndpoint> {
  const changing: ContentionPolicy = {
    write: 'webhook_endpoint',
    attempts: 5,
    backoff: MERCHANT_WRITE,
    exhausted: () => stateConflict(`Webhook endpoint '${id}' was changed by another request at the same time; retry the request.`),
  };
  return writeOptimistically(changing, async () => {
    const current = await getEndpoint(tenant, id);
    const next = { ...change(current), version: current.version + 1 };
    return (await saveEndpoint(tenant, next, current.version)) ? next : LOST;
  });
}

export async function updateEndpoint(ports: EndpointPorts, tenant: Tenant, id: string, patch: Partial<EndpointInput>, now: Date): Promise<WebhookEndpoint> {
  const url = patch.url === undefined ? undefined : checkUrl(ports, tenant, patch.url);
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
