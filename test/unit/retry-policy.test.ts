import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wallTime } from '../../shared/model/local-time.ts';
import { isNight, MAX_CONSECUTIVE_NO_ANSWERS, nextRetryAt, noAnswerRerunAt } from '../../shared/domain/retries/retry-policy.ts';
import { applyOutcome, attemptAfterSettlement, claimAttempt } from '../../shared/domain/retries/retry-outcomes.ts';
import { countFailure, newCustomer, newPayment } from '../../shared/domain/ingestion/failure-accounting.ts';
import { classifyDecline } from '../../shared/domain/declines/decline-classification.ts';
import type { Payment } from '../../shared/model/payment.ts';
import type { RetryOutcome } from '../../shared/ports/payment-processor.ts';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'America/Sao_Paulo', 'Pacific/Chatham', 'America/St_Johns'];
const SUBCATEGORIES = ['Balance', 'Issuer Temporary', 'Rate Limit', 'Generic'];
const instant = fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true });
const request = fc.record({
  failedAt: instant,
  cooldownHours: fc.constantFrom(6, 12, 24, 48, 72),
  subcategory: fc.constantFrom(...SUBCATEGORIES),
  timeZone: fc.constantFrom(...ZONES),
});

describe('retry policy', () => {
  it('never schedules before the cooldown, never in the local night, never more than 6 days late (property)', () => {
    fc.assert(
      fc.property(request, (r) => {
        const at = nextRetryAt(r);
        const earliest = r.failedAt.getTime() + r.cooldownHours * 3600_000;
        expect(at.getTime()).toBeGreaterThanOrEqual(earliest);
        expect(at.getTime() - earliest).toBeLessThanOrEqual(6 * 86400_000);
        expect(isNight(wallTime(at, r.timeZone).hour)).toBe(false);
        expect(nextRetryAt(r).getTime()).toBe(at.getTime());
      }),
      { numRuns: 2000 },
    );
  });

  it('lands Balance declines on a payday-window day when one starts within 5 days (property)', () => {
    fc.assert(
      fc.property(request, (r) => {
        const at = nextRetryAt({ ...r, subcategory: 'Balance' });
        const earliest = new Date(r.failedAt.getTime() + r.cooldownHours * 3600_000);
        const start = wallTime(earliest, r.timeZone);
        // A payday-window date among the next 6 local dates that still has daytime left after the cooldown.
        const reachable = Array.from({ length: 6 }, (_, offset) => offset).some((offset) => {
          const day = new Date(Date.UTC(start.year, start.month - 1, start.day + offset)).getUTCDate();
          const isPayday = (day >= 1 && day <= 3) || (day >= 15 && day <= 17);
          return isPayday && (offset > 0 || start.hour < 21);
        });
        const day = wallTime(at, r.timeZone).day;
        if (reachable) expect((day >= 1 && day <= 3) || (day >= 15 && day <= 17)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    // Friday 2026-11-20 22:30 Berlin + 12 h = Saturday 10:30: daytime, no weekday 09:00 within 24 h → stays.
    ['2026-11-20T21:30:00Z', 12, 'Issuer Temporary', 'Europe/Berlin', '2026-11-21T09:30:00.000Z'],
    // Tuesday 2026-11-17 02:00 UTC + 24 h = Wednesday 02:00 New York night-time (21:00 Tue) → Wednesday 09:00 local.
    ['2026-11-17T02:00:00Z', 24, 'Generic', 'America/New_York', '2026-11-18T14:00:00.000Z'],
    // Balance failing on the 10th: the 15th 09:00 local is within 5 days of the cooldown's end.
    ['2026-11-10T12:00:00Z', 48, 'Balance', 'UTC', '2026-11-15T09:00:00.000Z'],
    // Across the DST change in Berlin (2026-03-29): 09:00 local is 07:00 UTC after it.
    ['2026-03-28T10:00:00Z', 24, 'Generic', 'Europe/Berlin', '2026-03-30T07:00:00.000Z'],
  ])('examples: failed %s, cooldown %i h, %s in %s → %s', (failedAt, cooldownHours, subcategory, timeZone, expected) => {
    expect(nextRetryAt({ failedAt: new Date(failedAt), cooldownHours, subcategory, timeZone }).toISOString()).toBe(expected);
  });

  it('falls back to UTC for a missing or unknown zone', () => {
    const at = nextRetryAt({ failedAt: new Date('2026-11-17T23:00:00Z'), cooldownHours: 6, subcategory: 'Generic', timeZone: 'Mars/Olympus' });
    expect(isNight(at.getUTCHours())).toBe(false);
  });
});

const declines: fc.Arbitrary<RetryOutcome> = fc.oneof(
  fc.constant<RetryOutcome>({ outcome: 'succeeded' }),
  fc.constantFrom('insufficient_funds', 'processing_error', 'reenter_transaction', 'expired_card', 'stolen_card', 'do_not_honor', 'weird', null).map(
    (declineCode): RetryOutcome => ({ outcome: 'declined', declineCode }),
  ),
  fc.constant<RetryOutcome>({ outcome: 'no_answer', reason: 'timeout' }),
  fc.constantFrom<RetryOutcome>(
    { outcome: 'refused', awaits: 'customer', reason: 'no payment method' },
    { outcome: 'refused', awaits: 'merchant', reason: 'no API key' },
    { outcome: 'closed', reason: 'invoice void' },
  ),
);

describe('a payment retried until something stops it (property)', () => {
  it("schedules only within the current decline's retry budget, shows that decline's row, respects the cooldown, never schedules a terminal payment", () => {
    fc.assert(
      fc.property(fc.constantFrom('insufficient_funds', 'processing_error', 'card_velocity_exceeded', 'reenter_transaction'), fc.array(declines, { maxLength: 30 }), instant, (code, outcomes, start) => {
        let now = start;
        let payment = newPayment({
          psp: 'stripe',
          charge: { pspPaymentId: 'pi_1', references: [], amount: 1000, currency: 'usd', declineCode: code },
          customerId: 'cus_1',
          subscription: null,
          timeZone: 'Europe/Berlin',
          now,
        });
        let previousGotAnswer = true;
        for (const outcome of outcomes) {
          if (payment.status !== 'pending' || payment.next_retry_at === null) break;
          const due = new Date(payment.next_retry_at);
          // After an answer, the next attempt waits the cooldown; after no answer, only the backoff.
          if (previousGotAnswer) expect(due.getTime()).toBeGreaterThanOrEqual(now.getTime() + (payment.cooldown_hours ?? 0) * 3600_000);
          now = due;
          const claimed = claimAttempt(payment, now, 'automatic');
          previousGotAnswer = outcome.outcome !== 'no_answer';
          const result = applyOutcome({
            payment: claimed,
            customer: undefined,
            outcome,
            trigger: 'automatic',
            now,
            timeZone: 'Europe/Berlin',
          });
          payment = result.payment;
          if (payment.status === 'terminal') expect(result.nextAttemptAt).toBeNull();
          if (result.nextAttemptAt) expect(payment.status).toBe('pending');
          // The payment always shows the row of the decline it shows (§2.6 rule 2).
          const row = classifyDecline('stripe', payment.decline_code);
          expect({ category: payment.decline_category, max: payment.max_retries, cooldown: payment.cooldown_hours }).toEqual({
            category: row.category,
            max: row.maxRetries,
            cooldown: row.cooldownHours,
          });
          // A decline schedules a further attempt only while that decline's budget has room.
          if (outcome.outcome === 'declined' && result.nextAttemptAt) expect(payment.retry_count).toBeLessThan(payment.max_retries);
          // Only an answer about the charge uses up an attempt; a refusal or nothing to collect stops retrying.
          if (outcome.outcome !== 'succeeded' && outcome.outcome !== 'declined') expect(payment.retry_count).toBe(claimed.retry_count - 1);
          if (outcome.outcome === 'refused' || outcome.outcome === 'closed') expect(result.nextAttemptAt).toBeNull();
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** A Stripe soft decline (insufficient_funds: 4 retries, 48 h), its first attempt claimed. */
function claimedSoftPayment(now: Date, timeZone: string | null = null): Payment {
  const payment = newPayment({
    psp: 'stripe',
    charge: { pspPaymentId: 'pi_1', references: [], amount: 1000, currency: 'usd', declineCode: 'insufficient_funds' },
    customerId: 'cus_1',
    subscription: null,
    timeZone,
    now,
  });
  return claimAttempt(payment, now, 'automatic');
}

describe('a retry declined with another code', () => {
  const now = new Date('2026-11-10T10:00:00Z');
  const declinedWith = (payment: Payment, declineCode: string | null) =>
    applyOutcome({ payment, customer: undefined, outcome: { outcome: 'declined', declineCode }, trigger: 'automatic', now, timeZone: null });

  it("takes the new row's budget and cooldown: insufficient_funds (4, 48 h) then processing_error (3, 24 h)", () => {
    const result = declinedWith(claimedSoftPayment(now), 'processing_error');
    expect(result.payment).toMatchObject({ decline_code: 'processing_error', decline_subcategory: 'Issuer Temporary', max_retries: 3, cooldown_hours: 24, status: 'pending' });
    expect(result.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(now.getTime() + 24 * 3600_000);
  });

  it("stops when the attempts made already use up the new row's budget", () => {
    let payment = claimedSoftPayment(now);
    for (let attempt = 1; attempt < 3; attempt++) payment = claimAttempt(declinedWith(payment, 'insufficient_funds').payment, now, 'automatic');
    // Third attempt declined as reenter_transaction (2 retries): three made, none left.
    const result = declinedWith(payment, 'reenter_transaction');
    expect(result.payment).toMatchObject({ retry_count: 3, max_retries: 2, status: 'communication_pending', next_retry_at: null });
    expect(result.nextAttemptAt).toBeNull();
    expect(result.events).toEqual(['payment.retry_failed']);
  });

  it('shows a hard decline as a hard decline shows at intake: no retries allowed, dunning', () => {
    const result = declinedWith(claimedSoftPayment(now), 'expired_card');
    expect(result.payment).toMatchObject({ decline_category: 'hard_customer', max_retries: 0, cooldown_hours: null, status: 'communication_pending' });
  });

  it('keeps the last known code and its route when the processor declines without one', () => {
    const result = declinedWith(claimedSoftPayment(now), null);
    expect(result.payment).toMatchObject({ decline_code: 'insufficient_funds', decline_category: 'soft_retry', max_retries: 4, status: 'pending' });
    expect(result.payment.retries.at(-1)).toMatchObject({ status: 'failed', decline_code: null });
  });
});

describe('an attempt the processor does not answer', () => {
  it('runs again after 5 min doubling to 6 h, never in the customer\'s night (property)', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 1, max: MAX_CONSECUTIVE_NO_ANSWERS }), fc.constantFrom(...ZONES), (failedAt, noAnswers, timeZone) => {
        const at = noAnswerRerunAt(failedAt, noAnswers, timeZone);
        const backoff = Math.min(6 * 3600_000, 5 * 60_000 * 2 ** (noAnswers - 1));
        expect(at.getTime()).toBeGreaterThanOrEqual(failedAt.getTime() + backoff);
        expect(isNight(wallTime(at, timeZone).hour)).toBe(false);
        // Moved only out of the night: at most to the next 08:00, 11 h after 21:00 (12 h across a DST change).
        expect(at.getTime() - failedAt.getTime() - backoff).toBeLessThanOrEqual(12 * 3600_000);
      }),
      { numRuns: 1000 },
    );
  });

  it('moves a re-run that would fall at 22:47 UTC to 08:00 for a customer without a zone', () => {
    expect(noAnswerRerunAt(new Date('2026-11-10T16:47:00Z'), 10, null).toISOString()).toBe('2026-11-11T08:00:00.000Z');
    expect(noAnswerRerunAt(new Date('2026-11-10T10:00:00Z'), 1, null).toISOString()).toBe('2026-11-10T10:05:00.000Z');
  });

  it(`hands the payment to dunning after ${MAX_CONSECUTIVE_NO_ANSWERS} silent attempts in a row, the attempt given back each time`, () => {
    let now = new Date('2026-11-10T10:00:00Z');
    let payment = claimedSoftPayment(now);
    const timeout: RetryOutcome = { outcome: 'no_answer', reason: 'timeout' };
    for (let silence = 1; silence <= MAX_CONSECUTIVE_NO_ANSWERS; silence++) {
      const result = applyOutcome({ payment, customer: undefined, outcome: timeout, trigger: 'automatic', now, timeZone: 'Europe/Berlin' });
      expect(result.payment.retry_count).toBe(0);
      if (silence < MAX_CONSECUTIVE_NO_ANSWERS) {
        expect(result.payment.status).toBe('pending');
        now = result.nextAttemptAt!;
        payment = claimAttempt(result.payment, now, 'automatic');
        continue;
      }
      expect(result.payment).toMatchObject({ status: 'communication_pending', next_retry_at: null, consecutive_no_answers: MAX_CONSECUTIVE_NO_ANSWERS });
      expect(result.nextAttemptAt).toBeNull();
      // The same event as retries running out: soft_decline campaigns take it from here.
      expect(result.events).toEqual(['payment.retry_failed']);
    }
    // About three days of silence, not hours.
    expect(now.getTime() - new Date('2026-11-10T10:00:00Z').getTime()).toBeGreaterThan(2.5 * 86400_000);
  });
});

describe('an attempt that charged nothing for good', () => {
  const now = new Date('2026-11-10T10:00:00Z');
  const payment = () => ({ ...claimedSoftPayment(now), consecutive_no_answers: 3 });
  const customer = () =>
    countFailure(newCustomer('stripe', { pspCustomerId: 'cus_psp', email: null, name: null, timezone: null, country: null, phone: null }, now), payment(), now);
  const answer = (outcome: RetryOutcome) => applyOutcome({ payment: payment(), customer: customer(), outcome, trigger: 'automatic', now, timeZone: null });

  it('ends recovery when nothing is left to collect: terminal, announced, out of the customer\'s open count, the attempt given back', () => {
    const result = answer({ outcome: 'closed', reason: 'Stripe invoice in_1 is void: there is nothing to pay' });
    expect(result.payment).toMatchObject({ status: 'terminal', next_retry_at: null, retry_count: 0, retries: [], consecutive_no_answers: 0 });
    expect(result).toMatchObject({ nextAttemptAt: null, events: ['payment.terminal'] });
    expect(result.customer).toMatchObject({ failed_payments: 0, terminal_payments: 1 });
  });

  it('asks the customer through dunning when only they can make the charge possible', () => {
    const result = answer({ outcome: 'refused', awaits: 'customer', reason: 'no payment method to charge' });
    expect(result.payment).toMatchObject({ status: 'communication_pending', next_retry_at: null, retry_count: 0, retries: [] });
    // The event retries running out send: the dunning consumer enrolls the payment from it.
    expect(result).toMatchObject({ nextAttemptAt: null, events: ['payment.retry_failed'] });
    expect(result.customer).toMatchObject({ failed_payments: 1, terminal_payments: 0 });
  });

  it('stops retrying without asking the customer when the merchant has to act', () => {
    const result = answer({ outcome: 'refused', awaits: 'merchant', reason: 'No Stripe API key on the connection' });
    expect(result.payment).toMatchObject({ status: 'communication_pending', next_retry_at: null, retry_count: 0 });
    expect(result).toMatchObject({ nextAttemptAt: null, events: [] });
  });

  it('gives the attempt back when its payment was settled meanwhile', () => {
    const settled = { ...payment(), status: 'recovered' as const };
    for (const outcome of [{ outcome: 'closed', reason: 'void' }, { outcome: 'refused', awaits: 'merchant', reason: 'no key' }] as const) {
      expect(attemptAfterSettlement(settled, 1, outcome, now)).toMatchObject({ status: 'recovered', retry_count: 0, retries: [] });
    }
  });
});

describe('an attempt whose customer was erased while it ran', () => {
  const now = new Date('2026-11-10T10:00:00Z');
  const erased = (): Payment => ({ ...claimedSoftPayment(now), customer_id: null });
  const answer = (outcome: RetryOutcome) => applyOutcome({ payment: erased(), customer: undefined, outcome, trigger: 'automatic', now, timeZone: null });

  it('still records a success as a recovery', () => {
    expect(answer({ outcome: 'succeeded' }).payment.status).toBe('recovered');
  });

  it('ends the payment on a soft decline or no answer instead of scheduling another attempt', () => {
    const declined = answer({ outcome: 'declined', declineCode: 'insufficient_funds' });
    expect(declined).toMatchObject({ nextAttemptAt: null, events: ['payment.retry_failed', 'payment.terminal'] });
    expect(declined.payment).toMatchObject({ status: 'terminal', next_retry_at: null, retry_count: 1 });
    const silent = answer({ outcome: 'no_answer', reason: 'timeout' });
    expect(silent).toMatchObject({ nextAttemptAt: null, events: ['payment.terminal'] });
    expect(silent.payment).toMatchObject({ status: 'terminal', next_retry_at: null, retry_count: 0 });
  });
});

describe('an attempt whose payment was settled by the processor meanwhile', () => {
  const now = new Date('2026-11-10T10:00:00Z');
  const settled = (): Payment => ({ ...claimedSoftPayment(now), status: 'recovered' });

  it('keeps an answer it got in the history, and gives back one that got none or never ran', () => {
    expect(attemptAfterSettlement(settled(), 1, { outcome: 'succeeded' }, now)).toMatchObject({
      status: 'recovered',
      retry_count: 1,
      retries: [{ attempt: 1, status: 'succeeded', decline_code: null }],
    });
    expect(attemptAfterSettlement(settled(), 1, { outcome: 'declined', declineCode: 'do_not_honor' }, now)!.retries).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', decline_code: 'do_not_honor' }),
    ]);
    for (const outcome of [undefined, { outcome: 'no_answer', reason: 'timeout' } as const]) {
      expect(attemptAfterSettlement(settled(), 1, outcome, now)).toMatchObject({ status: 'recovered', retry_count: 0, retries: [] });
    }
  });

  it('leaves alone an attempt still running, another attempt, or one already recorded or given back', () => {
    expect(attemptAfterSettlement(claimedSoftPayment(now), 1, undefined, now)).toBeUndefined();
    expect(attemptAfterSettlement(settled(), 2, undefined, now)).toBeUndefined();
    const recorded = attemptAfterSettlement(settled(), 1, { outcome: 'succeeded' }, now)!;
    expect(attemptAfterSettlement(recorded, 1, undefined, now)).toBeUndefined();
    const givenBack = attemptAfterSettlement(settled(), 1, undefined, now)!;
    expect(attemptAfterSettlement(givenBack, 1, undefined, now)).toBeUndefined();
  });
});
