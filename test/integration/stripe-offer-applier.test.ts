/**
 * The Stripe offer applier against the local fake of the Stripe API: the exact requests (paths, form
 * bodies, keys, idempotency keys) for each kind of offer.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStripeOfferApplier } from '../../shared/adapters/aws/stripe-offer-applier.ts';
import type { OfferConfig } from '../../shared/model/cancel-flow-steps.ts';
import type { OfferRequest } from '../../shared/ports/offer-applier.ts';
import { ok, startFakeStripe, stripeError, type FakeStripe } from '../support/fake-stripe.ts';
import type { ProcessorConnection } from '../../shared/model/processor-connection.ts';

const NOW = new Date('2026-12-01T10:00:00.000Z');
const NOW_SECONDS = NOW.getTime() / 1000;
const API_KEY = 'sk_live_fake_offer';

let stripe: FakeStripe;
let applier: ReturnType<typeof createStripeOfferApplier>;

beforeAll(async () => {
  stripe = await startFakeStripe();
  applier = createStripeOfferApplier({ host: stripe.host, port: stripe.port, protocol: 'http', timeoutMs: 2000, now: () => NOW });
});

afterAll(async () => {
  await stripe.close();
});

beforeEach(() => {
  stripe.reset();
});

function request(offer: OfferConfig, apiKey: string | null = API_KEY): OfferRequest {
  return {
    tenant: { merchantId: 'mer_1', environment: 'live' },
    psp: 'stripe',
    credentials: async () => ({ kind: 'stripe', webhookSecret: 'whsec_x', apiKey }),
    pspCustomerId: 'cus_stripe_1',
    pspSubscriptionId: 'sub_stripe_1',
    offer,
    idempotencyKey: 'cancel-offer-cfs_1',
  };
}

const subscription = (fields: Record<string, unknown> = {}) => ({
  id: 'sub_stripe_1',
  object: 'subscription',
  status: 'active',
  trial_end: null,
  items: { object: 'list', data: [{ id: 'si_1', object: 'subscription_item', price: { id: 'price_pro' } }] },
  ...fields,
});

describe('Stripe offer applier', () => {
  it('creates a repeating coupon for a discount and sets it as the subscription discount, each with its idempotency key', async () => {
    // Prepare
    stripe.on('POST', '/v1/coupons', ok({ id: 'co_retain', object: 'coupon' }));
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    // Act
    const outcome = await applier.apply(request({ offer_type: 'discount', headline: 'Half price for three months', percent_off: 50, duration_months: 3 }));
    // Assess
    expect(outcome).toEqual({ status: 'applied', reference: 'co_retain' });
    const [coupon, update] = stripe.requests;
    expect(coupon!.path).toBe('/v1/coupons');
    expect(Object.fromEntries(coupon!.form)).toMatchObject({
      percent_off: '50',
      duration: 'repeating',
      duration_in_months: '3',
      name: 'Half price for three months',
      'metadata[source]': 'cancel_flow',
    });
    expect(coupon!.headers['idempotency-key']).toBe('cancel-offer-cfs_1-coupon');
    expect(coupon!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(update!.path).toBe('/v1/subscriptions/sub_stripe_1');
    expect(Object.fromEntries(update!.form)).toEqual({ 'discounts[0][coupon]': 'co_retain' });
    expect(update!.headers['idempotency-key']).toBe('cancel-offer-cfs_1-discount');
  });

  it('makes a discount without duration apply once', async () => {
    stripe.on('POST', '/v1/coupons', ok({ id: 'co_once', object: 'coupon' }));
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    await applier.apply(request({ offer_type: 'discount', headline: 'Next month free-ish', percent_off: 80 }));
    expect(stripe.requests[0]!.form.get('duration')).toBe('once');
    expect(stripe.requests[0]!.form.has('duration_in_months')).toBe(false);
  });

  it('pauses collection, voiding invoices, until the months have passed', async () => {
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    const outcome = await applier.apply(request({ offer_type: 'pause', headline: 'Take a break', duration_months: 2 }));
    expect(outcome).toEqual({ status: 'applied', reference: 'sub_stripe_1' });
    expect(Object.fromEntries(stripe.requests[0]!.form)).toEqual({
      'pause_collection[behavior]': 'void',
      'pause_collection[resumes_at]': String(Date.parse('2027-02-01T10:00:00.000Z') / 1000),
    });
    expect(stripe.requests[0]!.headers['idempotency-key']).toBe('cancel-offer-cfs_1-pause');
  });

  it('extends a trial from its current end, or from now, without proration', async () => {
    const trialEnd = NOW_SECONDS + 5 * 86400;
    stripe.on('GET', '/v1/subscriptions/sub_stripe_1', ok(subscription({ status: 'trialing', trial_end: trialEnd })));
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    await applier.apply(request({ offer_type: 'trial_extension', headline: 'Two more weeks', days: 14 }));
    const update = stripe.requests.find((r) => r.method === 'POST')!;
    expect(Object.fromEntries(update.form)).toEqual({ trial_end: String(trialEnd + 14 * 86400), proration_behavior: 'none' });
    stripe.reset();
    stripe.on('GET', '/v1/subscriptions/sub_stripe_1', ok(subscription({ trial_end: NOW_SECONDS - 86400 })));
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    await applier.apply(request({ offer_type: 'trial_extension', headline: 'A week', days: 7 }));
    expect(stripe.requests.find((r) => r.method === 'POST')!.form.get('trial_end')).toBe(String(NOW_SECONDS + 7 * 86400));
  });

  it("moves a single-item subscription to the downgrade price, and leaves several items to the merchant", async () => {
    stripe.on('GET', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', ok(subscription()));
    expect(await applier.apply(request({ offer_type: 'downgrade', headline: 'Basic', plan_id: 'price_basic' }))).toMatchObject({ status: 'applied' });
    expect(Object.fromEntries(stripe.requests.find((r) => r.method === 'POST')!.form)).toEqual({
      'items[0][id]': 'si_1',
      'items[0][price]': 'price_basic',
      proration_behavior: 'create_prorations',
    });
    stripe.reset();
    const twoItems = { object: 'list', data: [{ id: 'si_1', object: 'subscription_item' }, { id: 'si_2', object: 'subscription_item' }] };
    stripe.on('GET', '/v1/subscriptions/sub_stripe_1', ok(subscription({ items: twoItems })));
    const outcome = await applier.apply(request({ offer_type: 'downgrade', headline: 'Basic', plan_id: 'price_basic' }));
    expect(outcome.status).toBe('manual');
    expect(stripe.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('answers manual without an API key, and failed with Stripe\'s message when Stripe refuses', async () => {
    expect(await applier.apply(request({ offer_type: 'pause', headline: 'x', duration_months: 1 }, null))).toMatchObject({ status: 'manual' });
    expect(stripe.requests).toHaveLength(0);
    stripe.on('POST', '/v1/subscriptions/sub_stripe_1', stripeError(400, { type: 'invalid_request_error', message: 'No such subscription: sub_stripe_1' }));
    const outcome = await applier.apply(request({ offer_type: 'pause', headline: 'x', duration_months: 1 }));
    expect(outcome).toEqual({ status: 'failed', reason: 'Stripe invalid_request_error (HTTP 400): No such subscription: sub_stripe_1' });
  });
});
