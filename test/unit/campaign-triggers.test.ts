import { describe, expect, it } from 'vitest';
import { cardExpired, HIGH_VALUE_DEFAULT_MIN_AMOUNT, triggerFires, type EnrollmentFacts } from '../../shared/domain/dunning/campaign-triggers.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
const facts = (overrides: Partial<EnrollmentFacts> = {}): EnrollmentFacts => ({
  occasion: 'failure',
  amount: 2000,
  declineCategory: 'hard_customer',
  declineSubcategory: 'Card Data',
  openFailures: 1,
  paymentMethod: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 12, exp_year: 2030 },
  now: NOW,
  ...overrides,
});
const campaign = (trigger: string, conditions: Record<string, unknown> = {}) =>
  ({ trigger, trigger_conditions: { decline_categories: [], min_amount: null, max_amount: null, ...conditions } }) as never;

describe('campaign triggers', () => {
  it.each([
    ['payment_failed', facts(), true],
    ['any_decline', facts(), true],
    ['payment_failed', facts({ declineCategory: 'unknown' }), true],
    ['payment_failed', facts({ declineCategory: 'soft_retry' }), false],
    ['payment_failed', facts({ declineCategory: 'terminal' }), false],
    ['card_expired', facts({ declineSubcategory: 'Card Expired' }), true],
    ['card_expired', facts({ paymentMethod: { type: 'card', brand: 'visa', last_four: '1', exp_month: 10, exp_year: 2026 } }), true],
    ['card_expired', facts(), false],
    ['repeated_failure', facts({ openFailures: 2 }), true],
    ['repeated_failure', facts({ openFailures: 1 }), false],
    ['high_value_churn', facts({ amount: HIGH_VALUE_DEFAULT_MIN_AMOUNT }), true],
    ['high_value_churn', facts({ amount: HIGH_VALUE_DEFAULT_MIN_AMOUNT - 1 }), false],
    ['soft_decline', facts({ occasion: 'soft_retries_exhausted', declineCategory: 'soft_retry' }), true],
    ['soft_decline', facts({ declineCategory: 'soft_retry' }), false],
    ['manual', facts(), false],
    ['card_expiring', facts(), false],
    ['pre_dunning', facts(), false],
  ] as const)('%s with %j → %s', (trigger, input, expected) => {
    expect(triggerFires(campaign(trigger), input)).toBe(expected);
  });

  it('honours decline_categories and the amount bounds', () => {
    expect(triggerFires(campaign('payment_failed', { decline_categories: ['terminal'] }), facts({ declineCategory: 'terminal' }))).toBe(true);
    expect(triggerFires(campaign('payment_failed', { decline_categories: ['terminal'] }), facts())).toBe(false);
    expect(triggerFires(campaign('payment_failed', { decline_categories: ['soft_retry'] }), facts({ declineCategory: 'soft_retry' }))).toBe(true);
    expect(triggerFires(campaign('payment_failed', { min_amount: 2001 }), facts())).toBe(false);
    expect(triggerFires(campaign('payment_failed', { max_amount: 1999 }), facts())).toBe(false);
    expect(triggerFires(campaign('payment_failed', { min_amount: 2000, max_amount: 2000 }), facts())).toBe(true);
    expect(triggerFires(campaign('high_value_churn', { min_amount: 500 }), facts({ amount: 600 }))).toBe(true);
  });

  it('treats a card as valid through the end of its expiry month', () => {
    expect(cardExpired({ type: 'card', brand: null, last_four: null, exp_month: 11, exp_year: 2026 }, NOW)).toBe(false);
    expect(cardExpired({ type: 'card', brand: null, last_four: null, exp_month: 10, exp_year: 2026 }, NOW)).toBe(true);
    expect(cardExpired(null, NOW)).toBe(false);
  });
});
