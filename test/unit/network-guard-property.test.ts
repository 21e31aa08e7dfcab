import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_LEDGER, type CardLedger, type CardNetwork, type Initiator } from '../../shared/model/card-ledger.ts';
import { rulesInForce } from '../../shared/domain/declines/network-rules.ts';
import { blocksFromAnswer, judgeAttempt, withAttempt } from '../../shared/domain/retries/network-guard.ts';

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

interface Authorization {
  at: number;
  ours: boolean;
  initiator: Initiator;
  expiry: string;
  declineCode: string | null;
  adviceCode: string | null;
}

/** Which rule an attempt of ours at `at` on a card with this history would break, if any. */
function broken(history: readonly Authorization[], network: CardNetwork, expiry: string, at: number): string | undefined {
  for (const rule of rulesInForce(network, new Date(at))) {
    const { when, effect } = rule;
    if (effect.kind === 'limit') {
      const inWindow = history.filter(
        (auth) =>
          auth.at > at - effect.windowHours * 3_600_000 &&
          (effect.counter === 'attempts' || (auth.ours && (effect.counter === 'merchant_reattempts') === (auth.initiator === 'merchant'))),
      );
      if (inWindow.length + 1 > effect.max) return rule.id;
      continue;
    }
    if (when === 'every_attempt') continue;
    for (const auth of history) {
      const code = 'declineCodes' in when ? auth.declineCode : auth.adviceCode;
      const codes: readonly string[] = 'declineCodes' in when ? when.declineCodes : when.adviceCodes;
      if (code === null || !codes.includes(code)) continue;
      if (effect.kind === 'never' && auth.expiry === expiry) return rule.id;
      if (effect.kind === 'not_before' && at < auth.at + effect.hours * 3_600_000) return rule.id;
    }
  }
  return undefined;
}

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
            if (broken(histories[s.card]!, network, expiry, now) !== undefined) violations += 1;
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
