import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_LEDGER, type CardLedger, type CardNetwork, type Initiator } from '../../shared/model/card-ledger.ts';
import { blocksFromAnswer, judgeAttempt, withAttempt } from '../../shared/domain/retries/network-guard.ts';
import { ruleBroken, type Authorization } from '../support/network-history.ts';

/**
 * Random histories of a handful of cards: failures the processor reports, automatic and manual retries,
 * card updates, each answered with random network codes. Every attempt the guard allows is checked
 * against the rules table by an independent reading of the raw history (exact rolling windows, every
 * answer's code): no rule is ever broken.
 */
const CARDS: readonly CardNetwork[] = ['visa', 'mastercard', 'unknown', 'visa'];
const DECLINES = [null, '05', '51', '41', '14', 'R1', '57'] as const;
const ADVICE = [null, null, '01', '02', '03', '21', '24', '25', '26', '30'] as const;

const step = fc.record({
  kind: fc.constantFrom('failure', 'automatic', 'manual', 'card_update'),
  card: fc.nat({ max: CARDS.length - 1 }),
  // Bursts (minutes apart) reach the 24-hour and 30-day limits; long gaps let windows and waits pass.
  afterMinutes: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 36 * 60 })),
  declineCode: fc.constantFrom(...DECLINES),
  adviceCode: fc.constantFrom(...ADVICE),
});

describe('card network guard (property)', () => {
  it('never allows an attempt that breaks a rule of the table, over random histories of failures, retries and card updates', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200 }), fc.date({ min: new Date('2025-03-01T00:00:00Z'), max: new Date('2027-01-01T00:00:00Z'), noInvalidDate: true }), (steps, start) => {
        let now = start.getTime();
        const ledgers: CardLedger[] = CARDS.map(() => EMPTY_LEDGER);
        const histories: Authorization[][] = CARDS.map(() => []);
        const expiries = CARDS.map(() => 1);
        let violations = 0;
        let allowed = 0;
        for (const s of steps) {
          now += s.afterMinutes * 60_000;
          const at = new Date(now);
          const network = CARDS[s.card]!;
          const expiry = `12/${2030 + expiries[s.card]!}`;
          if (s.kind === 'card_update') {
            expiries[s.card]! += 1;
            continue;
          }
          const answer = { declineCode: s.declineCode, adviceCode: s.adviceCode };
          const ours = s.kind !== 'failure';
          if (ours) {
            const verdict = judgeAttempt({ ledger: ledgers[s.card]!, network, cardExpiry: expiry, initiator: 'merchant', at });
            if (!verdict.allowed) {
              // Held: the next allowed time really is allowed (a rescheduled retry would run then).
              const reopen = verdict.hold.next_allowed_at;
              if (reopen !== null) expect(judgeAttempt({ ledger: ledgers[s.card]!, network, cardExpiry: expiry, initiator: 'merchant', at: new Date(reopen) })).toEqual({ allowed: true });
              continue;
            }
            allowed += 1;
            if (ruleBroken(histories[s.card]!, network, expiry, now) !== undefined) violations += 1;
          }
          ledgers[s.card] = withAttempt(ledgers[s.card]!, ours ? 'merchant' : null, at);
          const blocks = blocksFromAnswer(network, answer, expiry, at);
          ledgers[s.card] = { ...ledgers[s.card]!, blocks: [...ledgers[s.card]!.blocks.filter((b) => !blocks.some((n) => n.rule === b.rule)), ...blocks] };
          histories[s.card]!.push({ at: now, ours, initiator: 'merchant', expiry, declineCode: s.declineCode, adviceCode: s.adviceCode });
        }
        expect({ violations, allowed: allowed >= 0 }).toEqual({ violations: 0, allowed: true });
      }),
      { numRuns: 400 },
    );
  });
});
