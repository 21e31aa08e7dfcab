/**
 * The Stripe REST client against the local fake of the Stripe API: the requests are the ones the
 * `stripe` package sends for the same calls (sent by both here and compared), and each kind of
 * answer becomes the error category the package's error classes stood for.
 */
import fc from 'fast-check';
import Stripe from 'stripe';
import * as z from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStripeApi, STRIPE_API_VERSION, StripeApiError, stripePath, type StripeApi } from '../../shared/adapters/aws/stripe-api.ts';
import type { StripeParam, StripeParams } from '../../shared/adapters/aws/stripe-form.ts';
import { ok, startFakeStripe, stripeError, type FakeStripe, type RecordedStripeRequest } from '../support/fake-stripe.ts';

const API_KEY = 'sk_live_fake_client';
const anyObject = z.looseObject({});

let fake: FakeStripe;
let api: StripeApi;
let sdk: Stripe;

beforeAll(async () => {
  fake = await startFakeStripe();
  api = createStripeApi({ apiKey: API_KEY, host: fake.host, port: fake.port, protocol: 'http', timeoutMs: 2_000 });
  sdk = new Stripe(API_KEY, { host: fake.host, port: fake.port, protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const sent = (request: RecordedStripeRequest) => ({
  method: request.method,
  path: request.path,
  query: [...request.query],
  form: [...request.form],
  authorization: request.headers.authorization,
  version: request.headers['stripe-version'],
  idempotencyKey: request.headers['idempotency-key'],
  contentType: request.headers['content-type'],
});

/** The same POST through the package and through the client; what each sent. */
async function bothPost(path: string, params: StripeParams) {
  fake.on('POST', path, ok({ id: 'obj_1', object: 'thing' }));
  await sdk.rawRequest('POST', path, params as Record<string, unknown>, { idempotencyKey: 'key_1' });
  await api.post(path, anyObject, params, 'key_1');
  const [theirs, ours] = fake.requests.map(sent);
  return { theirs, ours };
}

describe('Stripe client requests', () => {
  it.each<[string, string, StripeParams]>([
    ['a repeating coupon', '/v1/coupons', { percent_off: 50, duration: 'repeating', duration_in_months: 3, name: 'Half (off) & more!', metadata: { source: 'cancel_flow', idempotency_key: 'k' } }],
    ['a discount', '/v1/subscriptions/sub_1', { discounts: [{ coupon: 'co_1' }] }],
    ['a pause', '/v1/subscriptions/sub_1', { pause_collection: { behavior: 'void', resumes_at: 1_800_000_000 } }],
    ['a downgrade', '/v1/subscriptions/sub_1', { items: [{ id: 'si_1', price: 'price_basic' }], proration_behavior: 'create_prorations' }],
    ['a confirmation', '/v1/payment_intents/pi_1/confirm', { payment_method: 'pm_1', off_session: true }],
    ['an invoice payment', '/v1/invoices/in_1/pay', {}],
  ])('sends %s as the stripe package does', async (_what, path, params) => {
    // Act
    const { theirs, ours } = await bothPost(path, params);
    // Assess
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({ authorization: `Bearer ${API_KEY}`, version: STRIPE_API_VERSION, idempotencyKey: 'key_1' });
  });

  it('sends a retrieval with expand as the stripe package does, without an idempotency key', async () => {
    // Prepare
    fake.on('GET', '/v1/payment_intents/pi_1', ok({ id: 'pi_1', object: 'payment_intent' }));
    // Act
    await sdk.paymentIntents.retrieve('pi_1', { expand: ['customer'] });
    await api.get(stripePath`/v1/payment_intents/${'pi_1'}`, anyObject, { expand: ['customer'] });
    // Assess
    const [theirs, ours] = fake.requests.map(sent);
    expect({ ...ours, contentType: undefined }).toEqual({ ...theirs, contentType: undefined });
    expect(ours!.idempotencyKey).toBeUndefined();
    expect(ours!.query).toEqual([['expand[0]', 'customer']]);
  });

  it('encodes any nested parameters as the stripe package does (property)', async () => {
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
    const key = fc.stringMatching(/^[a-z_]{1,6}$/);
    const value: fc.Arbitrary<StripeParam> = fc.letrec<{ value: StripeParam }>((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(key, tie('value'), { maxKeys: 3 })),
    })).value;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 4 }), async (params) => {
        fake.reset();
        const { theirs, ours } = await bothPost('/v1/things', params);
        expect(ours!.form).toEqual(theirs!.form);
      }),
      { numRuns: 40 },
    );
  });
});

describe('Stripe client answers', () => {
  async function failure(act: () => Promise<unknown>): Promise<StripeApiError> {
    try {
      await act();
    } catch (error) {
      if (error instanceof StripeApiError) return error;
      throw error;
    }
    throw new Error('expected a StripeApiError');
  }

  it.each([
    [402, { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Declined' }, 'card_error'],
    [400, { type: 'invalid_request_error', message: 'No such invoice' }, 'invalid_request_error'],
    [404, { type: 'invalid_request_error', message: 'No such subscription' }, 'invalid_request_error'],
    [400, { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters' }, 'idempotency_error'],
    [400, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many' }, 'rate_limit_error'],
    [429, { type: 'invalid_request_error', message: 'Too many' }, 'rate_limit_error'],
    [401, { type: 'invalid_request_error', message: 'Invalid API Key provided' }, 'authentication_error'],
    [403, { type: 'invalid_request_error', message: 'The provided key does not have access' }, 'permission_error'],
  ] as const)('classifies HTTP %i %j as %s, by status as the package did', async (status, error, category) => {
    // Prepare
    fake.on('POST', '/v1/things', stripeError(status, error));
    // Act
    const refused = await failure(() => api.post('/v1/things', anyObject, {}, 'key_1'));
    // Assess
    expect(refused).toMatchObject({ category, statusCode: status, message: error.message });
    expect(refused.describe()).toBe(`Stripe ${category} (HTTP ${status}): ${error.message}`);
    expect(fake.requests).toHaveLength(1);
  });

  it('carries the decline code and error code of a card error', async () => {
    fake.on('POST', '/v1/things', stripeError(402, { type: 'card_error', code: 'card_declined', decline_code: 'do_not_honor', message: 'Declined' }));

    expect(await failure(() => api.post('/v1/things', anyObject, {}, 'key_1'))).toMatchObject({ code: 'card_declined', declineCode: 'do_not_honor' });
  });

  it('repeats a 409 with the same key, and follows Stripe-Should-Retry either way', async () => {
    // Prepare
    fake.on('POST', '/v1/conflict', stripeError(409, { type: 'api_error', message: 'Lock timeout' }), ok({ id: 'obj_1' }));
    fake.on('POST', '/v1/final', stripeError(500, { type: 'api_error', message: 'Replayed' }, { 'stripe-should-retry': 'false' }));
    fake.on('POST', '/v1/advised', stripeError(400, { type: 'invalid_request_error', message: 'Try again' }, { 'stripe-should-retry': 'true' }), ok({ id: 'obj_2' }));
    // Act
    const resolved = await api.post('/v1/conflict', anyObject, {}, 'key_conflict');
    const final = await failure(() => api.post('/v1/final', anyObject, {}, 'key_final'));
    const advised = await api.post('/v1/advised', anyObject, {}, 'key_advised');
    // Assess
    expect(resolved).toMatchObject({ id: 'obj_1' });
    expect(final).toMatchObject({ category: 'api_error', statusCode: 500 });
    expect(advised).toMatchObject({ id: 'obj_2' });
    expect(fake.requests.map((r) => `${r.path} ${String(r.headers['idempotency-key'])}`)).toEqual([
      '/v1/conflict key_conflict',
      '/v1/conflict key_conflict',
      '/v1/final key_final',
      '/v1/advised key_advised',
      '/v1/advised key_advised',
    ]);
  });

  it('refuses an answer that is not the object the caller expects, as an api_error', async () => {
    // Prepare
    fake.on('GET', '/v1/invoices/in_1', ok({ id: 'in_1', status: 42 }));
    // Act
    const unexpected = await failure(() => api.get('/v1/invoices/in_1', z.looseObject({ id: z.string(), status: z.string() })));
    // Assess
    expect(unexpected).toMatchObject({ category: 'api_error', message: expect.stringMatching(/^Unexpected answer from the Stripe API: status/) });
  });

  it('gives an api_connection_error, after two repeats, when nothing listens', async () => {
    // Prepare
    const closed = await startFakeStripe();
    await closed.close();
    const unreachable = createStripeApi({ apiKey: API_KEY, host: closed.host, port: closed.port, protocol: 'http', timeoutMs: 1_000 });
    // Act
    const refused = await failure(() => unreachable.post('/v1/things', anyObject, {}, 'key_1'));
    // Assess
    expect(refused).toMatchObject({ category: 'api_connection_error', statusCode: null, message: 'An error occurred with our connection to Stripe. Request was retried 2 times.' });
  });

  it('encodes ids in paths', () => {
    expect(stripePath`/v1/subscriptions/${'sub_1/../x?y'}`).toBe('/v1/subscriptions/sub_1%2F..%2Fx%3Fy');
  });
});
