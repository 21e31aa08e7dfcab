import { describe, expect, it } from 'vitest';
import { calendarOccasions, calendarScanRange, calendarStopReason, PRE_DUNNING_LEAD_DAYS } from '../../shared/domain/dunning/calendar-triggers.ts';
import { calendarCandidate, cardInvalidFrom, type Customer, type PaymentMethod, type Subscription } from '../../shared/model/customer.ts';
import { lastDailyRun } from '../../shared/jobs.ts';
import type { CalendarOccasion } from '../../shared/model/enrollment.ts';

const NOW = new Date('2026-11-22T14:00:00Z');
const DAY = 86_400_000;

const card = (exp_month: number, exp_year: number, last_four = '4242'): PaymentMethod => ({ type: 'card', brand: 'visa', last_four, exp_month, exp_year });
const subscription = (overrides: Partial<Subscription> = {}): Subscription => ({
  id: 'sub_1',
  psp_subscription_id: 'sub_psp_1',
  plan: 'pro',
  amount: 2900,
  currency: 'eur',
  status: 'active',
  current_period_end: new Date(NOW.getTime() + 20 * DAY).toISOString(),
  ...overrides,
});
const customer = (overrides: Partial<Customer> = {}): Customer =>
  ({
    id: 'cus_1',
    failed_payments: 0,
    subscriptions: [subscription()],
    payment_method: card(12, 2026),
    ...overrides,
  }) as Customer;
const campaign = (trigger: string, conditions: Record<string, unknown> = {}) =>
  ({ trigger, trigger_conditions: { decline_categories: [], min_amount: null, max_amount: null, ...conditions } }) as never;

describe('card_expiring', () => {
  it.each([
    ['expiring this month', card(11, 2026), true],
    ['expiring next month', card(12, 2026), true],
    ['expiring in two months', card(1, 2027), false],
    ['already expired', card(10, 2026), false],
  ])('%s → %s', (_, method, enrolled) => {
    expect(calendarOccasions(campaign('card_expiring'), customer({ payment_method: method }), NOW)).toHaveLength(enrolled ? 1 : 0);
  });

  it('keys the occasion by card and expiry month, so a card is enrolled once and a new card again', () => {
    // Act
    const [first] = calendarOccasions(campaign('card_expiring'), customer(), NOW);
    const [later] = calendarOccasions(campaign('card_expiring'), customer(), new Date(NOW.getTime() + 5 * DAY));
    const [other] = calendarOccasions(campaign('card_expiring'), customer({ payment_method: card(12, 2026, '1881') }), NOW);
    // Assess
    expect(first).toEqual({ trigger: 'card_expiring', key: 'card_expiring:2026-12:visa:4242', subscription_id: null, renews_at: null, amount: 2900, currency: 'eur' });
    expect(later!.key).toBe(first!.key);
    expect(other!.key).not.toBe(first!.key);
  });

  it('needs a renewing subscription and no payment awaiting recovery', () => {
    expect(calendarOccasions(campaign('card_expiring'), customer({ subscriptions: [subscription({ status: 'canceled' })] }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('card_expiring'), customer({ subscriptions: [] }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('card_expiring'), customer({ failed_payments: 1 }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('card_expiring'), customer({ payment_method: { ...card(12, 2026), exp_month: null } }), NOW)).toEqual([]);
  });

  it('applies min_amount and max_amount to the largest renewing subscription, and an unknown amount only to unbounded campaigns', () => {
    const two = customer({ subscriptions: [subscription(), subscription({ id: 'sub_2', amount: 9900 })] });
    expect(calendarOccasions(campaign('card_expiring', { min_amount: 5000 }), two, NOW)[0]).toMatchObject({ amount: 9900 });
    expect(calendarOccasions(campaign('card_expiring', { max_amount: 5000 }), two, NOW)).toEqual([]);
    const unpriced = customer({ subscriptions: [subscription({ amount: null })] });
    expect(calendarOccasions(campaign('card_expiring'), unpriced, NOW)).toHaveLength(1);
    expect(calendarOccasions(campaign('card_expiring', { min_amount: 0 }), unpriced, NOW)).toEqual([]);
  });

  it('ignores decline_categories: nothing was declined', () => {
    expect(calendarOccasions(campaign('card_expiring', { decline_categories: ['terminal'] }), customer(), NOW)).toHaveLength(1);
  });
});

describe('pre_dunning', () => {
  const renewingIn = (days: number, overrides: Partial<Subscription> = {}) =>
    subscription({ current_period_end: new Date(NOW.getTime() + days * DAY).toISOString(), ...overrides });

  it(`enrolls a renewal within ${PRE_DUNNING_LEAD_DAYS} days when the card is invalid by then`, () => {
    // Prepare: the card is valid through November 2026; one renewal on 29 November, one on 1 December at 02:00.
    const november = card(11, 2026);
    const december = subscription({ current_period_end: '2026-12-01T02:00:00.000Z' });
    // Act + Assess
    expect(calendarOccasions(campaign('pre_dunning'), customer({ payment_method: november, subscriptions: [renewingIn(7)] }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('pre_dunning'), customer({ payment_method: november, subscriptions: [december] }), NOW)).toEqual([]);
    const [occasion] = calendarOccasions(campaign('pre_dunning'), customer({ payment_method: november, subscriptions: [december] }), new Date(NOW.getTime() + 3 * DAY));
    expect(occasion).toEqual({
      trigger: 'pre_dunning',
      key: 'pre_dunning:sub_1:2026-12-01T02:00:00.000Z',
      subscription_id: 'sub_1',
      renews_at: '2026-12-01T02:00:00.000Z',
      amount: 2900,
      currency: 'eur',
    });
  });

  it('leaves renewals too far ahead, already past, or on a card still valid then', () => {
    const expired = card(10, 2026);
    expect(calendarOccasions(campaign('pre_dunning'), customer({ payment_method: expired, subscriptions: [renewingIn(8)] }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('pre_dunning'), customer({ payment_method: expired, subscriptions: [renewingIn(-1)] }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('pre_dunning'), customer({ payment_method: card(12, 2026), subscriptions: [renewingIn(5)] }), NOW)).toEqual([]);
    expect(calendarOccasions(campaign('pre_dunning'), customer({ payment_method: expired, subscriptions: [renewingIn(5)] }), NOW)).toHaveLength(1);
  });

  it('gives each renewing subscription its own occasion, and skips those that do not renew or fail the amount bounds', () => {
    const subscriptions = [renewingIn(2), renewingIn(3, { id: 'sub_2', amount: 100 }), renewingIn(4, { id: 'sub_3', status: 'Canceled' })];
    const occasions = calendarOccasions(campaign('pre_dunning', { min_amount: 1000 }), customer({ payment_method: card(10, 2026), subscriptions }), NOW);
    expect(occasions.map((occasion) => occasion.subscription_id)).toEqual(['sub_1']);
  });

  it('is not enrolled by failure triggers, nor card_expiring by pre_dunning campaigns', () => {
    expect(calendarOccasions(campaign('payment_failed'), customer(), NOW)).toEqual([]);
  });
});

describe('the scan range and the index', () => {
  it('reads this month and the next for card_expiring, and a year back as well for pre_dunning', () => {
    expect(calendarScanRange(new Set(['card_expiring']), NOW)).toEqual({ from: '2026-11', to: '2026-12' });
    expect(calendarScanRange(new Set(['pre_dunning']), NOW)).toEqual({ from: '2025-11', to: '2026-12' });
    expect(calendarScanRange(new Set(['card_expiring']), new Date('2026-12-31T23:00:00Z'))).toEqual({ from: '2026-12', to: '2027-01' });
  });

  it('indexes only customers a calendar trigger could enroll', () => {
    expect(calendarCandidate(customer())).toBe(true);
    expect(calendarCandidate(customer({ failed_payments: 2 }))).toBe(false);
    expect(calendarCandidate(customer({ payment_method: null }))).toBe(false);
    expect(calendarCandidate(customer({ subscriptions: [subscription({ status: 'incomplete_expired' })] }))).toBe(false);
  });

  it('treats a card as valid through the last day of its expiry month', () => {
    expect(cardInvalidFrom(card(12, 2026))).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(cardInvalidFrom({ ...card(13, 2026) })).toBeNull();
  });
});

describe('calendar stops', () => {
  const expiring: CalendarOccasion = { trigger: 'card_expiring', key: 'k', subscription_id: null, renews_at: null, amount: null, currency: null };
  const renewsAt = new Date(NOW.getTime() + 5 * DAY).toISOString();
  const renewal: CalendarOccasion = { trigger: 'pre_dunning', key: 'k', subscription_id: 'sub_1', renews_at: renewsAt, amount: 2900, currency: 'eur' };
  const withRenewal = customer({ payment_method: card(10, 2026), subscriptions: [subscription({ current_period_end: renewsAt })] });

  it('stops on a new card whatever stop_on_card_update says, since the message names the old one', () => {
    expect(calendarStopReason(expiring, card(12, 2026), customer({ payment_method: card(12, 2029) }), NOW)).toBe('card_updated');
    expect(calendarStopReason(expiring, card(12, 2026), customer(), NOW)).toBeNull();
  });

  it('stops card_expiring once the card has expired or nothing renews', () => {
    expect(calendarStopReason(expiring, card(12, 2026), customer(), new Date('2027-01-01T00:00:00Z'))).toBe('occasion_passed');
    expect(calendarStopReason(expiring, card(12, 2026), customer({ subscriptions: [subscription({ status: 'canceled' })] }), NOW)).toBe('subscription_ended');
  });

  it('stops pre_dunning at the renewal, when the renewal moves, or when the subscription ends', () => {
    expect(calendarStopReason(renewal, card(10, 2026), withRenewal, NOW)).toBeNull();
    expect(calendarStopReason(renewal, card(10, 2026), withRenewal, new Date(renewsAt))).toBe('occasion_passed');
    const moved = customer({ payment_method: card(10, 2026), subscriptions: [subscription({ current_period_end: new Date(NOW.getTime() + 35 * DAY).toISOString() })] });
    expect(calendarStopReason(renewal, card(10, 2026), moved, NOW)).toBe('occasion_passed');
    const canceled = customer({ payment_method: card(10, 2026), subscriptions: [subscription({ current_period_end: renewsAt, status: 'canceled' })] });
    expect(calendarStopReason(renewal, card(10, 2026), canceled, NOW)).toBe('subscription_ended');
  });
});

describe('daily recurring jobs', () => {
  it('run at the latest occurrence of their UTC time at or before now', () => {
    const job = { dailyAt: { hour: 14, minute: 0 } };
    expect(lastDailyRun(job, new Date('2026-11-22T14:00:00Z'))).toEqual(new Date('2026-11-22T14:00:00Z'));
    expect(lastDailyRun(job, new Date('2026-11-22T13:59:59Z'))).toEqual(new Date('2026-11-21T14:00:00Z'));
    expect(lastDailyRun(job, new Date('2026-12-01T02:00:00Z'))).toEqual(new Date('2026-11-30T14:00:00Z'));
  });
});
