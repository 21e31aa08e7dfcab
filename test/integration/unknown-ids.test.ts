import { beforeAll, describe, expect, it } from 'vitest';
import { PATH_ID_MAX_LENGTH } from '../../shared/http/schemas.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { ROUTES, type Route } from '../../shared/routes.ts';
import { call, drainEvents, newMerchant, type ApiResponse } from '../support/api.ts';
import { activeFlow, flowBody, startSession } from '../support/cancel-flows.ts';
import { recordFailure } from '../support/recovery-data.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET } from '../support/webhooks.ts';

/**
 * Every route of the route table that names an object in its path, driven from the table so a new
 * route is covered without a line here: an id that names nothing is 404 resource_not_found in the
 * envelope whatever its shape, after the key and its scope were checked; only text no id could be
 * is 400. A route under a collection this file has no object for fails until one is added below.
 */

/** A processor's name, not an id: PUT /v1/processors/{psp} connects the processor it names. */
const NOT_AN_ID = new Set(['psp']);
/** The processor the merchant's connection is for, where a path holds one beside the connection id. */
const PSP = 'acme';

const parametersOf = (route: Route) => [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
/** The card-update page is for people: an unknown link gets its HTML page, not the envelope (test/e2e/card-update.test.ts). */
const isPage = (route: Route) => route.path.startsWith('/update/');
const idRoutes = ROUTES.filter((route) => !isPage(route) && parametersOf(route).some((name) => !NOT_AN_ID.has(name)));
const label = (route: Route) => `${route.method} ${route.path}`;

/** What a path parameter names: `{id}` by the collection before it (`payments`), any other by its own name. */
function collectionOf(route: Route, parameter: string): string {
  if (parameter !== 'id') return parameter;
  const segments = route.path.split('/');
  return segments[segments.indexOf('{id}') - 1]!;
}

/** Bodies the routes accept, so a well-formed unknown id is judged by its lookup and not by the body. */
function validBodies(customerId: string): Record<string, unknown> {
  return {
    'campaigns/update': { name: 'Renamed' },
    'campaigns/enroll': { customer_id: customerId },
    'cancel-flows/update': { name: 'Renamed' },
    'webhook-endpoints/update': { enabled: false },
    'templates/update': { name: 'Renamed' },
    'templates/preview': {},
    'templates/test-send': { to: '+14155550123' },
    'cancel-sessions/complete': { outcome: 'churned', reason: 'too_expensive' },
  };
}

interface Fixture {
  keys: Awaited<ReturnType<typeof newMerchant>>['keys'];
  tenant: Tenant;
  /** A real object of the merchant's test environment per collection. */
  owned: Record<string, string>;
  bodies: Record<string, unknown>;
}

let merchant: Fixture;
let otherMerchantKey: string;

async function created(response: Promise<ApiResponse>): Promise<string> {
  const { status, body } = await response;
  expect(status, JSON.stringify(body)).toBe(201);
  return body.data.id as string;
}

/** One object of every kind a path names, all in the test environment of one merchant. */
async function merchantWithOneOfEverything(): Promise<Fixture> {
  const { merchantId, keys } = await newMerchant({ rateLimitOverride: 10_000 });
  const key = keys.test_admin;
  const path = await connect(key, PSP, { webhook_secret: GENERIC_SECRET });
  const endpoint = await created(call('POST', '/v1/webhooks', { key, body: { url: 'https://example.com/hooks', events: ['*'] } }));
  const { paymentId, customerId } = await recordFailure({ acme: path, zeta: path });
  // The failure's event fans out to the endpoint as a pending delivery; no attempt runs without runDueJobs.
  await drainEvents();
  const deliveries = await call('GET', `/v1/webhooks/${endpoint}/deliveries`, { key });
  const campaign = await created(
    call('POST', '/v1/campaigns', {
      key,
      body: { name: 'Card problems', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 0 }] },
    }),
  );
  const template = await created(call('POST', '/v1/templates', { key, body: { channel: 'sms', name: 'Short', text: '{{ merchant_name }}: please update your card' } }));
  const flow = await activeFlow(key, flowBody());
  const { token } = await startSession(merchantId);
  const apiKey = await created(call('POST', '/v1/api-keys', { key, body: { name: 'reporting', scopes: ['read'] } }));
  const owned = {
    payments: paymentId,
    customers: customerId,
    campaigns: campaign,
    'cancel-flows': flow,
    'api-keys': apiKey,
    webhooks: endpoint,
    templates: template,
    delivery_id: deliveries.body.data[0].id as string,
    connection_id: path.split('/').at(-1)!,
    token,
  };
  return { keys, tenant: { merchantId, environment: 'test' }, owned, bodies: validBodies(customerId) };
}

/** The route's path with the given values, every other parameter holding the merchant's real object. */
function pathOf(route: Route, values: Record<string, string> = {}): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (NOT_AN_ID.has(name)) return PSP;
    const value = values[name] ?? merchant.owned[collectionOf(route, name)];
    if (value === undefined) throw new Error(`No ${collectionOf(route, name)} object to name in ${label(route)}: add one to merchantWithOneOfEverything`);
    return encodeURIComponent(value);
  });
}

function request(route: Route, values: Record<string, string>, key: string | null = merchant.keys.test_admin) {
  const body = merchant.bodies[route.handler];
  return call(route.method, pathOf(route, values), { ...(route.surface === 'rest' && key !== null ? { key } : {}), ...(body === undefined ? {} : { body }) });
}

/**
 * Ids that cannot be the merchant's object of this collection: made up in the shapes clients send,
 * and a real id of another kind (the shapes at large: test/unit/path-ids.test.ts).
 */
function unknownIds(collection: string, routeIndex: number): string[] {
  const real = merchant.owned[collection]!;
  const prefix = real.includes('_') ? real.slice(0, real.indexOf('_')) : 'tok';
  const otherKinds = Object.entries(merchant.owned).filter(([name]) => name !== collection);
  return [`${prefix}_doesnotexist`, `${prefix}_${'0'.repeat(26)}`, 'foo', 'ünï cödé/x', 'x'.repeat(PATH_ID_MAX_LENGTH), otherKinds[routeIndex % otherKinds.length]![1]];
}

function expectNotFound(response: ApiResponse, context: string): void {
  expect(response.status, `${context}: ${JSON.stringify(response.body)}`).toBe(404);
  expect(response.body).toEqual({ error: { code: 'resource_not_found', message: expect.stringMatching(/^No such |not found|expired/i), request_id: expect.any(String) } });
}

beforeAll(async () => {
  merchant = await merchantWithOneOfEverything();
  otherMerchantKey = (await newMerchant({ rateLimitOverride: 10_000 })).keys.test_admin;
});

describe('unknown ids in paths', () => {
  it('covers every route that names an object, each with an object to name', () => {
    expect(idRoutes.length).toBeGreaterThanOrEqual(32);
    for (const route of idRoutes) expect(() => pathOf(route)).not.toThrow();
  });

  it('answer 404 resource_not_found in the envelope whatever their shape, on every route', async () => {
    for (const [index, route] of idRoutes.entries()) {
      for (const parameter of parametersOf(route).filter((name) => !NOT_AN_ID.has(name))) {
        const ids = unknownIds(collectionOf(route, parameter), index);
        const responses = await Promise.all(ids.map((id) => request(route, { [parameter]: id })));
        responses.forEach((response, index) => expectNotFound(response, `${label(route)} with ${parameter}=${ids[index]}`));
      }
    }
  });

  it("answer 404 for another merchant's objects and 401 invalid_api_key for the other environment's (§5 rule 1), changing nothing", async () => {
    const before = await tenantItems(merchant.tenant, '');
    for (const route of idRoutes.filter((candidate) => candidate.surface === 'rest')) {
      expectNotFound(await request(route, {}, otherMerchantKey), `${label(route)} with another merchant's key`);
      const crossed = await request(route, {}, merchant.keys.live_admin);
      expect(crossed.status, `${label(route)} with the live key: ${JSON.stringify(crossed.body)}`).toBe(401);
      expect(crossed.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('exists in test mode, but a live mode key was used') });
    }
    expect(await tenantItems(merchant.tenant, '')).toEqual(before);
  });

  it('are judged after the key and its scope: 401 without a key, 403 without the scope', async () => {
    for (const route of idRoutes.filter((candidate) => candidate.surface === 'rest')) {
      const parameter = parametersOf(route).find((name) => !NOT_AN_ID.has(name))!;
      const anonymous = await request(route, { [parameter]: 'foo' }, null);
      expect(anonymous.status, label(route)).toBe(401);
      expect(anonymous.body.error.code).toBe('invalid_api_key');
      const publishable = await request(route, { [parameter]: 'foo' }, merchant.keys.pub);
      expect(publishable.status, label(route)).toBe(403);
      expect(publishable.body.error.code).toBe('insufficient_scope');
    }
  });

  it('are 400 invalid_request only as text no id could be: over the length bound or with control characters', async () => {
    for (const route of idRoutes) {
      for (const parameter of parametersOf(route).filter((name) => !NOT_AN_ID.has(name))) {
        const [tooLong, control] = await Promise.all([
          request(route, { [parameter]: 'x'.repeat(PATH_ID_MAX_LENGTH + 1) }),
          request(route, { [parameter]: 'pay_\n' }),
        ]);
        expect(tooLong.status, `${label(route)}: ${JSON.stringify(tooLong.body)}`).toBe(400);
        expect(tooLong.body.error).toMatchObject({ code: 'invalid_request', param: parameter, message: `Invalid ${parameter}: must be at most ${PATH_ID_MAX_LENGTH} characters` });
        expect(control.status, label(route)).toBe(400);
        expect(control.body.error).toMatchObject({ code: 'invalid_request', param: parameter, message: `Invalid ${parameter}: must not contain control characters` });
      }
    }
  });
});
