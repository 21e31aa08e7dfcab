import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wallTime } from '../../shared/domain/local-time.ts';
import { isNight, nextRetryAt } from '../../shared/domain/retry-policy.ts';
import { applyOutcome, claimAttempt } from '../../shared/domain/retry-outcomes.ts';
import { newPayment } from '../../shared/domain/failure-accounting.ts';
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
  fc.constantFrom('insufficient_funds', 'processing_error', 'expired_card', 'stolen_card', 'do_not_honor', 'weird').map(
    (declineCode): RetryOutcome => ({ outcome: 'declined', declineCode }),
  ),
  fc.constant<RetryOutcome>({ outcome: 'no_answer', reason: 'timeout', retryable: true }),
);

describe('a payment retried until something stops it (property)', () => {
  it('never exceeds max_retries, respects the cooldown, and never schedules a terminal payment', () => {
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
          const claimed = claimAttempt(payment, now);
          previousGotAnswer = outcome.outcome !== 'no_answer';
          const result = applyOutcome({
            payment: claimed,
            customer: undefined,
            outcome,
            trigger: 'automatic',
            now,
            nextRetryAt: (cooldownHours, subcategory) => nextRetryAt({ failedAt: now, cooldownHours, subcategory, timeZone: 'Europe/Berlin' }),
          });
          payment = result.payment;
          if (payment.status === 'terminal') expect(result.nextAttemptAt).toBeNull();
          if (result.nextAttemptAt) expect(payment.status).toBe('pending');
          expect(payment.retries.length).toBeLessThanOrEqual(payment.max_retries);
        }
        expect(payment.retry_count).toBeLessThanOrEqual(payment.max_retries);
      }),
      { numRuns: 500 },
    );
  });
});
