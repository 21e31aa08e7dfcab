import type { ScopeRequirement } from './model/api-key.ts';

/**
 * Every endpoint the service exposes, once. The CDK stack makes one Lambda per entry and the local
 * server mounts the same handler modules from it, so the two cannot drift; the HTTP middleware reads
 * the entry's scope from here by the request's method and resource path.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How long a route's function may run: API Gateway gives up at 29 s, so running longer would only do work nobody receives. */
export const ROUTE_TIMEOUT_SECONDS = 29;

/** rest: merchant API (API key); edge: cancel-session API and card-update page (their tokens); webhook: processors (signature). */
export type Surface = 'rest' | 'edge' | 'webhook';

/**
 * What a function does with processors' credentials, which are stored sealed under a KMS key: seal
 * them (the connect route), or open them to verify a processor's webhooks or call its API. It gets
 * the key's id and the one KMS action for it; no other function can read a credential.
 */
export type CredentialUse = 'seal' | 'open';

export interface Route {
  method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Handler module under functions/, without extension; it exports `handler`. */
  handler: string;
  surface: Surface;
  /** What the API key must hold (rest routes only). */
  scope?: ScopeRequirement;
  /** Table access the function is granted; rest reads may also write their own rate-limit window. */
  table: 'read' | 'write';
  /** Outside services the function calls, for its configuration and IAM grants. */
  services?: readonly ('scheduler' | 'cancel-completions' | 'messaging')[];
  credentials?: CredentialUse;
  /**
   * A safety action, allowed after the merchant's trial has ended, when every other write answers
   * 403 trial_expired (§5): stopping harm must never wait for an upgrade. `true`, or the one body
   * that makes a request of the route the safety action (an update that only disables).
   */
  afterTrial?: true | { onlyBody: Readonly<Record<string, unknown>> };
}

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/v1/auth/me', handler: 'auth/me', surface: 'rest', scope: 'any', table: 'read' },
  { method: 'GET', path: '/v1/api-keys', handler: 'api-keys/list', surface: 'rest', scope: ['admin'], table: 'read' },
  { method: 'POST', path: '/v1/api-keys', handler: 'api-keys/create', surface: 'rest', scope: ['admin'], table: 'write' },
  { method: 'POST', path: '/v1/api-keys/{id}/rotate', handler: 'api-keys/rotate', surface: 'rest', scope: ['admin'], table: 'write' },
  { method: 'POST', path: '/v1/api-keys/{id}/revoke', handler: 'api-keys/revoke', surface: 'rest', scope: ['admin'], table: 'write', afterTrial: true },
  { method: 'GET', path: '/v1/campaigns', handler: 'campaigns/list', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/campaigns/{id}', handler: 'campaigns/get', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'POST', path: '/v1/campaigns', handler: 'campaigns/create', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'PUT', path: '/v1/campaigns/{id}', handler: 'campaigns/update', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'POST', path: '/v1/campaigns/{id}/activate', handler: 'campaigns/activate', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'POST', path: '/v1/campaigns/{id}/pause', handler: 'campaigns/pause', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'POST', path: '/v1/campaigns/{id}/archive', handler: 'campaigns/archive', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'DELETE', path: '/v1/campaigns/{id}', handler: 'campaigns/delete', surface: 'rest', scope: ['write'], table: 'write' },
  {
    method: 'POST',
    path: '/v1/campaigns/{id}/enrollments',
    handler: 'campaigns/enroll',
    surface: 'rest',
    scope: ['write'],
    table: 'write',
    services: ['scheduler'],
  },
  { method: 'GET', path: '/v1/campaigns/{id}/enrollments', handler: 'campaigns/enrollments', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/templates', handler: 'templates/list', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'POST', path: '/v1/templates', handler: 'templates/create', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'GET', path: '/v1/templates/{id}', handler: 'templates/get', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'PUT', path: '/v1/templates/{id}', handler: 'templates/update', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'DELETE', path: '/v1/templates/{id}', handler: 'templates/delete', surface: 'rest', scope: ['write'], table: 'write' },
  // Reads, but a preview shows a customer's data, as GET /v1/customers/{id} does to read keys.
  { method: 'POST', path: '/v1/templates/{id}/preview', handler: 'templates/preview', surface: 'rest', scope: ['read'], table: 'read' },
  // Sends a message and counts it in its own rate window.
  { method: 'POST', path: '/v1/templates/{id}/test-send', handler: 'templates/test-send', surface: 'rest', scope: ['write'], table: 'write', services: ['messaging'] },
  { method: 'GET', path: '/v1/cancel-flows', handler: 'cancel-flows/list', surface: 'rest', scope: ['read'], table: 'read' },
  // A read that writes: the secret is made on first read.
  { method: 'GET', path: '/v1/cancel-flows/signing-secret', handler: 'cancel-flows/signing-secret', surface: 'rest', scope: ['admin'], table: 'write' },
  {
    method: 'POST',
    path: '/v1/cancel-flows/signing-secret/roll',
    handler: 'cancel-flows/roll-signing-secret',
    surface: 'rest',
    scope: ['admin'],
    table: 'write',
    // A leaked signing secret lets anyone churn the merchant's subscribers: rolling it is how that stops.
    afterTrial: true,
  },
  { method: 'GET', path: '/v1/cancel-flows/{id}', handler: 'cancel-flows/get', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'POST', path: '/v1/cancel-flows', handler: 'cancel-flows/create', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'PUT', path: '/v1/cancel-flows/{id}', handler: 'cancel-flows/update', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'POST', path: '/v1/cancel-flows/{id}/activate', handler: 'cancel-flows/activate', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'POST', path: '/v1/cancel-flows/{id}/archive', handler: 'cancel-flows/archive', surface: 'rest', scope: ['write'], table: 'write' },
  { method: 'GET', path: '/v1/cancel-feedback', handler: 'cancel-feedback/list', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/payments', handler: 'payments/list', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/payments/{id}', handler: 'payments/get', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/payments/{id}/events', handler: 'payments/events', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'POST', path: '/v1/payments/{id}/retry', handler: 'payments/retry', surface: 'rest', scope: ['write'], table: 'write', services: ['scheduler'] },
  { method: 'GET', path: '/v1/customers', handler: 'customers/list', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/customers/{id}', handler: 'customers/get', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/customers/{id}/payments', handler: 'customers/payments', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'GET', path: '/v1/customers/{id}/enrollments', handler: 'customers/enrollments', surface: 'rest', scope: ['read'], table: 'read' },
  { method: 'DELETE', path: '/v1/customers/{id}', handler: 'customers/erase', surface: 'rest', scope: ['admin'], table: 'write', afterTrial: true },
  { method: 'GET', path: '/v1/webhooks', handler: 'webhook-endpoints/list', surface: 'rest', scope: ['webhooks'], table: 'read' },
  { method: 'POST', path: '/v1/webhooks', handler: 'webhook-endpoints/create', surface: 'rest', scope: ['webhooks'], table: 'write' },
  { method: 'GET', path: '/v1/webhooks/{id}', handler: 'webhook-endpoints/get', surface: 'rest', scope: ['webhooks'], table: 'read' },
  {
    method: 'PUT',
    path: '/v1/webhooks/{id}',
    handler: 'webhook-endpoints/update',
    surface: 'rest',
    scope: ['webhooks'],
    table: 'write',
    afterTrial: { onlyBody: { enabled: false } },
  },
  { method: 'DELETE', path: '/v1/webhooks/{id}', handler: 'webhook-endpoints/delete', surface: 'rest', scope: ['webhooks'], table: 'write', afterTrial: true },
  { method: 'POST', path: '/v1/webhooks/{id}/rotate-secret', handler: 'webhook-endpoints/rotate-secret', surface: 'rest', scope: ['webhooks'], table: 'write' },
  { method: 'GET', path: '/v1/webhooks/{id}/deliveries', handler: 'webhook-endpoints/deliveries', surface: 'rest', scope: ['webhooks'], table: 'read' },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/replay',
    handler: 'webhook-endpoints/replay',
    surface: 'rest',
    scope: ['webhooks'],
    table: 'write',
    services: ['scheduler'],
  },
  { method: 'GET', path: '/v1/analytics/recovery', handler: 'analytics/recovery', surface: 'rest', scope: ['read', 'analytics'], table: 'read' },
  { method: 'GET', path: '/v1/analytics/campaigns', handler: 'analytics/campaigns', surface: 'rest', scope: ['read', 'analytics'], table: 'read' },
  { method: 'GET', path: '/v1/settings/branding', handler: 'settings/branding', surface: 'rest', scope: ['admin'], table: 'read' },
  { method: 'PUT', path: '/v1/settings/branding', handler: 'settings/update-branding', surface: 'rest', scope: ['admin'], table: 'write' },
  { method: 'GET', path: '/v1/processors', handler: 'processors/list', surface: 'rest', scope: ['admin'], table: 'read' },
  // Replacing a processor's credentials is how a connection is cut off (there is no disconnect): docs/decisions.md.
  { method: 'PUT', path: '/v1/processors/{psp}', handler: 'processors/connect', surface: 'rest', scope: ['admin'], table: 'write', credentials: 'seal', afterTrial: true },
  { method: 'POST', path: '/api/cancel-session/start', handler: 'cancel-sessions/start', surface: 'edge', table: 'write' },
  { method: 'GET', path: '/api/cancel-session/{token}', handler: 'cancel-sessions/get', surface: 'edge', table: 'write' },
  { method: 'POST', path: '/api/cancel-session/{token}/advance', handler: 'cancel-sessions/advance', surface: 'edge', table: 'write' },
  { method: 'POST', path: '/api/cancel-session/{token}/complete', handler: 'cancel-sessions/complete', surface: 'edge', table: 'write', services: ['cancel-completions'] },
  // The card-update page (HTML): the link's token is the credential; live mode opens the processor's credentials.
  { method: 'GET', path: '/update/{token}', handler: 'card-updates/page', surface: 'edge', table: 'write', credentials: 'open' },
  { method: 'POST', path: '/update/{token}', handler: 'card-updates/submit', surface: 'edge', table: 'write', services: ['scheduler'], credentials: 'open' },
  { method: 'GET', path: '/update/{token}/stripe-return', handler: 'card-updates/stripe-return', surface: 'edge', table: 'write', services: ['scheduler'], credentials: 'open' },
  {
    method: 'POST',
    path: '/webhooks/stripe/{connection_id}',
    handler: 'webhooks/stripe',
    surface: 'webhook',
    table: 'write',
    services: ['scheduler'],
    credentials: 'open',
  },
  {
    method: 'POST',
    path: '/webhooks/braintree/{connection_id}',
    handler: 'webhooks/braintree',
    surface: 'webhook',
    table: 'write',
    services: ['scheduler'],
    credentials: 'open',
  },
  {
    method: 'POST',
    path: '/webhooks/{psp}/{connection_id}',
    handler: 'webhooks/generic',
    surface: 'webhook',
    table: 'write',
    services: ['scheduler'],
    credentials: 'open',
  },
];

/** Answers requests no route matches: 404, or 405 with Allow when the path exists under another method. */
export const FALLBACK_HANDLER = 'platform/not-found';

/**
 * Each route's path as a regular expression, and the routes with literal segments before parameters
 * (`/things/export` before `/things/{id}`), as in API Gateway. Built on the first match: the functions
 * behind API Gateway only look their route up by resource (routeFor) and never need them.
 */
let compiled: { patterns: Map<Route, RegExp>; bySpecificity: Route[] } | undefined;

function compiledRoutes() {
  compiled ??= {
    patterns: new Map(ROUTES.map((route) => [route, pathPattern(route.path)])),
    bySpecificity: [...ROUTES].sort((a, b) => parameterCount(a.path) - parameterCount(b.path)),
  };
  return compiled;
}

function parameterCount(path: string): number {
  return (path.match(/\{/g) ?? []).length;
}

function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '([^/]+)' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

export function routeFor(method: string, resourcePath: string): Route | undefined {
  return ROUTES.find((route) => route.method === method && route.path === resourcePath);
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** Matches a concrete request path (as the local server sees it) to a route and its parameters. */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const { patterns, bySpecificity } = compiledRoutes();
  for (const route of bySpecificity) {
    if (route.method !== method) continue;
    const match = patterns.get(route)!.exec(path);
    if (!match) continue;
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const pathParameters = Object.fromEntries(names.map((name, i) => [name, decodeSegment(match[i + 1]!)]));
    return { route, pathParameters };
  }
  return undefined;
}

/** Methods that serve a concrete path on the given surfaces (all, on the local server), for 405 answers. */
export function methodsForPath(path: string, surfaces?: readonly Surface[]): HttpMethod[] {
  const { patterns } = compiledRoutes();
  const serving = ROUTES.filter((route) => (!surfaces || surfaces.includes(route.surface)) && patterns.get(route)!.test(path));
  // A path two routes match (a processor's own and the generic `{psp}` one) names each method once.
  return [...new Set(serving.map((route) => route.method))];
}
