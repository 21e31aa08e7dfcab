import { describe, expect, it } from 'vitest';
import { addMonths } from '../../shared/adapters/aws/stripe-offer-applier.ts';
import { churnedCustomer, feedbackOf, matchSubscription } from '../../shared/domain/cancel-flows/cancel-feedback.ts';
import { cancelFlowStep } from '../../shared/model/cancel-flow-steps.ts';
import { newCancelFlow, originChanges, refusal, type CancelFlow } from '../../shared/model/cancel-flow.ts';
import { acceptedOfferOf, advanceChange, applyAdvance, completionOf, hashToken, newSession, sessionView, stepView } from '../../shared/domain/cancel-flows/cancel-sessions.ts';
import type { Customer } from '../../shared/model/customer.ts';
import { ServiceError } from '../../shared/model/errors.ts';
import { expiryAfter, isExpired } from '../../shared/model/cancel-session.ts';
import type { CancelSession } from '../../shared/model/cancel-session-schema.ts';
import { isWebOrigin } from '../../shared/model/web-origin.ts';

const NOW = new Date('2026-12-01T10:00:00.250Z');

const flow: CancelFlow = newCancelFlow(
  'cfl_1',
  {
    name: 'Flow',
    steps: [
      { step_type: 'survey', config: { question: 'Why?', reasons: [{ id: 'price', label: 'Price' }] } },
      { step_type: 'offer', config: { offer_type: 'pause', headline: 'Take a break', duration_months: 2 } },
      { step_type: 'confirm', config: {} },
    ],
    allowed_origins: ['https://shop.example.com'],
  },
  NOW,
);

function session(): CancelSession {
  return newSession('cfs_1', { merchantId: 'mer_1', environment: 'test', customerId: 'c_ext', subscriptionId: 's_ext' }, { ...flow, status: 'active' }, NOW);
}

function advanced(start: CancelSession, ...responses: (string | undefined)[]): CancelSession {
  return responses.reduce((current, response) => applyAdvance(current, advanceChange(current, { response_json: response }, NOW), NOW), start);
}

describe('session expiry', () => {
  it('lasts at least a full hour from the last call, in whole epoch seconds', () => {
    const expires = expiryAfter(NOW);
    expect(expires).toBe(Math.ceil(NOW.getTime() / 1000) + 3600);
    expect(isExpired(expires, new Date(NOW.getTime() + 3600_000 - 1))).toBe(false);
    expect(isExpired(expires, new Date(NOW.getTime() + 3600_000 + 1000))).toBe(true);
    expect(isExpired(expires, new Date(expires * 1000))).toBe(true);
  });
});

describe('advance', () => {
  it("records the response under the flow's step type, refuses one naming another step's type, and moves on", () => {
    const first = advanceChange(session(), { response_json: '{"reason":"price"}' }, NOW);
    expect(first).toEqual({
      response: { step: 1, step_type: 'survey', response_json: '{"reason":"price"}', accepted_offer_json: null, recorded_at: NOW.toISOString() },
    });
    const named = advanceChange(session(), { step_type: 'survey' }, NOW);
    expect(named.response).toMatchObject({ step_type: 'survey', response_json: '{}' });
    expect(() => advanceChange(session(), { step_type: 'offer' }, NOW)).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'step_type' }));
    const next = applyAdvance(session(), first, new Date(NOW.getTime() + 60_000));
    expect(next.current_step).toBe(2);
    expect(next.expires_at).toBe(expiryAfter(new Date(NOW.getTime() + 60_000)));
  });

  it.each([
    ['an accepted offer', '{"accepted_offer":{"offer_type":"pause"}}', '{"offer_type":"pause"}', 2],
    ['an explicit decline (null)', '{"accepted_offer":null}', null, null],
    ['false, kept as said but accepting nothing', '{"accepted_offer":false}', 'false', null],
    ['a scalar value', '{"accepted_offer":"pause"}', '"pause"', 2],
  ])('stores %s on the session', (_case, response, json, step) => {
    const atOffer = advanced(session(), undefined);
    const change = advanceChange(atOffer, { response_json: response }, NOW);
    expect(change.acceptedOffer).toEqual({ json, step });
    expect(change.response.accepted_offer_json).toBe(json);
  });

  it('leaves the accepted offer alone when a response does not name it (arrays and scalars included)', () => {
    for (const response of ['{"reason":"x"}', '[{"accepted_offer":1}]', '42', '"accepted_offer"']) {
      expect(advanceChange(session(), { response_json: response }, NOW).acceptedOffer).toBeUndefined();
    }
  });

  it('allows one advance past the last step, then refuses with invalid_request', () => {
    const finished = advanced(session(), undefined, undefined, undefined);
    expect(finished.current_step).toBe(4);
    expect(stepView(finished)).toBeNull();
    let refused: unknown;
    try {
      advanceChange(finished, {}, NOW);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('invalid_request');
  });
});

describe('views', () => {
  it('shows the session in §2.5 camelCase, accepted offers as values', () => {
    const view = sessionView(advanced(session(), undefined, '{"accepted_offer":{"offer_type":"pause"}}'));
    expect(view).toEqual({
      sessionId: 'cfs_1',
      cancelFlowId: 'cfl_1',
      merchantId: 'mer_1',
      customerId: 'c_ext',
      subscriptionId: 's_ext',
      currentStep: 3,
      status: 'in_progress',
      responses: [
        { stepType: 'survey', responseJson: '{}', acceptedOffer: null },
        { stepType: 'offer', responseJson: '{"accepted_offer":{"offer_type":"pause"}}', acceptedOffer: { offer_type: 'pause' } },
      ],
      acceptedOffer: { offer_type: 'pause' },
      startedAt: '2026-12-01T10:00:00.250Z',
    });
  });

  it('describes the current step with its configuration as a JSON string', () => {
    expect(stepView(advanced(session(), undefined))).toEqual({
      stepType: 'offer',
      configJson: JSON.stringify({ offer_type: 'pause', headline: 'Take a break', duration_months: 2 }),
    });
  });
});

describe('accepted offer and feedback', () => {
  it("applies the flow's offer of the step where it was accepted, never the client's terms", () => {
    const accepted = advanced(session(), undefined, '{"accepted_offer":{"offer_type":"discount","percent_off":100}}');
    expect(acceptedOfferOf(accepted)).toEqual({ step: 2, offer: { offer_type: 'pause', headline: 'Take a break', duration_months: 2 } });
    const onSurvey = advanced(session(), '{"accepted_offer":{"offer_type":"pause"}}');
    expect(acceptedOfferOf(onSurvey)).toBeNull();
  });

  const customer = {
    id: 'cus_1',
    psp: 'stripe',
    psp_customer_id: 'cus_stripe',
    status: 'active',
    failed_payments: 0,
    recovered_payments: 1,
    version: 4,
    updated_at: NOW.toISOString(),
    subscriptions: [
      { id: 'sub_a', psp_subscription_id: 'sub_stripe_a', plan: null, amount: null, currency: null, status: 'active', current_period_end: null },
      { id: 'sub_b', psp_subscription_id: 'sub_stripe_b', plan: null, amount: null, currency: null, status: 'canceled', current_period_end: null },
    ],
  } as unknown as Customer;

  it('marks an offer pending for a known subscription, manual for an unknown one, none on a churn', () => {
    const accepted = advanced(session(), undefined, '{"accepted_offer":true}');
    const completion = completionOf('h'.repeat(64), accepted, { outcome: 'saved', reason: 'price' }, NOW);
    const known = feedbackOf(completion, { customer, subscription: customer.subscriptions[0] }, 'request', NOW);
    expect(known).toMatchObject({
      customer_id: 'cus_1',
      subscription_id: 'sub_a',
      psp: 'stripe',
      psp_subscription_id: 'sub_stripe_a',
      offer: { offer_type: 'pause' },
      offer_application: { status: 'pending' },
      external_customer_id: 'c_ext',
    });
    expect(feedbackOf(completion, { customer: undefined, subscription: undefined }, 'replay', NOW).offer_application?.status).toBe('manual');
    const churn = completionOf('h'.repeat(64), accepted, { outcome: 'churned', reason: 'price' }, NOW);
    expect(feedbackOf(churn, { customer, subscription: customer.subscriptions[0] }, 'request', NOW)).toMatchObject({ offer: null, offer_application: null });
  });

  it('churns the customer when the canceled subscription was their last one, and only once', () => {
    const churned = churnedCustomer(customer, 'sub_a', NOW)!;
    expect(churned.status).toBe('churned');
    expect(churned.version).toBe(5);
    expect(churnedCustomer(churned, 'sub_a', NOW)).toBeUndefined();
    expect(churnedCustomer(customer, 'sub_unknown', NOW)).toBeUndefined();
    expect(matchSubscription(customer, 'sub_stripe_b')?.id).toBe('sub_b');
    expect(matchSubscription(customer, 'sub_a')?.id).toBe('sub_a');
  });
});

describe('cancel flow rules', () => {
  it('accepts the three step types and defaults an empty confirm', () => {
    expect(cancelFlowStep.parse({ step_type: 'confirm' })).toEqual({ step_type: 'confirm', config: {} });
    expect(cancelFlowStep.safeParse({ step_type: 'offer', config: { offer_type: 'trial_extension', headline: 'More time', days: 14 } }).success).toBe(true);
    expect(cancelFlowStep.safeParse({ step_type: 'offer', config: { offer_type: 'downgrade', headline: 'Smaller', plan_id: 'price_basic' } }).success).toBe(true);
    const repeated = cancelFlowStep.safeParse({
      step_type: 'survey',
      config: { question: 'Why?', reasons: [{ id: 'a', label: 'A', sub_reasons: [{ id: 'x', label: 'X' }, { id: 'x', label: 'Y' }] }] },
    });
    expect(repeated.error?.issues[0]?.path).toEqual(['config', 'reasons', 0, 'sub_reasons', 1, 'id']);
  });

  it('knows an origin from a URL', () => {
    expect(isWebOrigin('https://shop.example.com')).toBe(true);
    expect(isWebOrigin('http://localhost:5173')).toBe(true);
    for (const value of ['https://shop.example.com/', 'shop.example.com', 'ftp://x.example.com', '*', 'https://SHOP.example.com']) {
      expect(isWebOrigin(value), value).toBe(false);
    }
  });

  it('moves registry entries by difference and refuses changes to an archived flow', () => {
    expect(originChanges(['a', 'b'], ['b', 'c'])).toEqual({ added: ['c'], removed: ['a'] });
    expect(refusal('activate', { id: 'cfl_1', status: 'inactive' })).toBeUndefined();
    expect(refusal('update', { id: 'cfl_1', status: 'archived' })).toMatch(/archived/);
  });

  it('hashes tokens with SHA-256 and adds calendar months clamped to the month end', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(addMonths(new Date('2026-01-31T12:00:00Z'), 1).toISOString()).toBe('2026-02-28T12:00:00.000Z');
    expect(addMonths(new Date('2026-11-15T00:00:00Z'), 3).toISOString()).toBe('2027-02-15T00:00:00.000Z');
  });
});
