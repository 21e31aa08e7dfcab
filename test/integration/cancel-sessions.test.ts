import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, type ApiResponse } from '../support/api.ts';
import {
  activeFlow,
  advance,
  answer,
  authHashFor,
  complete,
  flowBody,
  freshClientIp,
  getSession,
  signingSecret,
  startSession,
} from '../support/cancel-flows.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const sessionItem = (token: string, sk = 'SESSION') =>
  runtime.db.send(
    new GetCommand({
      TableName: runtime.tableName,
      Key: { pk: `CANCELSESSION#${createHash('sha256').update(token).digest('hex')}`, sk },
      ConsistentRead: true,
    }),
  );

async function setUp(body: Record<string, unknown> = flowBody()) {
  const merchant = await newMerchant();
  const tenant: Tenant = { merchantId: merchant.merchantId, environment: 'test' };
  const flowId = await activeFlow(merchant.keys.test_write, body);
  return { ...merchant, tenant, flowId };
}

/** A customer the service knows: created by a failed-payment webhook from a connected processor. */
async function knownCustomer(adminKey: string, customerId: string, subscriptions = 1) {
  const path = await connect(adminKey, 'acme', { webhook_secret: GENERIC_SECRET });
  const events = [];
  for (let i = 0; i < subscriptions; i++) {
    const event = genericFailure({ customerId });
    const response = await postGeneric(path, event);
    if (response.status !== 200) throw new Error(JSON.stringify(response.body));
    events.push({ event, ourCustomerId: response.body.customer_id as string });
  }
  return { customerId: events[0]!.ourCustomerId, subscriptionIds: events.map(({ event }) => event.subscription.id) };
}

const eventTypes = async (tenant: Tenant) => (await tenantItems(tenant, 'EVENT#')).map((event) => event.type as string);

describe('POST /api/cancel-session/start', () => {
  it('issues a v4 UUID token, stores only its SHA-256, and answers the §2.5 session', async () => {
    // Prepare
    const { merchantId, flowId } = await setUp();
    // Act
    const response = await call('POST', '/api/cancel-session/start', {
      body: { merchant_id: merchantId, customer_id: 'cus_ext_1', subscription_id: 'sub_ext_1', environment: 'test' },
    });
    // Assess
    expect(response.status).toBe(201);
    const { token, session } = response.body;
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Object.keys(session).sort()).toEqual(
      ['acceptedOffer', 'cancelFlowId', 'currentStep', 'customerId', 'merchantId', 'responses', 'sessionId', 'startedAt', 'status', 'subscriptionId'].sort(),
    );
    expect(session).toMatchObject({
      cancelFlowId: flowId,
      merchantId,
      customerId: 'cus_ext_1',
      subscriptionId: 'sub_ext_1',
      currentStep: 1,
      status: 'in_progress',
      responses: [],
      acceptedOffer: null,
    });
    expect(session.sessionId).toMatch(/^cfs_/);
    expect(session.startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const { Item } = await sessionItem(token);
    expect(Item).toMatchObject({ session_id: session.sessionId, current_step: 1 });
    expect(JSON.stringify(Item)).not.toContain(token);
    expect(Item!.expires_at).toBeGreaterThanOrEqual(Math.floor(runtime.clock.now().getTime() / 1000) + 3599);
  });

  it.each(['merchant_id', 'customer_id', 'subscription_id'])('answers 400 naming a missing %s', async (field) => {
    const { merchantId } = await setUp();
    const body: Record<string, string> = { merchant_id: merchantId, customer_id: 'c', subscription_id: 's', environment: 'test' };
    delete body[field];
    const response = await call('POST', '/api/cancel-session/start', { body });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: field });
    expect(response.body.error.request_id).toBe(response.headers['X-Request-Id']);
  });

  it('answers 400 for a wrong type or an unknown field, never 422', async () => {
    const { merchantId } = await setUp();
    const wrongType = await call('POST', '/api/cancel-session/start', { body: { merchant_id: merchantId, customer_id: 5, subscription_id: 's' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: 'invalid_request', param: 'customer_id' });
    const unknown = await call('POST', '/api/cancel-session/start', { body: { merchant_id: merchantId, customer_id: 'c', subscription_id: 's', plan: 'x' } });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_request', param: 'plan' });
  });

  it('answers 404 when the merchant has no active flow in that environment, or is unknown', async () => {
    const { merchantId, keys } = await setUp();
    const liveHash = authHashFor(await signingSecret(keys.live_admin), 'c', 's');
    const live = await call('POST', '/api/cancel-session/start', { body: { merchant_id: merchantId, customer_id: 'c', subscription_id: 's', auth_hash: liveHash } });
    expect(live.status).toBe(404);
    expect(live.body.error.code).toBe('resource_not_found');
    const nobody = await call('POST', '/api/cancel-session/start', { body: { merchant_id: 'mer_nobody', customer_id: 'c', subscription_id: 's', environment: 'test' } });
    expect(nobody.status).toBe(404);
  });
});

describe('signed starts (auth_hash)', () => {
  /** A merchant with an active flow in both environments. */
  async function signedSetUp(terms: Parameters<typeof newMerchant>[0] = {}) {
    const merchant = await newMerchant(terms);
    await activeFlow(merchant.keys.test_write);
    const liveWrite = (await call('POST', '/v1/api-keys', { key: merchant.keys.live_admin, body: { name: 'live write', scopes: ['write'] } })).body.data.secret;
    await activeFlow(liveWrite);
    return merchant;
  }

  const start = (merchantId: string, body: Record<string, unknown> = {}, sourceIp = freshClientIp()) =>
    call('POST', '/api/cancel-session/start', { body: { merchant_id: merchantId, customer_id: 'cus_signed', subscription_id: 'sub_signed', ...body }, sourceIp });

  function expectRefusal(response: ApiResponse, status: number, code: string) {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.body.error).toMatchObject({ code, request_id: response.headers['X-Request-Id'] });
    expect(typeof response.body.error.message).toBe('string');
  }

  it('in live mode refuses a start without auth_hash or with a wrong one (401 invalid_signature), and takes the right one', async () => {
    // Prepare
    const { merchantId, keys } = await signedSetUp();
    const secret = await signingSecret(keys.live_admin);
    const right = authHashFor(secret, 'cus_signed', 'sub_signed');
    // Act
    const missing = await start(merchantId);
    const wrong = await start(merchantId, { auth_hash: authHashFor(secret, 'cus_signed', 'sub_other') });
    const otherSecret = await start(merchantId, { auth_hash: authHashFor(await signingSecret(keys.test_admin), 'cus_signed', 'sub_signed') });
    const upperCase = await start(merchantId, { auth_hash: right.toUpperCase() });
    const signed = await start(merchantId, { auth_hash: right });
    // Assess
    for (const refused of [missing, wrong, otherSecret, upperCase]) expectRefusal(refused, 401, 'invalid_signature');
    expect(missing.body.error.message).toContain('auth_hash is required in live mode');
    expect(signed.status).toBe(201);
    expect(signed.body.session).toMatchObject({ customerId: 'cus_signed', subscriptionId: 'sub_signed', status: 'in_progress' });
    expect((await getSession(signed.body.token)).status).toBe(200);
  });

  it('in test mode starts without auth_hash, checks one when sent', async () => {
    const { merchantId, keys } = await signedSetUp();
    const secret = await signingSecret(keys.test_admin);
    const unsigned = await start(merchantId, { environment: 'test' });
    const wrong = await start(merchantId, { environment: 'test', auth_hash: 'f'.repeat(64) });
    const signed = await start(merchantId, { environment: 'test', auth_hash: authHashFor(secret, 'cus_signed', 'sub_signed') });
    expect(unsigned.status).toBe(201);
    expectRefusal(wrong, 401, 'invalid_signature');
    expect(signed.status).toBe(201);
  });

  it('refuses a live start for a merchant that never read its secret, without saying so', async () => {
    const { merchantId } = await newMerchant();
    const refused = await start(merchantId, { auth_hash: authHashFor('cfsec_guessed', 'cus_signed', 'sub_signed') });
    expectRefusal(refused, 401, 'invalid_signature');
    expect(refused.body.error.message).not.toMatch(/no secret|never/i);
  });

  it('keeps one secret per environment, made on first read by admin keys only, the same for racing first reads', async () => {
    // Prepare
    const { keys } = await newMerchant();
    // Act
    const racing = await Promise.all(Array.from({ length: 4 }, () => call('GET', '/v1/cancel-flows/signing-secret', { key: keys.live_admin })));
    const again = await call('GET', '/v1/cancel-flows/signing-secret', { key: keys.live_admin });
    const test = await call('GET', '/v1/cancel-flows/signing-secret', { key: keys.test_admin });
    const notAdmin = await call('GET', '/v1/cancel-flows/signing-secret', { key: keys.test_write });
    const rollNotAdmin = await call('POST', '/v1/cancel-flows/signing-secret/roll', { key: keys.test_write });
    // Assess
    for (const response of racing) expect(response.status).toBe(200);
    const secrets = new Set(racing.map((response) => response.body.data.secret));
    expect(secrets.size).toBe(1);
    expect(again.body.data).toEqual(racing[0]!.body.data);
    expect(again.body.data).toMatchObject({ secret: expect.stringMatching(/^cfsec_[0-9A-Za-z]{32}$/), previous_secret_expires_at: null });
    expect(again.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(test.body.data.secret).not.toBe(again.body.data.secret);
    expectRefusal(notAdmin, 403, 'insufficient_scope');
    expectRefusal(rollNotAdmin, 403, 'insufficient_scope');
  });

  it('rolls the secret: the new one at once, the previous one still accepted for 24 hours, then refused', async () => {
    // Prepare
    const { merchantId, keys } = await signedSetUp();
    const first = await signingSecret(keys.live_admin);
    const signedWith = (secret: string) => start(merchantId, { auth_hash: authHashFor(secret, 'cus_signed', 'sub_signed') });
    // Act
    const rolledAt = runtime.clock.now();
    const rolled = await call('POST', '/v1/cancel-flows/signing-secret/roll', { key: keys.live_admin });
    const second = rolled.body.data.secret as string;
    const inGrace = [await signedWith(first), await signedWith(second)];
    const shown = await call('GET', '/v1/cancel-flows/signing-secret', { key: keys.live_admin });
    advanceClock(24 * 3600 + 1);
    const afterGrace = [await signedWith(first), await signedWith(second)];
    const shownAfter = await call('GET', '/v1/cancel-flows/signing-secret', { key: keys.live_admin });
    // Assess
    expect(rolled.status).toBe(200);
    expect(second).not.toBe(first);
    const graceEnd = Date.parse(rolled.body.data.previous_secret_expires_at);
    expect(graceEnd - rolledAt.getTime()).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(graceEnd - rolledAt.getTime()).toBeLessThan(24 * 3600_000 + 60_000);
    expect(inGrace.map((response) => response.status)).toEqual([201, 201]);
    expect(shown.body.data).toEqual(rolled.body.data);
    expectRefusal(afterGrace[0]!, 401, 'invalid_signature');
    expect(afterGrace[1]!.status).toBe(201);
    expect(shownAfter.body.data).toMatchObject({ secret: second, previous_secret_expires_at: null });
  });

  it('rolls with expire_previous "now" for a leaked secret: every earlier secret is refused at once', async () => {
    // Prepare
    const { merchantId, keys } = await signedSetUp();
    const leaked = await signingSecret(keys.live_admin);
    const inGrace = (await call('POST', '/v1/cancel-flows/signing-secret/roll', { key: keys.live_admin })).body.data.secret as string;
    const signedWith = (secret: string) => start(merchantId, { auth_hash: authHashFor(secret, 'cus_signed', 'sub_signed') });
    // Act
    const invalid = await call('POST', '/v1/cancel-flows/signing-secret/roll', { key: keys.live_admin, body: { expire_previous: 'tomorrow' } });
    const rolled = await call('POST', '/v1/cancel-flows/signing-secret/roll', { key: keys.live_admin, body: { expire_previous: 'now' } });
    // Assess
    expectRefusal(invalid, 422, 'validation_error');
    expect(invalid.body.error.param).toBe('expire_previous');
    expect(rolled.status).toBe(200);
    expect(rolled.body.data.previous_secret_expires_at).toBeNull();
    for (const old of [leaked, inGrace]) expectRefusal(await signedWith(old), 401, 'invalid_signature');
    expect((await signedWith(rolled.body.data.secret)).status).toBe(201);
  });

  it('limits starts to 60 a minute per client address, whatever merchant they name or whether they are signed', async () => {
    // Prepare
    const [a, b] = [await signedSetUp(), await signedSetUp()];
    const address = freshClientIp();
    // Act: unsigned live starts are refused, but count for the address.
    const tries = [];
    for (let i = 0; i < 60; i++) tries.push(await start(i % 2 === 0 ? a.merchantId : b.merchantId, {}, address));
    const signed = await start(a.merchantId, { auth_hash: authHashFor(await signingSecret(a.keys.live_admin), 'cus_signed', 'sub_signed') }, address);
    const elsewhere = await start(a.merchantId, { environment: 'test' });
    // Assess
    expect(new Set(tries.map((response) => response.status))).toEqual(new Set([401]));
    expectRefusal(signed, 429, 'rate_limit_exceeded');
    expect(signed.body.error.retry_after).toBeGreaterThanOrEqual(1);
    expect(signed.body.error.retry_after).toBeLessThanOrEqual(61);
    expect(signed.headers['Retry-After']).toBe(String(signed.body.error.retry_after));
    expect(elsewhere.status).toBe(201);
    // A minute later the address may start again.
    advanceClock(62);
    expect((await start(a.merchantId, { environment: 'test' }, address)).status).toBe(201);
  });

  it("limits a merchant's signed starts to its plan's limit a minute, across addresses; refused signatures do not spend it", async () => {
    // Prepare: the starter plan admits 20 a minute
    const { merchantId, keys } = await signedSetUp({ plan: 'starter' });
    const other = await signedSetUp({ plan: 'starter' });
    const hash = authHashFor(await signingSecret(keys.live_admin), 'cus_signed', 'sub_signed');
    // Act
    const forged = [];
    for (let i = 0; i < 5; i++) forged.push(await start(merchantId, { auth_hash: 'a'.repeat(64) }));
    const admitted = [];
    for (let i = 0; i < 20; i++) admitted.push(await start(merchantId, { auth_hash: hash }));
    const over = await start(merchantId, { auth_hash: hash });
    const testMode = await start(merchantId, { environment: 'test' });
    const otherMerchant = await start(other.merchantId, { environment: 'test' });
    // Assess
    expect(forged.map((response) => response.status)).toEqual(Array(5).fill(401));
    expect(admitted.map((response) => response.status)).toEqual(Array(20).fill(201));
    expectRefusal(over, 429, 'rate_limit_exceeded');
    expect(over.headers['Retry-After']).toBe(String(over.body.error.retry_after));
    // Each environment has its own window, as for API requests; other merchants are not affected.
    expect(testMode.status).toBe(201);
    expect(otherMerchant.status).toBe(201);
    advanceClock(62);
    expect((await start(merchantId, { auth_hash: hash })).status).toBe(201);
  });
});

describe('GET and advance', () => {
  it('reads the session with its current step, configJson a JSON-encoded string', async () => {
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    const response = await getSession(token);
    expect(response.status).toBe(200);
    expect(response.body.session.currentStep).toBe(1);
    expect(response.body.step.stepType).toBe('survey');
    expect(typeof response.body.step.configJson).toBe('string');
    expect(JSON.parse(response.body.step.configJson)).toMatchObject({ question: 'Why are you leaving?' });
  });

  it('appends each response, moves currentStep on, and stores accepted_offer on the session', async () => {
    // Prepare
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    // Act
    const first = await advance(token, answer({ reason: 'too_expensive' }, 'survey'));
    const second = await advance(token, answer({ accepted_offer: { offer_type: 'discount', percent_off: 50 } }));
    // Assess
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      session: { sessionId: expect.stringMatching(/^cfs_/), currentStep: 2, status: 'in_progress', responses: [{ stepType: 'survey', responseJson: '{"reason":"too_expensive"}', acceptedOffer: null }] },
    });
    expect(second.body.session.currentStep).toBe(3);
    expect(second.body.session.responses[1]).toEqual({
      stepType: 'offer',
      responseJson: '{"accepted_offer":{"offer_type":"discount","percent_off":50}}',
      acceptedOffer: { offer_type: 'discount', percent_off: 50 },
    });
    const state = await getSession(token);
    expect(state.body.session.acceptedOffer).toEqual({ offer_type: 'discount', percent_off: 50 });
    expect(state.body.step.stepType).toBe('confirm');
    // Declining later clears the acceptance (the latest answer wins).
    await advance(token, answer({ accepted_offer: null }));
    expect((await getSession(token)).body.session.acceptedOffer).toBeNull();
  });

  it('answers 400 for response_json that is not valid JSON, or not a string, and records nothing', async () => {
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    const refused = [
      { response_json: '{not json' },
      { response_json: { reason: 'x' } },
      { response_json: 'x'.repeat(9000) },
      // 3,000 characters, 9,000 bytes as UTF-8.
      { response_json: JSON.stringify('€'.repeat(3000)) },
      // Text the decoded answer would store broken: its accepted offer is kept as its own value.
      { response_json: '{"accepted_offer":"\\u0000\\ud800"}' },
    ];
    for (const body of refused) {
      const response = await advance(token, body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'response_json' });
    }
    // The edge answers 400 where the merchant API would say 422 (§4.5's statuses), for the body's own text too.
    const withNul = await advance(token, { response_json: '{}', step_type: 'a\u0000b' });
    expect(withNul.status).toBe(400);
    expect(withNul.body.error).toMatchObject({ code: 'invalid_request', param: 'step_type' });
    const wrongStep = await advance(token, { step_type: 'offer' });
    expect(wrongStep.status).toBe(400);
    expect(wrongStep.body.error).toMatchObject({ code: 'invalid_request', param: 'step_type' });
    expect((await getSession(token)).body.session).toMatchObject({ currentStep: 1, responses: [] });
  });

  it('allows one advance past the last step (step becomes null), then refuses with 400', async () => {
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    for (let i = 0; i < 3; i++) expect((await advance(token)).status).toBe(200);
    const finished = await getSession(token);
    expect(finished.body).toMatchObject({ session: { currentStep: 4 }, step: null });
    expect(finished.body.session.responses.map((r: { stepType: string }) => r.stepType)).toEqual(['survey', 'offer', 'confirm']);
    const beyond = await advance(token);
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.code).toBe('invalid_request');
    expect((await complete(token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
  });

  it('never loses a response when advances on one session race', async () => {
    // Prepare: room for every racing advance
    const steps = Array.from({ length: 8 }, () => ({ step_type: 'confirm' }));
    const { merchantId } = await setUp(flowBody({ steps }));
    const { token } = await startSession(merchantId);
    // Act
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => advance(token, answer({ answer: i }))));
    // Assess
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const { session } = (await getSession(token)).body;
    expect(session.currentStep).toBe(7);
    expect(session.responses.map((r: { responseJson: string }) => JSON.parse(r.responseJson).answer).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(responses.map((response) => response.body.session.currentStep))).toEqual(new Set([2, 3, 4, 5, 6, 7]));
  });
});

describe('expiry and tokens', () => {
  it('expires after one hour without activity; every call starts the hour again', async () => {
    // Prepare
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    // Act / Assess: each call inside the hour extends the session past where it would have ended.
    advanceClock(3590);
    expect((await getSession(token)).status).toBe(200);
    advanceClock(3590);
    expect((await advance(token, answer({ reason: 'too_expensive' }))).status).toBe(200);
    advanceClock(3590);
    expect((await getSession(token)).body.session.currentStep).toBe(2);
    // An hour and a second of silence ends it, although DynamoDB has not removed the item yet.
    advanceClock(3601);
    expect((await sessionItem(token)).Item).toBeDefined();
    for (const response of [await getSession(token), await advance(token), await complete(token, { outcome: 'saved', reason: 'x' })]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('resource_not_found');
    }
  });

  it('answers 404 to guessed tokens: random UUIDs, malformed strings, another casing', async () => {
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    const guesses = [...Array.from({ length: 25 }, () => randomUUID()), 'start', 'not-a-token', token.toUpperCase(), `${token}x`];
    for (const guess of guesses) {
      expect((await getSession(guess)).status).toBe(404);
      expect((await advance(guess)).status).toBe(404);
      expect((await complete(guess, { outcome: 'saved', reason: 'x' })).status).toBe(404);
    }
    expect((await getSession(token)).status).toBe(200);
  });
});

describe('POST .../complete', () => {
  it.each([
    [{ reason: 'too_expensive' }, 'outcome'],
    [{ outcome: 'saved' }, 'reason'],
    [{ outcome: 'paused', reason: 'too_expensive' }, 'outcome'],
    [{ outcome: 'saved', reason: '' }, 'reason'],
  ])('answers 400 for %j (param %s) and leaves the session running', async (body, param) => {
    const { merchantId } = await setUp();
    const { token } = await startSession(merchantId);
    const response = await complete(token, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param });
    expect((await getSession(token)).status).toBe(200);
  });

  it('saves: feedback with the full history, CancelFlowSaved and customer.retained, the session deleted and its token used up', async () => {
    // Prepare
    const { merchantId, keys, tenant, flowId } = await setUp();
    const { token, sessionId } = await startSession(merchantId, { customer: 'cus_ext_9', subscription: 'sub_ext_9' });
    await advance(token, answer({ reason: 'too_expensive', sub_reason: 'budget' }, 'survey'));
    await advance(token, answer({ accepted_offer: { offer_type: 'discount' } }, 'offer'));
    // Act
    const response = await complete(token, { outcome: 'saved', reason: 'too_expensive', sub_reason: 'budget', free_text: 'Cheaper please' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ completed: true, outcome: 'saved', session_id: sessionId });
    const [feedback] = await tenantItems(tenant, 'CANCELFEEDBACK#');
    expect(feedback).toMatchObject({
      session_id: sessionId,
      cancel_flow_id: flowId,
      outcome: 'saved',
      reason: 'too_expensive',
      sub_reason: 'budget',
      free_text: 'Cheaper please',
      external_customer_id: 'cus_ext_9',
      external_subscription_id: 'sub_ext_9',
      customer_id: null,
      recorded_via: 'request',
      offer: { offer_type: 'discount', percent_off: 50, duration_months: 3 },
      offer_application: { status: 'manual' },
    });
    expect(feedback!.responses.map((r: { step_type: string }) => r.step_type)).toEqual(['survey', 'offer']);
    expect((await eventTypes(tenant)).sort()).toEqual(['CancelFlowSaved', 'customer.retained']);
    // The shape customer.retained always has (the customer list item; here nobody we know), plus where it came from.
    const retained = (await tenantItems(tenant, 'EVENT#')).find((event) => event.type === 'customer.retained');
    expect(retained!.data).toEqual({
      id: null,
      subscription: { id: null, psp_subscription_id: 'sub_ext_9' },
      source: 'cancel_flow',
      cancel_session_id: sessionId,
      external_customer_id: 'cus_ext_9',
      external_subscription_id: 'sub_ext_9',
      offer: { offer_type: 'discount', headline: 'Half price for 3 months', percent_off: 50, duration_months: 3 },
    });
    expect((await sessionItem(token)).Item).toBeUndefined();
    expect((await sessionItem(token, 'COMPLETED')).Item).toMatchObject({ session_id: sessionId });
    // Completed: advance and complete are 400, get is 404.
    const again = await advance(token);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/already completed/);
    expect((await complete(token, { outcome: 'churned', reason: 'x' })).status).toBe(400);
    expect((await getSession(token)).status).toBe(404);
    const listed = await call('GET', '/v1/cancel-feedback', { key: keys.test_read });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ session_id: sessionId, outcome: 'saved', accepted_offer: { offer_type: 'discount' }, offer_application: expect.objectContaining({ status: 'manual' }) }),
    ]);
  });

  it('lists feedback newest first by completion, whenever each session started', async () => {
    const { merchantId, keys } = await setUp();
    const earlier = await startSession(merchantId, { customer: 'cus_started_first' });
    advanceClock(60);
    const later = await startSession(merchantId, { customer: 'cus_started_second' });
    expect((await complete(later.token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    advanceClock(60);
    expect((await complete(earlier.token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    const listed = await call('GET', '/v1/cancel-feedback', { key: keys.test_read });
    expect(listed.body.data.map((record: { session_id: string }) => record.session_id)).toEqual([earlier.sessionId, later.sessionId]);
  });

  it('churns a known customer: the subscription canceled, the customer churned, customer.subscription_canceled emitted', async () => {
    // Prepare
    const { merchantId, keys, tenant } = await setUp();
    const known = await knownCustomer(keys.test_admin, 'psp_cust_churn');
    const { token, sessionId } = await startSession(merchantId, { customer: 'psp_cust_churn', subscription: known.subscriptionIds[0] });
    await advance(token, answer({ reason: 'missing_features' }, 'survey'));
    // Act
    const response = await complete(token, { outcome: 'churned', reason: 'missing_features', free_text: 'No API' });
    // Assess
    expect(response.status).toBe(200);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ id: known.customerId, status: 'churned' });
    expect(customer!.subscriptions).toEqual([expect.objectContaining({ psp_subscription_id: known.subscriptionIds[0], status: 'canceled' })]);
    const events = await tenantItems(tenant, 'EVENT#');
    const canceled = events.find((event) => event.type === 'customer.subscription_canceled');
    expect(canceled!.data).toMatchObject({ id: known.customerId, status: 'churned', source: 'cancel_flow', cancel_session_id: sessionId });
    expect(events.filter((event) => event.type === 'CancelFlowCompleted')).toHaveLength(1);
    const feedback = await call('GET', '/v1/cancel-feedback', { key: keys.test_read, query: { outcome: 'churned' } });
    expect(feedback.body.data).toEqual([
      expect.objectContaining({ session_id: sessionId, outcome: 'churned', customer_id: known.customerId, free_text: 'No API', offer_application: null }),
    ]);
  });

  it('keeps a customer with another subscription active when one of two is canceled', async () => {
    const { merchantId, keys, tenant } = await setUp();
    const known = await knownCustomer(keys.test_admin, 'psp_cust_two', 2);
    const { token } = await startSession(merchantId, { customer: 'psp_cust_two', subscription: known.subscriptionIds[1] });
    expect((await complete(token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer!.status).toBe('active');
    expect(customer!.subscriptions.map((s: { status: string }) => s.status).sort()).toEqual(['canceled', 'past_due']);
  });

  it('completes for a subscriber the service does not know: feedback, and the merchant told to cancel with their own ids', async () => {
    const { merchantId, tenant } = await setUp();
    const { token, sessionId } = await startSession(merchantId, { customer: 'never_seen', subscription: 'never_seen_sub' });
    expect((await complete(token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    const events = await tenantItems(tenant, 'EVENT#');
    expect(events.map((event) => event.type).sort()).toEqual(['CancelFlowCompleted', 'customer.subscription_canceled']);
    expect(events.find((event) => event.type === 'customer.subscription_canceled')!.data).toEqual({
      id: null,
      subscription: { id: null, psp_subscription_id: 'never_seen_sub' },
      source: 'cancel_flow',
      cancel_session_id: sessionId,
      external_customer_id: 'never_seen',
      external_subscription_id: 'never_seen_sub',
    });
    expect(await tenantItems(tenant, 'CUSTOMER#')).toEqual([]);
    const [feedback] = await tenantItems(tenant, 'CANCELFEEDBACK#');
    expect(feedback).toMatchObject({ customer_id: null, subscription_id: null, outcome: 'churned' });
  });

  it('finds the customer at whichever connected processor knows them, or by our own cus_ id', async () => {
    const { merchantId, keys, tenant } = await setUp();
    // Two more processors connected, neither knowing this subscriber: every one is looked up.
    await connect(keys.test_admin, 'beta', { webhook_secret: GENERIC_SECRET });
    await connect(keys.test_admin, 'zeta', { webhook_secret: GENERIC_SECRET });
    const known = await knownCustomer(keys.test_admin, 'psp_cust_many', 2);
    const byProcessorId = await startSession(merchantId, { customer: 'psp_cust_many', subscription: known.subscriptionIds[0] });
    expect((await complete(byProcessorId.token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    const byOurId = await startSession(merchantId, { customer: known.customerId, subscription: known.subscriptionIds[1] });
    expect((await complete(byOurId.token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ id: known.customerId, status: 'churned' });
    expect(customer!.subscriptions.map((subscription: { status: string }) => subscription.status)).toEqual(['canceled', 'canceled']);
    const feedback = await tenantItems(tenant, 'CANCELFEEDBACK#');
    expect(feedback.map((record) => record.customer_id)).toEqual([known.customerId, known.customerId]);
  });

  it('does not announce a cancellation twice when the processor reported it first', async () => {
    const { merchantId, keys, tenant } = await setUp();
    const known = await knownCustomer(keys.test_admin, 'psp_cust_gone');
    const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const canceled = { ...genericFailure({ customerId: 'psp_cust_gone' }), type: 'subscription.canceled' };
    canceled.subscription.id = known.subscriptionIds[0]!;
    expect((await postGeneric(path, canceled)).body.outcome).toBe('updated');
    const { token } = await startSession(merchantId, { customer: 'psp_cust_gone', subscription: known.subscriptionIds[0] });
    expect((await complete(token, { outcome: 'churned', reason: 'too_expensive' })).status).toBe(200);
    expect((await eventTypes(tenant)).filter((type) => type === 'customer.subscription_canceled')).toHaveLength(1);
    expect(await eventTypes(tenant)).toContain('CancelFlowCompleted');
  });

  it('applies the accepted offer through the processor port after a save (the local adapter records it in the outbox)', async () => {
    // Prepare
    const { merchantId, keys, tenant } = await setUp();
    const known = await knownCustomer(keys.test_admin, 'psp_cust_saved');
    const { token, sessionId } = await startSession(merchantId, { customer: 'psp_cust_saved', subscription: known.subscriptionIds[0] });
    await advance(token, answer({ reason: 'too_expensive' }));
    await advance(token, answer({ accepted_offer: { offer_type: 'discount', percent_off: 100 } }));
    await complete(token, { outcome: 'saved', reason: 'too_expensive' });
    expect((await tenantItems(tenant, 'CANCELFEEDBACK#'))[0]!.offer_application.status).toBe('pending');
    // Act
    await drainEvents();
    // Assess: the flow's own terms are applied, not the client's claim of 100 %.
    const entry = localRuntime().outbox.entries().find((e) => e.channel === 'processor' && e.content.idempotency_key === `cancel-offer-${sessionId}`);
    expect(entry).toMatchObject({ to: `acme:${known.subscriptionIds[0]}`, content: { offer: { offer_type: 'discount', percent_off: 50, duration_months: 3 } } });
    const [feedback] = await tenantItems(tenant, 'CANCELFEEDBACK#');
    expect(feedback!.offer_application).toMatchObject({ status: 'applied', reference: `local_cancel-offer-${sessionId}` });
    // Delivered again (at least once): applied once.
    await drainEvents();
    expect(localRuntime().outbox.entries().filter((e) => e.content.idempotency_key === `cancel-offer-${sessionId}`)).toHaveLength(1);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer!.subscriptions[0].status).not.toBe('canceled');
  });

  it('stores one completion when two completes race; the loser is told the session is completed', async () => {
    const { merchantId, tenant } = await setUp();
    const { token } = await startSession(merchantId);
    const [a, b] = await Promise.all([complete(token, { outcome: 'saved', reason: 'x' }), complete(token, { outcome: 'churned', reason: 'y' })]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect(await tenantItems(tenant, 'CANCELFEEDBACK#')).toHaveLength(1);
    expect((await eventTypes(tenant)).filter((type) => type.startsWith('CancelFlow'))).toHaveLength(1);
  });
});

describe('CORS for the widget', () => {
  const SHOP = 'https://shop.example.com';
  const ELSEWHERE = 'https://evil.example.net';

  it('answers preflight with the allow headers only for an origin some active flow allows', async () => {
    // Prepare
    const { merchantId, keys } = await setUp(flowBody({ allowed_origins: [SHOP] }));
    const { token } = await startSession(merchantId);
    const preflight = (path: string, origin: string) =>
      call('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    // Act
    const allowed = await preflight('/api/cancel-session/start', SHOP);
    const refused = await preflight('/api/cancel-session/start', ELSEWHERE);
    const onToken = await preflight(`/api/cancel-session/${token}/advance`, SHOP);
    // Assess
    expect(allowed.status).toBe(204);
    expect(allowed.headers).toMatchObject({
      'Access-Control-Allow-Origin': SHOP,
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'Content-Type',
      Vary: 'Origin',
    });
    expect(refused.status).toBe(204);
    expect(refused.headers['Access-Control-Allow-Origin']).toBeUndefined();
    expect(onToken.headers['Access-Control-Allow-Origin']).toBe(SHOP);
    // The merchant API answers no preflight.
    expect((await call('OPTIONS', '/v1/cancel-flows', {})).headers['Access-Control-Allow-Origin']).toBeUndefined();
    // Once the flow is archived, its origins are no longer allowed.
    const [flow] = (await call('GET', '/v1/cancel-flows', { key: keys.test_read })).body.data;
    await call('POST', `/v1/cancel-flows/${flow.id}/archive`, { key: keys.test_write });
    expect((await preflight('/api/cancel-session/start', SHOP)).headers['Access-Control-Allow-Origin']).toBeUndefined();
  });

  it("lets a response about a session through only for the session's merchant's origins", async () => {
    // Prepare: two merchants, each allowing its own shop
    const first = await setUp(flowBody({ allowed_origins: [SHOP] }));
    await setUp(flowBody({ allowed_origins: [ELSEWHERE] }));
    // Act
    const own = await call('POST', '/api/cancel-session/start', {
      headers: { origin: SHOP },
      body: { merchant_id: first.merchantId, customer_id: 'c', subscription_id: 's', environment: 'test' },
    });
    const foreign = await call('POST', '/api/cancel-session/start', {
      headers: { origin: ELSEWHERE },
      body: { merchant_id: first.merchantId, customer_id: 'c', subscription_id: 's', environment: 'test' },
    });
    // Assess
    expect(own.headers['Access-Control-Allow-Origin']).toBe(SHOP);
    expect(foreign.status).toBe(201);
    expect(foreign.headers['Access-Control-Allow-Origin']).toBeUndefined();
    expect(foreign.headers.Vary).toBe('Origin');
    expect((await getSession(own.body.token, { origin: SHOP })).headers['Access-Control-Allow-Origin']).toBe(SHOP);
    expect((await getSession(own.body.token, { origin: ELSEWHERE })).headers['Access-Control-Allow-Origin']).toBeUndefined();
    // Errors say nothing about a merchant: readable by any registered origin, so the widget can show them.
    const missing = await getSession(randomUUID(), { origin: ELSEWHERE });
    expect(missing.status).toBe(404);
    expect(missing.headers['Access-Control-Allow-Origin']).toBe(ELSEWHERE);
    expect(missing.body.error).toMatchObject({ code: 'resource_not_found', request_id: expect.any(String) });
  });
});
