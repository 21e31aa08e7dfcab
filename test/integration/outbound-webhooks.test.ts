import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs, type ApiResponse } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import { scheduler } from '../../shared/composition/scheduler.ts';

/**
 * Verifies `Recovery-Signature: t=<unix>,v1=<hex>[,v1=<hex>]` exactly as docs/webhooks-outbound.md
 * tells merchants to, written independently of the implementation.
 */
function verifies(header: string | undefined, body: string, secret: string): boolean {
  if (!header) return false;
  const parts = header.split(',').map((part) => part.split('='));
  const t = parts.find(([key]) => key === 't')?.[1];
  if (!t || Math.abs(nowSeconds() - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([key, value]) => key === 'v1' && value!.length === 64 && timingSafeEqual(Buffer.from(value!, 'hex'), expected));
}

type Behaviour = 'ok' | 'error' | 'hang';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; created: string; livemode: boolean; data: Record<string, any> };
}

/** A merchant's receiver on 127.0.0.1: answers per path from a script (then 200), records everything. */
class Receiver {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, Behaviour[]>();
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      this.received.push({ path, headers: request.headers, body, event: JSON.parse(body) });
      const behaviour = this.scripts.get(path)?.shift() ?? 'ok';
      if (behaviour === 'hang') return; // never answers: the sender's 10 s deadline must end it
      response.writeHead(behaviour === 'ok' ? 200 : 500, { 'content-type': 'text/plain' });
      response.end(behaviour === 'ok' ? 'thanks' : 'boom');
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  url(path: string, script: Behaviour[] = []): string {
    this.scripts.set(path, [...script]);
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((entry) => entry.path === path);
  }
}

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

let pathCount = 0;
const freshPath = () => `/hooks/${++pathCount}-${Math.random().toString(36).slice(2)}`;

async function setUp() {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const webhookPath = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  return { ...merchant, tenant, webhookPath };
}

async function createEndpoint(key: string, body: Record<string, unknown>) {
  const response = await call('POST', '/v1/webhooks', { key, body });
  expect(response.status).toBe(201);
  return response.body.data as { id: string; secret: string; url: string };
}

/** A hard decline: no automatic retries to muddle the clock-driven tests. */
async function failPayment(webhookPath: string) {
  const response = await postGeneric(webhookPath, genericFailure({ code: 'expired_card' }));
  expect(response.status).toBe(200);
  return response.body.payment_id as string;
}

async function deliveries(key: string, endpointId: string, query: Record<string, string> = {}) {
  const response = await call('GET', `/v1/webhooks/${endpointId}/deliveries`, { key, query });
  expect(response.status).toBe(200);
  return response.body;
}

describe('outbound webhook delivery (real HTTP receiver)', () => {
  it('signs each delivery, retries a 500 after the backoff, and the receiver sees the event once after de-duplication', async () => {
    // Prepare
    const { keys, webhookPath } = await setUp();
    const path = freshPath();
    const endpoint = await createEndpoint(keys.test_admin, { url: receiver.url(path, ['error']), events: ['payment.failed'] });
    const paymentId = await failPayment(webhookPath);
    // Act: the stream hands the event to the fan-out, the first attempt runs now and gets a 500
    await drainEvents();
    await runDueJobs();
    // Assess
    expect(receiver.at(path)).toHaveLength(1);
    const first = receiver.at(path)[0]!;
    expect(verifies(first.headers['recovery-signature'] as string, first.body, endpoint.secret)).toBe(true);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['user-agent']).toMatch(/^PaymentRecovery-Webhooks\//);
    expect(first.event).toEqual({ id: expect.stringMatching(/^evt_/), type: 'payment.failed', created: expect.any(String), livemode: false, data: expect.objectContaining({ id: paymentId, status: 'communication_pending' }) });
    expect(first.headers['recovery-event-id']).toBe(first.event.id);
    let listed = await deliveries(keys.test_admin, endpoint.id);
    expect(listed.data).toEqual([
      expect.objectContaining({ event_id: first.event.id, event_type: 'payment.failed', status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500', next_attempt_at: expect.any(String) }),
    ]);

    // Act: nothing before the backoff; the retry after it
    await runDueJobs();
    expect(receiver.at(path)).toHaveLength(1);
    advanceClock(70);
    await runDueJobs();
    // Assess
    expect(receiver.at(path)).toHaveLength(2);
    const second = receiver.at(path)[1]!;
    expect(verifies(second.headers['recovery-signature'] as string, second.body, endpoint.secret)).toBe(true);
    expect(second.event.id).toBe(first.event.id);
    listed = await deliveries(keys.test_admin, endpoint.id);
    expect(listed.data[0]).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(new Set(receiver.at(path).map((entry) => entry.event.id)).size).toBe(1);
    const outbox = localRuntime().outbox.entries().filter((entry) => entry.channel === 'webhook' && entry.to.endsWith(path));
    expect(outbox.map((entry) => entry.content.status_code)).toEqual([500, 200]);
  });

  it('times out a receiver that does not answer within 10 s, then retries', { timeout: 40_000 }, async () => {
    const { keys, webhookPath } = await setUp();
    const path = freshPath();
    const endpoint = await createEndpoint(keys.test_admin, { url: receiver.url(path, ['hang']), events: ['*'] });
    await failPayment(webhookPath);
    await drainEvents(); // customer.created and payment.failed
    const started = Date.now();
    await runDueJobs();
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
    let listed = await deliveries(keys.test_admin, endpoint.id, { status: 'pending' });
    expect(listed.data).toEqual([expect.objectContaining({ attempts: 1, last_status_code: null, last_error: expect.stringMatching(/Timed out after 10 s/) })]);
    advanceClock(70);
    await runDueJobs();
    listed = await deliveries(keys.test_admin, endpoint.id);
    expect(listed.pagination.total).toBe(2);
    expect(listed.data.every((delivery: any) => delivery.status === 'succeeded')).toBe(true);
    // The hung request reached the receiver too: at-least-once, so the receiver de-duplicates by event id.
    const unique = new Map(receiver.at(path).map((entry) => [entry.event.id, entry.event.type]));
    expect([...unique.values()].sort()).toEqual(['customer.created', 'payment.failed']);
    expect(receiver.at(path).length).toBe(3);
  });

  it('creates one delivery per endpoint and event however often the event log delivers the event', async () => {
    const { keys, tenant, webhookPath } = await setUp();
    const pathA = freshPath();
    const pathB = freshPath();
    const a = await createEndpoint(keys.test_admin, { url: receiver.url(pathA), events: ['payment.failed'] });
    const b = await createEndpoint(keys.test_admin, { url: receiver.url(pathB), events: ['*'] });
    await createEndpoint(keys.test_admin, { url: receiver.url(freshPath()), events: ['payment.failed'], enabled: false });
    await failPayment(webhookPath);
    // Act: the stream delivers every event twice (before and after the first attempts ran)
    const events = await tenantItems(tenant, 'EVENT#');
    localRuntime().events.capture(events);
    await drainEvents();
    await runDueJobs();
    localRuntime().events.capture(events);
    await drainEvents();
    await runDueJobs();
    // Assess
    expect(receiver.at(pathA).map((entry) => entry.event.type)).toEqual(['payment.failed']);
    expect(receiver.at(pathB).map((entry) => entry.event.type).sort()).toEqual(['customer.created', 'payment.failed']);
    expect((await deliveries(keys.test_admin, a.id)).pagination.total).toBe(1);
    expect((await deliveries(keys.test_admin, b.id)).pagination.total).toBe(2);
  });

  it('abandons a queued delivery whose endpoint was disabled or deleted before it ran, and sends a job fired twice once', async () => {
    const { keys, tenant, webhookPath } = await setUp();
    const [disabledPath, deletedPath, livePath] = [freshPath(), freshPath(), freshPath()];
    const disabled = await createEndpoint(keys.test_admin, { url: receiver.url(disabledPath), events: ['payment.failed'] });
    const deleted = await createEndpoint(keys.test_admin, { url: receiver.url(deletedPath), events: ['payment.failed'] });
    const live = await createEndpoint(keys.test_admin, { url: receiver.url(livePath), events: ['payment.failed'] });
    await failPayment(webhookPath);
    await drainEvents();
    const due = (await localRuntime().scheduler.due(new Date(runtime.clock.now().getTime() + 3600_000))).filter((job) => job.kind === 'webhook-delivery');
    // Act: the merchant turns one endpoint off and removes another while their first attempts wait.
    expect((await call('PUT', `/v1/webhooks/${disabled.id}`, { key: keys.test_admin, body: { enabled: false } })).status).toBe(200);
    expect((await call('DELETE', `/v1/webhooks/${deleted.id}`, { key: keys.test_admin })).status).toBe(200);
    await runDueJobs();
    const { runDeliveryAttempt } = await import('../../shared/domain/outbound-webhooks/delivery.ts');
    const liveJob = due.find((job) => job.payload.endpoint_id === live.id)!;
    const again = await runDeliveryAttempt(
      { scheduler, webhookSender: { privateTestEndpoints: true, send: () => Promise.reject(new Error('a stale job must not send')) } },
      tenant,
      liveJob.payload as { endpoint_id: string; event_id: string; attempt: number },
      () => runtime.clock.now(),
    );
    // Assess
    expect(again).toEqual({ outcome: 'stale' });
    expect(receiver.at(disabledPath)).toEqual([]);
    expect(receiver.at(deletedPath)).toEqual([]);
    expect(receiver.at(livePath)).toHaveLength(1);
    expect((await deliveries(keys.test_admin, disabled.id)).data).toEqual([
      expect.objectContaining({ status: 'failed', last_error: 'The endpoint is disabled', attempts: 0 }),
    ]);
    const orphaned = (await tenantItems(tenant, '')).filter((item) => item.entity === 'webhook_delivery' && item.endpoint_id === deleted.id);
    expect(orphaned).toEqual([expect.objectContaining({ status: 'failed', last_error: 'The endpoint was deleted' })]);
  });

  it('marks a delivery failed after ~3 days of attempts, disables the endpoint, and replays once re-enabled', async () => {
    const { keys, webhookPath } = await setUp();
    const path = freshPath();
    const endpoint = await createEndpoint(keys.test_admin, { url: receiver.url(path, new Array(13).fill('error')), events: ['payment.failed'] });
    await failPayment(webhookPath);
    await drainEvents();
    const start = runtime.clock.now().getTime();
    for (let round = 0; round < 20 && receiver.at(path).length < 13; round++) {
      await runDueJobs();
      advanceClock(11 * 3600);
    }
    await runDueJobs();
    const attempts = receiver.at(path);
    expect(attempts).toHaveLength(13);
    const [delivery] = (await deliveries(keys.test_admin, endpoint.id)).data;
    expect(delivery).toMatchObject({ status: 'failed', attempts: 13, last_status_code: 500, next_attempt_at: null });
    expect(runtime.clock.now().getTime() - start).toBeGreaterThan(3 * 86_400_000);
    const listed = await call('GET', '/v1/webhooks', { key: keys.test_admin });
    expect(listed.body.data[0]).toMatchObject({ id: endpoint.id, enabled: false, disabled_reason: 'failing' });

    // A disabled endpoint gets no new deliveries, and replay waits for it to be enabled again.
    await failPayment(webhookPath);
    await drainEvents();
    expect((await deliveries(keys.test_admin, endpoint.id)).pagination.total).toBe(1);
    const refused = await call('POST', `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay`, { key: keys.test_admin });
    expect(refused.status).toBe(409);
    const enabled = await call('PUT', `/v1/webhooks/${endpoint.id}`, { key: keys.test_admin, body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    const replay = await call('POST', `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay`, { key: keys.test_admin });
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({ id: delivery.id, status: 'pending' });
    await runDueJobs();
    expect(receiver.at(path)).toHaveLength(14);
    expect((await deliveries(keys.test_admin, endpoint.id)).data[0]).toMatchObject({ status: 'succeeded', attempts: 14, last_status_code: 200 });
  });
});

/** The endpoint item as stored: its `last_success_at` is internal, not in the API's representation. */
async function storedEndpoint(tenant: Tenant, endpointId: string) {
  const [item] = (await tenantItems(tenant, 'WEBHOOK#')).filter((stored) => stored.id === endpointId);
  return item!;
}

/** Until `path` has had `count` attempts: the due jobs run, the clock moves on 11 hours (past every backoff). */
async function attemptUntil(path: string, count: number) {
  for (let round = 0; round < 20 && receiver.at(path).length < count; round++) {
    await runDueJobs();
    if (receiver.at(path).length < count) advanceClock(11 * 3600);
  }
}

describe("an endpoint's last success, stamped at most once an hour", () => {
  it('writes the stamp for the first success of the hour only, and again once the hour has passed', async () => {
    // Prepare: an endpoint for failures, which succeeds every time.
    const { keys, tenant, webhookPath } = await setUp();
    const path = freshPath();
    const endpoint = await createEndpoint(keys.test_admin, { url: receiver.url(path), events: ['payment.failed'] });
    const stamps: string[] = [];
    runtime.db.middlewareStack.add(
      (next: (args: any) => Promise<any>) => async (args: any) => {
        if (String(args.input?.Key?.sk).startsWith('WEBHOOK#') && String(args.input?.UpdateExpression).includes('last_success_at')) stamps.push(args.input.Key.sk);
        return next(args);
      },
      { step: 'initialize', name: 'successStamps' },
    );
    try {
      // Act: three deliveries in the same minute, then one an hour and a minute later.
      for (let failure = 0; failure < 3; failure++) await failPayment(webhookPath);
      await drainEvents();
      await runDueJobs();
      const first = (await storedEndpoint(tenant, endpoint.id)).last_success_at;
      advanceClock(3660);
      await failPayment(webhookPath);
      await drainEvents();
      await runDueJobs();

      // Assess: four deliveries succeeded; two stamps, the second an hour after the first.
      expect(receiver.at(path)).toHaveLength(4);
      expect((await deliveries(keys.test_admin, endpoint.id)).data.map((delivery: any) => delivery.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      expect(stamps).toHaveLength(2);
      const second = (await storedEndpoint(tenant, endpoint.id)).last_success_at;
      expect(Date.parse(second) - Date.parse(first)).toBeGreaterThanOrEqual(3660_000);
    } finally {
      runtime.db.middlewareStack.remove('successStamps');
    }
  });

  it('keeps an endpoint enabled when a delivery fails for good within the hour after a success, and disables it for one begun later', async () => {
    // Prepare: an endpoint that answers the first delivery and fails every attempt after it.
    const { keys, tenant, webhookPath } = await setUp();
    const path = freshPath();
    const endpoint = await createEndpoint(keys.test_admin, { url: receiver.url(path, ['ok', ...new Array(26).fill('error')]), events: ['payment.failed'] });
    await failPayment(webhookPath);
    await drainEvents();
    await runDueJobs();
    expect(receiver.at(path)).toHaveLength(1);
    const succeededAt = (await storedEndpoint(tenant, endpoint.id)).last_success_at;

    // Act: a failure half an hour later, whose delivery fails all 13 attempts (about 3 days).
    advanceClock(1800);
    await failPayment(webhookPath);
    await drainEvents();
    await attemptUntil(path, 14);

    // Assess: that delivery failed for good, but a success the hourly stamp may stand for came after its first try was due: still enabled.
    expect(receiver.at(path)).toHaveLength(14);
    expect((await storedEndpoint(tenant, endpoint.id))).toMatchObject({ enabled: true, last_success_at: succeededAt });

    // Act: another failure, its delivery begun days after the last success, fails all its attempts too.
    await failPayment(webhookPath);
    await drainEvents();
    await attemptUntil(path, 27);

    // Assess: now nothing got through since well before its first try: disabled.
    expect(receiver.at(path)).toHaveLength(27);
    expect(await storedEndpoint(tenant, endpoint.id)).toMatchObject({ enabled: false, disabled_reason: 'failing' });
  });
});

describe('webhook endpoints API', () => {
  it('shows the secret only at creation and rotation; after rotation deliveries carry both signatures for 24 h', async () => {
    const { keys, webhookPath } = await setUp();
    const path = freshPath();
    const endpoint = await createEndpoint(keys.test_admin, { url: receiver.url(path), events: ['payment.failed'], description: 'orders' });
    expect(endpoint.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const listed = await call('GET', '/v1/webhooks', { key: keys.test_admin });
    expect(listed.body.data[0]).toMatchObject({ id: endpoint.id, object: 'webhook_endpoint', description: 'orders', enabled: true, livemode: false });
    expect(JSON.stringify(listed.body)).not.toContain(endpoint.secret);
    const rotated = await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { key: keys.test_admin });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(endpoint.secret);
    await failPayment(webhookPath);
    await drainEvents();
    await runDueJobs();
    const [received] = receiver.at(path);
    const header = received!.headers['recovery-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifies(header, received!.body, newSecret)).toBe(true);
    expect(verifies(header, received!.body, endpoint.secret)).toBe(true);
    expect(verifies(header, received!.body, 'whsec_wrong')).toBe(false);
  });

  it('validates the body: missing url 400, unknown event type 422, "*" alone, https only in live mode', async () => {
    const { keys } = await setUp();
    const missing = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { events: ['*'] } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    const unknownType = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://example.com/h', events: ['payment.exploded'] } });
    expect(unknownType.status).toBe(422);
    expect(unknownType.body.error.param).toBe('events.0');
    const internal = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://example.com/h', events: ['CancelFlowSaved'] } });
    expect(internal.status).toBe(422);
    const star = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://example.com/h', events: ['*', 'payment.failed'] } });
    expect(star.body.error).toMatchObject({ code: 'validation_error', param: 'events' });
    const notUrl = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'not a url', events: ['*'] } });
    expect(notUrl.body.error).toMatchObject({ code: 'validation_error', param: 'url' });
    const unknownField = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://example.com/h', events: ['*'], secret: 'x' } });
    expect(unknownField.body.error).toMatchObject({ code: 'invalid_request', param: 'secret' });

    for (const url of ['http://example.com/h', 'https://127.0.0.1/h', 'https://[::ffff:10.0.0.1]/h', 'https://localhost/h', 'https://169.254.169.254/latest']) {
      const live = await call('POST', '/v1/webhooks', { key: keys.live_admin, body: { url, events: ['*'] } });
      expect(live.status, url).toBe(422);
      expect(live.body.error.param).toBe('url');
    }
    const liveOk = await call('POST', '/v1/webhooks', { key: keys.live_admin, body: { url: 'https://hooks.example.com/recovery', events: ['payment.recovered'] } });
    expect(liveOk.status).toBe(201);
    expect(liveOk.body.data.livemode).toBe(true);
    // Test mode on the local runtime may use http and this machine.
    const testHttp = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'http://127.0.0.1:9/h', events: ['*'] } });
    expect(testHttp.status).toBe(201);
  });

  it('refuses a live URL that changes when normalised or names a single-label host, on create and update, naming url', async () => {
    // Prepare
    const { keys } = await setUp();
    const created = await call('POST', '/v1/webhooks', { key: keys.live_admin, body: { url: 'https://hooks.example.com', events: ['*'] } });
    // Act
    const refused: { url: string; answer: ApiResponse }[] = [];
    for (const url of ['https:///hooks.example.com/h', 'https://Hooks.Example.com/h', 'https://hooks.example.com:443/h', 'https://intranet/h', 'https://metadata./h']) {
      refused.push({ url, answer: await call('POST', '/v1/webhooks', { key: keys.live_admin, body: { url, events: ['*'] } }) });
      refused.push({ url, answer: await call('PUT', `/v1/webhooks/${created.body.data.id}`, { key: keys.live_admin, body: { url } }) });
    }
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.url).toBe('https://hooks.example.com/');
    for (const { url, answer } of refused) {
      expect(answer.status, url).toBe(422);
      expect(answer.body.error, url).toMatchObject({ code: 'validation_error', param: 'url' });
    }
    // The message shows the form to send instead.
    expect(refused[0]!.answer.body.error.message).toContain('https://hooks.example.com/h');
    const stored = await call('GET', `/v1/webhooks/${created.body.data.id}`, { key: keys.live_admin });
    expect(stored.body.data.url).toBe('https://hooks.example.com/');
    const listed = await call('GET', '/v1/webhooks', { key: keys.live_admin });
    expect(listed.body.data.map((endpoint: { url: string }) => endpoint.url)).toEqual(['https://hooks.example.com/']);
    // Test mode keeps its looser rules (this machine, http) for local work.
    const testMode = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://intranet/h', events: ['*'] } });
    expect(testMode.status).toBe(201);
  });

  it('needs the webhooks scope, pages the list, updates, deletes', async () => {
    const { keys } = await setUp();
    const forbidden = await call('GET', '/v1/webhooks', { key: keys.test_read });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('insufficient_scope');
    const issued = await call('POST', '/v1/api-keys', { key: keys.test_admin, body: { name: 'hooks', scopes: ['webhooks'] } });
    const hooksKey = issued.body.data.secret as string;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createEndpoint(hooksKey, { url: `https://example.com/${i}`, events: ['*'] })).id);
    const page1 = await call('GET', '/v1/webhooks', { key: hooksKey, query: { per_page: '2' } });
    expect(page1.body.pagination).toEqual({ total: 3, page: 1, per_page: 2, total_pages: 2 });
    expect(page1.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const page2 = await call('GET', '/v1/webhooks', { key: hooksKey, query: { per_page: '2', page: '2' } });
    expect(page2.body.data.map((e: any) => e.id)).toEqual([ids[0]]);

    const updated = await call('PUT', `/v1/webhooks/${ids[0]}`, { key: hooksKey, body: { events: ['payment.recovered'], enabled: false } });
    expect(updated.body.data).toMatchObject({ events: ['payment.recovered'], enabled: false, disabled_reason: 'merchant', url: 'https://example.com/0' });
    const fetched = await call('GET', `/v1/webhooks/${ids[0]}`, { key: hooksKey });
    expect(fetched.body.data).toEqual(updated.body.data);
    expect(fetched.body.data).not.toHaveProperty('secret');
    expect((await call('GET', `/v1/webhooks/${ids[0]}`, { key: keys.test_read })).status).toBe(403);
    const empty = await call('PUT', `/v1/webhooks/${ids[0]}`, { key: hooksKey, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe('Provide at least one field to update: url, events, description or enabled.');
    const deleted = await call('DELETE', `/v1/webhooks/${ids[0]}`, { key: hooksKey });
    expect(deleted.body.data).toEqual({ id: ids[0], deleted: true });
    expect((await call('DELETE', `/v1/webhooks/${ids[0]}`, { key: hooksKey })).status).toBe(404);
    expect((await call('GET', `/v1/webhooks/${ids[0]}`, { key: hooksKey })).status).toBe(404);
    expect((await call('GET', `/v1/webhooks/${ids[0]}/deliveries`, { key: hooksKey })).status).toBe(404);
    expect((await call('GET', '/v1/webhooks/nope/deliveries', { key: hooksKey })).body.error).toMatchObject({ code: 'resource_not_found' });
  });

  it("answers 401 invalid_api_key for the other environment's endpoint and leaves it as it was (§5 rule 1)", async () => {
    const { keys } = await setUp();
    const endpoint = await createEndpoint(keys.test_admin, { url: 'https://example.com/test-mode', events: ['*'] });
    const crossed = [
      call('PUT', `/v1/webhooks/${endpoint.id}`, { key: keys.live_admin, body: { enabled: false } }),
      call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { key: keys.live_admin }),
      call('GET', `/v1/webhooks/${endpoint.id}`, { key: keys.live_admin }),
      call('GET', `/v1/webhooks/${endpoint.id}/deliveries`, { key: keys.live_admin }),
      call('POST', `/v1/webhooks/${endpoint.id}/deliveries/whd_01jd3k00000000000000000000/replay`, { key: keys.live_admin }),
      call('DELETE', `/v1/webhooks/${endpoint.id}`, { key: keys.live_admin }),
    ];
    for (const response of await Promise.all(crossed)) {
      expect(response.status, JSON.stringify(response.body)).toBe(401);
      expect(response.body.error.code).toBe('invalid_api_key');
      expect(response.body.error.message).toContain('exists in test mode');
    }
    const [listed] = (await call('GET', '/v1/webhooks', { key: keys.test_admin })).body.data;
    expect(listed).toMatchObject({ id: endpoint.id, enabled: true, url: 'https://example.com/test-mode' });
    // Unknown in both environments: still a 404.
    const unknown = await call('DELETE', '/v1/webhooks/we_01jd3k00000000000000000000', { key: keys.live_admin });
    expect(unknown.status).toBe(404);
  });
});
