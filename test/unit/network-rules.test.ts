import { describe, expect, it } from 'vitest';
import { cardIdentity, cardNetwork, EMPTY_LEDGER, type CardLedger, type CardNetwork, type Initiator } from '../../shared/model/card-ledger.ts';
import { NETWORK_RULES, NETWORK_RULES_VERSION, rulesInForce } from '../../shared/domain/declines/network-rules.ts';
import { blocksFromAnswer, judgeAttempt, withAttempt } from '../../shared/domain/retries/network-guard.ts';

const T0 = new Date('2026-11-02T10:00:00Z');
const hours = (n: number, from = T0): Date => new Date(from.getTime() + n * 3_600_000);

function attempts(count: number, initiator: Initiator | null, at: (i: number) => Date, ledger: CardLedger = EMPTY_LEDGER): CardLedger {
  let next = ledger;
  for (let i = 0; i < count; i++) next = withAttempt(next, initiator, at(i));
  return next;
}

const judge = (ledger: CardLedger, network: CardNetwork, at: Date, initiator: Initiator = 'merchant', cardExpiry: string | null = '12/2030') =>
  judgeAttempt({ ledger, network, cardExpiry, initiator, at });

const blocked = (network: CardNetwork, answer: { declineCode?: string; adviceCode?: string }, at = T0, cardExpiry = '12/2030'): CardLedger => ({
  ...EMPTY_LEDGER,
  blocks: blocksFromAnswer(network, { declineCode: answer.declineCode ?? null, adviceCode: answer.adviceCode ?? null }, cardExpiry, at),
});

describe('card network rules table', () => {
  it('has one row per id, each with a source-backed fee and a valid date range', () => {
    expect(new Set(NETWORK_RULES.map((rule) => rule.id)).size).toBe(NETWORK_RULES.length);
    for (const rule of NETWORK_RULES) {
      expect(rule.feeCents).toBeGreaterThan(0);
      expect(rule.effectiveFrom).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (rule.effectiveUntil) expect(rule.effectiveUntil > rule.effectiveFrom).toBe(true);
    }
  });

  it('holds both Visa reattempt rules by effective date: 15 in 30 days until May 2025, then 20 counted per initiator', () => {
    const ids = (at: string) => rulesInForce('visa', new Date(at)).map((rule) => rule.id);
    expect(ids('2025-04-30T23:00:00Z')).toContain('visa_reattempts_30d');
    expect(ids('2025-04-30T23:00:00Z')).not.toContain('visa_merchant_reattempts_30d');
    expect(ids('2025-05-01T00:00:00Z')).toEqual(expect.arrayContaining(['visa_merchant_reattempts_30d', 'visa_customer_reattempts_30d']));
    expect(ids('2025-05-01T00:00:00Z')).not.toContain('visa_reattempts_30d');
  });

  it('tells networks from brands as processors spell them; a card of unknown brand is judged by every network', () => {
    expect(['Visa', 'visa', 'VISA Debit'].map(cardNetwork)).toEqual(['visa', 'visa', 'visa']);
    expect(['MasterCard', 'mastercard', 'Master Card'].map(cardNetwork)).toEqual(['mastercard', 'mastercard', 'mastercard']);
    expect(cardNetwork('amex')).toBe('other');
    expect(cardNetwork(null)).toBe('unknown');
    expect(rulesInForce('other', T0)).toEqual([]);
    expect(new Set(rulesInForce('unknown', T0).map((rule) => rule.network))).toEqual(new Set(['visa', 'mastercard']));
  });

  it('keys a card by fingerprint, else brand, last four and expiry, else the customer', () => {
    const card = { brand: 'visa', lastFour: '4242', expMonth: 3, expYear: 2029, fingerprint: null };
    expect(cardIdentity({ ...card, fingerprint: 'fp_1' }, 'cus_1')).toBe('fingerprint:fp_1');
    expect(cardIdentity(card, 'cus_1')).toBe('card:visa:4242:03/2029');
    expect(cardIdentity({ ...card, expYear: null }, 'cus_1')).toBe('customer:cus_1');
    expect(cardIdentity(null, 'cus_1')).toBe('customer:cus_1');
  });
});

describe('Visa', () => {
  it.each(['04', '07', '12', '14', '15', '41', '43', '46', '57', 'R0', 'R1', 'R3', 'r1'])('never reattempts after Category 1 code %s, manual or automatic', (code) => {
    const ledger = blocked('visa', { declineCode: code });
    for (const initiator of ['merchant', 'customer'] as const) {
      const verdict = judge(ledger, 'visa', hours(24 * 40), initiator);
      expect(verdict).toEqual({ allowed: false, hold: expect.objectContaining({ rule: 'visa_category_1', effect: 'never', next_allowed_at: null, rules_version: NETWORK_RULES_VERSION }) });
    }
  });

  it('lets a card update (new expiry) lift a Category 1 block', () => {
    expect(judge(blocked('visa', { declineCode: '41' }), 'visa', hours(1), 'merchant', '01/2031')).toEqual({ allowed: true });
  });

  it('sets no block for Category 2-4 codes or on a Mastercard for Visa codes', () => {
    expect(blocked('visa', { declineCode: '51' }).blocks).toEqual([]);
    expect(blocked('visa', { declineCode: '05' }).blocks).toEqual([]);
    expect(blocked('mastercard', { declineCode: '41' }).blocks).toEqual([]);
  });

  it('allows the 20th merchant reattempt in 30 days and holds the 21st until the oldest day leaves the window (since May 2025)', () => {
    const ledger = attempts(20, 'merchant', (i) => hours(i * 30));
    expect(judge(attempts(19, 'merchant', (i) => hours(i * 30)), 'visa', hours(20 * 30))).toEqual({ allowed: true });
    const verdict = judge(ledger, 'visa', hours(20 * 30));
    expect(verdict).toMatchObject({ allowed: false, hold: { rule: 'visa_merchant_reattempts_30d', effect: 'limit' } });
    // The first reattempt was on 2026-11-02: its day bucket leaves the 30-day window at 2026-12-03T00:00Z.
    if (!verdict.allowed) expect(verdict.hold.next_allowed_at).toBe('2026-12-03T00:00:00.000Z');
    // Customer-initiated reattempts have a counter of their own.
    expect(judge(ledger, 'visa', hours(20 * 30), 'customer')).toEqual({ allowed: true });
  });

  it('holds the 16th reattempt in 30 days under the rule in force before May 2025', () => {
    const start = new Date('2025-03-01T10:00:00Z');
    const ledger = attempts(15, 'merchant', (i) => hours(i * 24, start));
    expect(judge(attempts(14, 'merchant', (i) => hours(i * 24, start)), 'visa', hours(15 * 24, start))).toEqual({ allowed: true });
    expect(judge(ledger, 'visa', hours(15 * 24, start))).toMatchObject({ allowed: false, hold: { rule: 'visa_reattempts_30d' } });
  });

  it('does not count a processor-reported failure (not a reattempt) toward the reattempt limit', () => {
    expect(judge(attempts(30, null, (i) => hours(i)), 'visa', hours(31))).toEqual({ allowed: true });
  });
});

describe('Mastercard', () => {
  it.each(['01', '03', '21', '3'])('never retries after advice code %s until the card changes', (code) => {
    const verdict = judge(blocked('mastercard', { adviceCode: code }), 'mastercard', hours(24 * 60));
    expect(verdict).toMatchObject({ allowed: false, hold: { effect: 'never', next_allowed_at: null } });
  });

  it.each([
    ['02', 72],
    ['24', 1],
    ['25', 24],
    ['26', 48],
    ['27', 96],
    ['28', 144],
    ['29', 192],
    ['30', 240],
  ] as const)('after advice code %s waits %i hours', (code, wait) => {
    const ledger = blocked('mastercard', { adviceCode: code });
    expect(judge(ledger, 'mastercard', hours(wait - 0.01))).toMatchObject({
      allowed: false,
      hold: { rule: `mastercard_mac_${code}`, effect: 'not_before', next_allowed_at: hours(wait).toISOString() },
    });
    expect(judge(ledger, 'mastercard', hours(wait))).toEqual({ allowed: true });
  });

  it('holds the 11th attempt in 24 hours until the first hour leaves the window', () => {
    const ledger = attempts(10, 'merchant', (i) => hours(i));
    expect(judge(attempts(9, 'merchant', (i) => hours(i)), 'mastercard', hours(10))).toEqual({ allowed: true });
    const verdict = judge(ledger, 'mastercard', hours(10));
    expect(verdict).toMatchObject({ allowed: false, hold: { rule: 'mastercard_attempts_24h', next_allowed_at: hours(25).toISOString() } });
  });

  it('counts processor-reported failures toward the attempt limits', () => {
    expect(judge(attempts(10, null, (i) => hours(i)), 'mastercard', hours(10))).toMatchObject({ allowed: false, hold: { rule: 'mastercard_attempts_24h' } });
  });

  it('holds the 36th attempt in 30 days; its next allowed time keeps the 24-hour limit too', () => {
    const ledger = attempts(35, 'merchant', (i) => hours(Math.floor(i / 5) * 24 + (i % 5)));
    const verdict = judge(ledger, 'mastercard', hours(24 * 8));
    expect(verdict).toMatchObject({ allowed: false, hold: { rule: 'mastercard_attempts_30d' } });
    if (!verdict.allowed) {
      const reopen = new Date(verdict.hold.next_allowed_at!);
      expect(judge(ledger, 'mastercard', reopen)).toEqual({ allowed: true });
      expect(judge(ledger, 'mastercard', new Date(reopen.getTime() - 1000))).toMatchObject({ allowed: false });
    }
  });
});

describe('other networks', () => {
  it('holds nothing on a card of another network', () => {
    expect(judge(attempts(100, 'merchant', (i) => hours(i / 10)), 'other', hours(11))).toEqual({ allowed: true });
    expect(blocked('other', { declineCode: '41', adviceCode: '03' }).blocks).toEqual([]);
  });
});
